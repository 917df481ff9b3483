// LDAP entries as users: the attributes a lookup asks for, and an entry's values mapped through
// USERINFO to privacyIDEA's attribute names, with the user id from UIDTYPE (the DN or an attribute).
import type { Entry } from 'ldapts';
import type { StoreEnvironment, UserRecord } from '../user-store.ts';
import type { LdapConfig } from './config.ts';
import { guidToString, isGuid } from './guid.ts';

/** A user found, with the DN of its entry (for password checks and writes). */
export interface Found {
  record: UserRecord;
  dn: string;
}

function text(attribute: string, value: string | Buffer): string {
  if (!Buffer.isBuffer(value)) return String(value);
  return isGuid(attribute) ? guidToString(value) : value.toString('utf8');
}

export class EntryReader {
  /** The attributes every lookup asks for. */
  readonly attributes: string[];
  /** Those of them that ldapts must hand over as bytes (objectGUID). */
  readonly binaryAttributes: string[];
  private readonly cfg: LdapConfig;
  private readonly log: StoreEnvironment['log'];

  constructor(cfg: LdapConfig, log: StoreEnvironment['log']) {
    this.cfg = cfg;
    this.log = log;
    const attrs = new Set(
      Object.entries(cfg.userinfo)
        .filter(([k]) => k !== 'password')
        .map(([, v]) => v),
    );
    if (cfg.uidType !== 'DN') attrs.add(cfg.uidType);
    this.attributes = [...attrs];
    this.binaryAttributes = this.attributes.filter(isGuid);
  }

  /** The user id of an entry: its DN, or the first value of the UIDTYPE attribute. */
  uidOf(entry: Entry): string | undefined {
    if (this.cfg.uidType === 'DN') return entry.dn;
    const key = Object.keys(entry).find((k) => k.toLowerCase() === this.cfg.uidType.toLowerCase());
    const v = key === undefined ? undefined : entry[key];
    const first = Array.isArray(v) ? v[0] : v;
    if (first === undefined || first === '') return undefined;
    return Buffer.isBuffer(first) ? text(this.cfg.uidType, first) : first;
  }

  /** The user of an entry; undefined (and a warning) when the entry has no user id. */
  toFound(entry: Entry): Found | undefined {
    const lc = new Map<string, unknown>();
    for (const [k, v] of Object.entries(entry)) lc.set(k.toLowerCase(), v);
    const values = (attribute: string): string[] => {
      const v = lc.get(attribute.toLowerCase());
      if (v === undefined) return [];
      return ((Array.isArray(v) ? v : [v]) as (string | Buffer)[]).map((x) => text(attribute, x));
    };
    const userid = this.uidOf(entry);
    if (!userid) {
      this.log.warn({ dn: entry.dn, uidType: this.cfg.uidType }, 'LDAP entry without the UIDTYPE attribute');
      return undefined;
    }
    const record: UserRecord = { userid, username: values(this.cfg.userinfo.username!)[0] ?? '' };
    for (const [key, attribute] of Object.entries(this.cfg.userinfo)) {
      if (key === 'username' || key === 'userid' || key === 'password') continue;
      // ldapts lists requested attributes the entry lacks as []: absent, as in privacyIDEA.
      const v = values(attribute);
      if (v.length > 0) record[key] = this.cfg.multiValue.has(key) ? v : v[0]!;
    }
    return { record, dn: entry.dn };
  }
}
