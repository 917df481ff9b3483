// The user store of one LDAP resolver: lookups (cached for CACHE_TIMEOUT), searches, password
// checks and, when EDITABLE, writes, over the connections of directory.ts. Search references
// (referrals) are never chased and never fail a search, whatever NOREFERRALS says.
import { type Entry, ResultCodeError } from 'ldapts';
import { ParameterError, ResolverError } from '../../errors.ts';
import { wildcardMatcher } from '../../wildcard.ts';
import type { StoreEnvironment, UserChanges, UserRecord, UserSearch, UserStore } from '../user-store.ts';
import { LookupCache } from './cache.ts';
import type { LdapConfig, Scope } from './config.ts';
import { Directory } from './directory.ts';
import { isWithin } from './dn.ts';
import { EntryReader, type Found } from './entries.ts';
import { andFilter, equalityFilter, orFilter, wildcardFilter } from './filter.ts';
import { ENTRY_ALREADY_EXISTS, INVALID_DN_SYNTAX, NO_SUCH_OBJECT, REFERRAL } from './result-codes.ts';
import { modifications, newEntry } from './writes.ts';

function copyRecord(r: UserRecord): UserRecord {
  const out: UserRecord = { userid: r.userid, username: r.username };
  for (const [k, v] of Object.entries(r)) out[k] = Array.isArray(v) ? [...v] : v;
  return out;
}

export class LdapStore implements UserStore {
  readonly editable: boolean;
  private readonly cfg: LdapConfig;
  private readonly directory: Directory;
  private readonly entries: EntryReader;
  private readonly byLogin: LookupCache<Found | undefined>;
  private readonly byId: LookupCache<Found | undefined>;
  /** The DN of every record handed out, for checkPassword/update/delete without another search. */
  private readonly dnOf = new WeakMap<UserRecord, string>();

  constructor(cfg: LdapConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.editable = cfg.editable;
    this.directory = new Directory(cfg, env);
    this.entries = new EntryReader(cfg, env.log);
    this.byLogin = new LookupCache(cfg.cacheMs, env.clock);
    this.byId = new LookupCache(cfg.cacheMs, env.clock);
  }

  // reading

  private handOut(found: Found): UserRecord {
    const copy = copyRecord(found.record);
    this.dnOf.set(copy, found.dn);
    return copy;
  }

  private toFound(entry: Entry | undefined): Found | undefined {
    return entry && this.entries.toFound(entry);
  }

  /** One search (one request) for at most one entry; two matches are an error. */
  private async searchOne(what: string, filter: string, base = this.cfg.base, scope: Scope = this.cfg.scope) {
    return this.directory.run(what, async (client) => {
      try {
        const { searchEntries } = await client.search(base, {
          scope,
          filter,
          attributes: this.entries.attributes,
          explicitBufferAttributes: this.entries.binaryAttributes,
          sizeLimit: 2,
        });
        if (searchEntries.length > 1)
          throw new ResolverError(`More than one LDAP object matches the ${what}`);
        return searchEntries[0];
      } catch (e) {
        // A base that lies in a referral or does not exist: no such user.
        const noSuchBase =
          e instanceof ResultCodeError && [REFERRAL, NO_SUCH_OBJECT, INVALID_DN_SYNTAX].includes(e.code);
        if (noSuchBase && base !== this.cfg.base) return undefined;
        throw e;
      }
    });
  }

  private loginFilter(login: string): string | undefined {
    const terms = this.cfg.loginAttributes.flatMap((a) => equalityFilter(a, login) ?? []);
    if (terms.length === 0) return undefined;
    return andFilter(this.cfg.searchFilter, orFilter(terms));
  }

  async findByLogin(login: string): Promise<UserRecord | undefined> {
    this.directory.ensureOpen();
    const hit = this.byLogin.get(login);
    if (hit) return hit.value && this.handOut(hit.value);
    const filter = login === '' ? undefined : this.loginFilter(login);
    const entry = filter ? await this.searchOne(`lookup of the login name '${login}'`, filter) : undefined;
    const found = this.toFound(entry);
    this.byLogin.set(login, found);
    if (found) this.byId.set(found.record.userid, found);
    return found && this.handOut(found);
  }

  private async entryById(userid: string): Promise<Entry | undefined> {
    if (userid === '') return undefined;
    if (this.cfg.uidType === 'DN') {
      // Only DNs under LDAPBASE belong to this resolver.
      if (!isWithin(userid, this.cfg.base)) return undefined;
      return this.searchOne(`lookup of '${userid}'`, andFilter(this.cfg.searchFilter), userid, 'base');
    }
    const term = equalityFilter(this.cfg.uidType, userid);
    if (term === undefined) return undefined;
    return this.searchOne(`lookup of the user id '${userid}'`, andFilter(this.cfg.searchFilter, term));
  }

  async findById(userid: string): Promise<UserRecord | undefined> {
    this.directory.ensureOpen();
    const hit = this.byId.get(userid);
    if (hit) return hit.value && this.handOut(hit.value);
    const found = this.toFound(await this.entryById(userid));
    this.byId.set(userid, found);
    return found && this.handOut(found);
  }

