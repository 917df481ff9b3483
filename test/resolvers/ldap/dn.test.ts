// Distinguished names without a directory: escaping a value for DN_TEMPLATE, reading the RDNs of a
// DN in every spelling RFC 4514 allows, and telling whether a DN lies under LDAPBASE.
import { describe, expect, it } from 'vitest';
import { escapeDnValue, isWithin, namingAttributes, parseDn } from '../../../src/resolvers/ldap/dn.ts';

const BASE = 'ou=editable,dc=example,dc=org';

describe('escapeDnValue', () => {
  it('escapes the RFC 4514 specials, NUL, and blanks or # where they are special', () => {
    expect(escapeDnValue('#Odd,')).toBe('\\#Odd\\,');
    expect(escapeDnValue('One+Two ')).toBe('One\\+Two\\ ');
    expect(escapeDnValue(' a#b ')).toBe('\\ a#b\\ ');
    expect(escapeDnValue('we,ird+"name"')).toBe('we\\,ird\\+\\"name\\"');
    expect(escapeDnValue('a\\b<c>d;e=f')).toBe('a\\\\b\\<c\\>d\\;e\\=f');
    expect(escapeDnValue('nul\0')).toBe('nul\\00');
    expect(escapeDnValue('Jörg')).toBe('Jörg');
  });

  it('gives back the value when the DN is read again', () => {
    for (const value of ['#Odd, One+Two ', ' lead', 'trail ', 'a\\b"c"<d>;e=f', 'nul\0', 'Jörg 🙂', '']) {
      expect(parseDn(`cn=${escapeDnValue(value)},${BASE}`)?.[0], JSON.stringify(value)).toEqual([
        ['cn', value],
      ]);
    }
  });
});

describe('parseDn', () => {
  it('reads escaped characters and hex pairs (UTF-8 bytes) alike', () => {
    const rdns = [[['uid', 'we,ird+"name"']], [['ou', 'editable']], [['dc', 'example']], [['dc', 'org']]];
    expect(parseDn(`uid=we\\,ird\\+\\"name\\",${BASE}`)).toEqual(rdns);
    expect(parseDn(`uid=we\\2Cird\\2B\\22name\\22,${BASE}`)).toEqual(rdns);
    expect(parseDn(`uid=we\\2cird\\2b\\22name\\22,${BASE}`)).toEqual(rdns);
    expect(parseDn('cn=J\\C3\\B6rg')).toEqual([[['cn', 'Jörg']]]);
    expect(parseDn('cn=a\\5Cb')).toEqual([[['cn', 'a\\b']]]);
  });

  it('reads multi-valued RDNs and ignores blanks around separators, not escaped ones', () => {
    expect(parseDn(' uid = x + cn = Y Z , ou = a ')).toEqual([
      [
        ['uid', 'x'],
        ['cn', 'Y Z'],
      ],
      [['ou', 'a']],
    ]);
    expect(parseDn('cn=a\\ ,ou=x')?.[0]).toEqual([['cn', 'a ']]);
    expect(parseDn('cn=\\ a\\20,ou=x')?.[0]).toEqual([['cn', ' a ']]);
    expect(parseDn('cn=,ou=x')?.[0]).toEqual([['cn', '']]);
    expect(parseDn('')).toEqual([]);
  });

  it('refuses text that is no DN', () => {
    for (const text of ['foo', 'uid=x,foo', 'uid=x\\', 'a,b=c', '=x', 'uid=x,,ou=y']) {
      expect(parseDn(text), text).toBeUndefined();
    }
  });
});

describe('isWithin', () => {
  it('compares RDNs by value, whatever the spelling, case or order of a multi-valued RDN', () => {
    expect(isWithin(`uid=x,${BASE}`, BASE)).toBe(true);
    expect(isWithin(BASE, BASE)).toBe(true);
    expect(isWithin('UID=x, OU=Editable, DC=Example, DC=ORG', BASE)).toBe(true);
    expect(isWithin('uid=x,ou=edit\\61ble,dc=example,dc=org', BASE)).toBe(true);
    expect(isWithin(`uid=x,${BASE}`, 'ou=edit\\61ble,dc=example,dc=org')).toBe(true);
    expect(isWithin('uid=x,cn=a+sn=b,dc=org', 'sn=B+cn=A,dc=org')).toBe(true);
  });

  it('does not take an escaped comma for a separator', () => {
    expect(isWithin('cn=foo,dc=example\\,dc=org', 'dc=example,dc=org')).toBe(false);
    expect(isWithin('uid=x\\,ou=editable,dc=example,dc=org', BASE)).toBe(false);
    expect(isWithin('uid=x,dc=org', BASE)).toBe(false);
    expect(isWithin('uid=x,ou=other,dc=example,dc=org', BASE)).toBe(false);
    expect(isWithin('not a dn', BASE)).toBe(false);
  });
});

describe('namingAttributes', () => {
  it('gives the attribute/value pairs of the first RDN, unescaped', () => {
    expect(namingAttributes(`cn=\\23Odd\\2C One\\2BTwo\\20,${BASE}`)).toEqual([['cn', '#Odd, One+Two ']]);
    expect(namingAttributes(`uid=a\\+b+cn=c,${BASE}`)).toEqual([
      ['uid', 'a+b'],
      ['cn', 'c'],
    ]);
    expect(namingAttributes('nonsense')).toEqual([]);
  });
});
