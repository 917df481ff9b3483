// What an editable LDAP store writes: the DN and attributes of a new entry, and the changes of an
// existing one. The DN comes from DN_TEMPLATE (`<username>`, `<givenname>`, `<surname>` escaped per
// RFC 4514, `<basedn>` is LDAPBASE); attributes are mapped through USERINFO; the password is stored
// as {SSHA} (as privacyIDEA does) in the attribute USERINFO maps `password` to, else userPassword.
// For person object classes a missing cn/sn is filled from the names or the login.
import { Attribute, Change } from 'ldapts';
import { ParameterError } from '../../errors.ts';
import type { UserChanges } from '../user-store.ts';
import type { LdapConfig } from './config.ts';
import { escapeDnValue, namingAttributes } from './dn.ts';
import { sshaHash } from './ssha.ts';

const PERSON_CLASSES = new Set(['person', 'organizationalperson', 'inetorgperson']);

function passwordAttribute(cfg: LdapConfig): string {
  return cfg.userinfo.password ?? 'userPassword';
}

/** [privacyIDEA attribute, LDAP attribute, value] for a write; unknown fields are refused. */
function mapped(cfg: LdapConfig, changes: UserChanges): [string, string, string][] {
  const out: [string, string, string][] = [];
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined || key === 'password' || key === 'userid') continue;
    const attribute = cfg.userinfo[key];
    if (!attribute) throw new ParameterError(`The LDAP resolver has no mapping for the attribute '${key}'`);
    out.push([key, attribute, value]);
  }
  return out;
}

function newDn(cfg: LdapConfig, changes: UserChanges): string {
  return cfg.dnTemplate
    .replaceAll('<basedn>', cfg.base)
    .replaceAll('<username>', escapeDnValue(changes.username ?? ''))
    .replaceAll('<givenname>', escapeDnValue(changes.givenname ?? ''))
    .replaceAll('<surname>', escapeDnValue(changes.surname ?? ''));
}

/** Attribute values by name; names compare case-insensitively, as LDAP's do. */
class AttributeSet {
  private readonly values = new Map<string, string[]>();

  has(attribute: string): boolean {
    return [...this.values.keys()].some((a) => a.toLowerCase() === attribute.toLowerCase());
  }

  put(attribute: string, values: string[]): void {
    const existing = [...this.values.keys()].find((a) => a.toLowerCase() === attribute.toLowerCase());
    this.values.set(existing ?? attribute, values);
  }

  toAttributes(): Attribute[] {
    return [...this.values].map(([type, values]) => new Attribute({ type, values }));
  }
}

/** The DN and attributes of a new user's entry. */
export function newEntry(
  cfg: LdapConfig,
  changes: UserChanges,
  password: string | undefined,
): { dn: string; attributes: Attribute[] } {
  const username = changes.username ?? '';
  if (username === '') throw ParameterError.missing('username');
  if (cfg.dnTemplate === '') throw new ParameterError('DN_TEMPLATE is not set: cannot create users');
  const dn = newDn(cfg, changes);
  const attrs = new AttributeSet();
  attrs.put('objectClass', cfg.objectClasses);
  for (const [, attribute, value] of mapped(cfg, changes)) if (value !== '') attrs.put(attribute, [value]);
  for (const [attribute, value] of namingAttributes(dn))
    if (!attrs.has(attribute)) attrs.put(attribute, [value]);
  if (cfg.objectClasses.some((c) => PERSON_CLASSES.has(c.toLowerCase()))) {
    const full = [changes.givenname, changes.surname].filter((x) => x).join(' ');
    if (!attrs.has('sn')) attrs.put('sn', [changes.surname || username]);
    if (!attrs.has('cn')) attrs.put('cn', [full || username]);
  }
  if (password) attrs.put(passwordAttribute(cfg), [sshaHash(password)]);
  return { dn, attributes: attrs.toAttributes() };
}

function replace(attribute: string, values: string[]): Change {
  // replace with no value deletes the attribute, and is no error when it is absent.
  return new Change({ operation: 'replace', modification: new Attribute({ type: attribute, values }) });
}

/** The changes to the entry `dn`; an attribute that names the entry cannot change. */
export function modifications(
  cfg: LdapConfig,
  dn: string,
  changes: UserChanges,
  password: string | undefined,
): Change[] {
  const naming = namingAttributes(dn);
  const list: Change[] = [];
  for (const [key, attribute, value] of mapped(cfg, changes)) {
    const named = naming.find(([a]) => a.toLowerCase() === attribute.toLowerCase());
    if (named) {
      if (named[1].toLowerCase() === value.toLowerCase()) continue;
      throw new ParameterError(`'${key}' names the LDAP entry (${dn}) and cannot be changed`);
    }
    list.push(replace(attribute, value === '' ? [] : [value]));
  }
  if (password) list.push(replace(passwordAttribute(cfg), [sshaHash(password)]));
  return list;
}