  /** A paged search of LDAPBASE for at most `limit` entries (Directory.pagedSearch). */
  private pagedSearch(filter: string, limit: number): Promise<Entry[]> {
    return this.directory.pagedSearch(
      this.cfg.base,
      {
        scope: this.cfg.scope,
        filter,
        attributes: this.entries.attributes,
        explicitBufferAttributes: this.entries.binaryAttributes,
      },
      limit,
    );
  }

  async search(filter: UserSearch, limit: number): Promise<UserRecord[]> {
    this.directory.ensureOpen();
    const max = Math.min(Math.floor(limit), this.cfg.sizeLimit);
    if (!(max > 0)) return [];
    const terms: string[] = [];
    let dnMatcher: ((v: string | undefined) => boolean) | undefined;
    for (const [key, value] of Object.entries(filter)) {
      if (value === undefined || value === '') continue;
      if (key === 'userid' && this.cfg.uidType === 'DN') {
        dnMatcher = wildcardMatcher(value);
        continue;
      }
      const attribute =
        key === 'userid' ? this.cfg.uidType : key === 'password' ? undefined : this.cfg.userinfo[key];
      // A field this store does not map (or a value no GUID) matches nobody here.
      const term = attribute === undefined ? undefined : wildcardFilter(attribute, value);
      if (term === undefined) return [];
      terms.push(term);
    }
    const entries = await this.pagedSearch(andFilter(this.cfg.searchFilter, ...terms), max);
    const out: UserRecord[] = [];
    for (const entry of entries) {
      const found = this.entries.toFound(entry);
      if (found && (!dnMatcher || dnMatcher(found.record.userid))) out.push(this.handOut(found));
    }
    return out;
  }

  private async dnOfUser(user: UserRecord): Promise<string | undefined> {
    const known = this.dnOf.get(user);
    if (known) return known;
    // A record this store did not hand out: only a user the store finds by that id counts.
    const found = await this.findById(user.userid);
    return found && this.dnOf.get(found);
  }

  async checkPassword(user: UserRecord, password: string): Promise<boolean> {
    this.directory.ensureOpen();
    // An empty password would make the bind unauthenticated, which LDAP servers accept.
    if (password === '') return false;
    const dn = await this.dnOfUser(user);
    if (!dn) return false;
    return this.directory.checkBind(dn, password);
  }

  // writing

  private refuseUnlessEditable(): void {
    this.directory.ensureOpen();
    if (!this.editable) throw new ParameterError('The LDAP resolver is not editable');
  }

  private forgetAll(): void {
    this.byLogin.clear();
    this.byId.clear();
  }

  private async existingDn(user: UserRecord): Promise<string> {
    const dn = await this.dnOfUser(user);
    if (!dn) throw new ResolverError(`The user '${user.username}' is not in this LDAP resolver`);
    return dn;
  }

  async create(changes: UserChanges, password: string | undefined): Promise<string> {
    this.refuseUnlessEditable();
    const { dn, attributes } = newEntry(this.cfg, changes, password);
    await this.directory.run(
      'creation of the user',
      async (client) => {
        try {
          await client.add(dn, attributes);
        } catch (e) {
          if (e instanceof ResultCodeError && e.code === ENTRY_ALREADY_EXISTS) {
            throw new ParameterError(`The user '${changes.username}' already exists (${dn})`);
          }
          throw e;
        }
      },
      false,
    );
    this.forgetAll();
    // Read the entry back: the id must be the one lookups give (the server's spelling of the DN,
    // OpenLDAP writes \2C for \, ; or the UIDTYPE value the server assigned).
    const found = this.toFound(await this.searchOne(`lookup of '${dn}'`, '(objectClass=*)', dn, 'base'));
    if (!found)
      throw new ResolverError(`The new entry ${dn} cannot be read back (UIDTYPE ${this.cfg.uidType})`);
    return found.record.userid;
  }

  async update(user: UserRecord, changes: UserChanges, password: string | undefined): Promise<void> {
    this.refuseUnlessEditable();
    const dn = await this.existingDn(user);
    const list = modifications(this.cfg, dn, changes, password);
    if (list.length === 0) return;
    await this.directory.run('change of the user', (client) => client.modify(dn, list));
    this.forgetAll();
  }

  async delete(user: UserRecord): Promise<void> {
    this.refuseUnlessEditable();
    const dn = await this.existingDn(user);
    await this.directory.run('deletion of the user', (client) => client.del(dn), false);
    this.forgetAll();
  }

  // test and close

  /** Counts the users of LDAPSEARCHFILTER (up to SIZELIMIT) and those with a UIDTYPE value. */
  async count(): Promise<{ count: number; withUid: number }> {
    this.directory.ensureOpen();
    const entries = await this.pagedSearch(andFilter(this.cfg.searchFilter), this.cfg.sizeLimit);
    const withUid = entries.filter((e) => this.entries.uidOf(e) !== undefined).length;
    return { count: entries.length, withUid };
  }

  async close(): Promise<void> {
    this.forgetAll();
    await this.directory.close();
  }
}
