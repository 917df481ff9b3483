// Search filters without a directory: values escaped by ldapts come back unchanged when ldapts
// parses the filter it is sent as, and no value can add an assertion or a wildcard.
import { type AndFilter, EqualityFilter, FilterParser, OrFilter, SubstringFilter } from 'ldapts';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../../src/errors.ts';
import {
  andFilter,
  configuredSearchFilter,
  equalityFilter,
  orFilter,
  wildcardFilter,
} from '../../../src/resolvers/ldap/filter.ts';

const NASTY = ['*)(uid=*', 'alice)(|(uid=*', '\\2a', 'a\\b', 'nul\0', '(x)', 'Jörg*'];

describe('equalityFilter', () => {
  it('escapes * ( ) \\ and NUL as hex pairs', () => {
    expect(equalityFilter('uid', '*)(uid=*')).toBe('(uid=\\2a\\29\\28uid=\\2a)');
    expect(equalityFilter('uid', 'a\\b\0')).toBe('(uid=a\\5cb\\00)');
    expect(equalityFilter('mail', 'plain@example.org')).toBe('(mail=plain@example.org)');
  });

  it('makes one equality assertion of any value', () => {
    for (const value of NASTY) {
      const parsed = FilterParser.parseString(equalityFilter('uid', value)!);
      expect(parsed, JSON.stringify(value)).toBeInstanceOf(EqualityFilter);
      expect((parsed as EqualityFilter).value).toBe(value);
    }
  });

  it('compares the bytes of an objectGUID', () => {
    // The first three fields little-endian, as Active Directory stores the GUID.
    expect(equalityFilter('objectGUID', '01020304-0506-0708-090a-0b0c0d0e0f10')).toBe(
      '(objectGUID=\\04\\03\\02\\01\\06\\05\\08\\07\\09\\0a\\0b\\0c\\0d\\0e\\0f\\10)',
    );
    expect(equalityFilter('objectguid', '{01020304-0506-0708-090A-0B0C0D0E0F10}')).toBe(
      '(objectguid=\\04\\03\\02\\01\\06\\05\\08\\07\\09\\0a\\0b\\0c\\0d\\0e\\0f\\10)',
    );
    expect(equalityFilter('objectGUID', 'alice')).toBeUndefined();
  });
});

describe('wildcardFilter', () => {
  it('keeps * as the only wildcard', () => {
    expect(wildcardFilter('uid', 'a**(b)*\\')).toBe('(uid=a*\\28b\\29*\\5c)');
    expect(wildcardFilter('uid', 'exact')).toBe('(uid=exact)');
    const parsed = FilterParser.parseString(wildcardFilter('uid', 'st*(x)*\0')!) as SubstringFilter;
    expect(parsed).toBeInstanceOf(SubstringFilter);
    expect([parsed.initial, parsed.any, parsed.final]).toEqual(['st', ['(x)'], '\0']);
  });

  it('matches an objectGUID exactly or by presence', () => {
    expect(wildcardFilter('objectGUID', '*')).toBe('(objectGUID=*)');
    expect(wildcardFilter('objectGUID', '0102*')).toBeUndefined();
  });
});

describe('andFilter and orFilter', () => {
  it('AND the configured sequence with the terms, one term alone or several OR-ed', () => {
    const terms = ['uid', 'mail'].map((a) => equalityFilter(a, NASTY[0]!)!);
    const filter = andFilter('(uid=*)(objectClass=inetOrgPerson)', orFilter(terms));
    expect(filter).toBe(
      '(&(uid=*)(objectClass=inetOrgPerson)(|(uid=\\2a\\29\\28uid=\\2a)(mail=\\2a\\29\\28uid=\\2a)))',
    );
    const parsed = FilterParser.parseString(filter) as AndFilter;
    expect(parsed.filters).toHaveLength(3);
    expect(parsed.filters[2]).toBeInstanceOf(OrFilter);
    expect(orFilter(terms.slice(0, 1))).toBe(terms[0]);
    expect(andFilter('(uid=*)')).toBe('(&(uid=*))');
  });
});

describe('configuredSearchFilter', () => {
  it('uses LDAPSEARCHFILTER, else LDAPFILTER with %s as *, else the login attribute', () => {
    expect(configuredSearchFilter('(uid=*)(objectClass=person)', '(cn=%s)', 'uid')).toBe(
      '(uid=*)(objectClass=person)',
    );
    expect(configuredSearchFilter('objectClass=person', '', 'uid')).toBe('(objectClass=person)');
    expect(configuredSearchFilter('', '(&(uid=%s)(objectClass=person))', 'uid')).toBe(
      '(&(uid=*)(objectClass=person))',
    );
    expect(configuredSearchFilter(' ', '', 'mail')).toBe('(mail=*)');
  });

  it('refuses what the server would refuse', () => {
    for (const bad of ['(uid=*', '(uid=*))(', '(uid=a(b)', '(=x)']) {
      expect(() => configuredSearchFilter(bad, '', 'uid'), bad).toThrow(ParameterError);
    }
  });
});
