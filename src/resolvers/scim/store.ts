// The user store of one SCIM resolver (read-only): `<Resourceserver>/Users`. Login lookups filter
// `userName eq "…"`, id lookups GET `/Users/<id>`, searches turn `*` wildcards into sw/co/ew/eq
// filters joined with `and` and page with startIndex/count until the limit. Found users are cached
// for CACHE_TIMEOUT.
//
// Passwords: SCIM defines no way to verify a user's password, so checkPassword throws (privacyIDEA's
// class silently answers false). Users of a SCIM store authenticate with their tokens' OTP values
// or through another resolver of the realm.
import { ResolverError } from '../../errors.ts';
import { wildcardMatcher } from '../../wildcard.ts';
import type { StoreEnvironment, UserRecord, UserSearch, UserStore } from '../user-store.ts';
import { parseJson, ScimClient } from './client.ts';
import type { ScimConfig } from './config.ts';
import { equalsCondition, wildcardConditions } from './filter.ts';
import { type ScimPath, valueAt } from './path.ts';

const PAGE_SIZE = 100;
const CACHE_MAX_ENTRIES = 10_000;

export class ScimStore implements UserStore {
  readonly editable = false;
  private readonly cfg: ScimConfig;
  private readonly env: StoreEnvironment;
  private readonly client: ScimClient;
  private readonly cache = new Map<string, { record: UserRecord; until: number }>();

  constructor(cfg: ScimConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.env = env;
    this.client = new ScimClient(cfg, env);
  }

  private now(): number {
    return this.env.clock().getTime();
  }

  private toRecord(resource: unknown): UserRecord | undefined {
    const record: Record<string, string> = {};
    for (const [key, path] of this.cfg.mapping) record[key] = valueAt(resource, path) ?? '';
    if (!record.userid || !record.username) return undefined;
    return record as UserRecord;
  }

  private cached(key: string): UserRecord | undefined {
    const hit = this.cache.get(key);
    if (hit === undefined) return undefined;
    if (this.now() < hit.until) return hit.record;
    this.cache.delete(key);
    return undefined;
  }

  /** Caches a found user under its login, its id and the login it was asked for. */
  private remember(record: UserRecord, login = record.username): UserRecord {
    if (this.cfg.cacheMs > 0) {
      if (this.cache.size >= CACHE_MAX_ENTRIES) this.cache.clear();
      const entry = { record, until: this.now() + this.cfg.cacheMs };
      this.cache.set(`login:${record.username}`, entry);
      this.cache.set(`login:${login}`, entry);
      this.cache.set(`id:${record.userid}`, entry);
    }
    return record;
  }

  /**
   * Users the server's filter returns that also pass `accept`, page after page, at most `limit`.
   * Stops at the end of the result, and when a page brings only users already seen (a server that
   * ignores startIndex).
   */
  private async collect(
    filter: string | undefined,
    accept: (r: UserRecord) => boolean,
    limit: number,
  ): Promise<UserRecord[]> {
    const out: UserRecord[] = [];
    const seen = new Set<string>();
    let startIndex = 1;
    while (out.length < limit) {
      const count = Math.min(PAGE_SIZE, limit - out.length);
      const page = await this.client.list(filter, startIndex, count);
      let fresh = 0;
      for (const resource of page.resources) {
        const record = this.toRecord(resource);
        if (record === undefined) {
          fresh++;
          continue;
        }
        if (seen.has(record.userid)) continue;
        seen.add(record.userid);
        fresh++;
        if (accept(record)) {
          out.push(record);
          if (out.length >= limit) break;
        }
      }
      startIndex += page.resources.length;
      if (page.resources.length === 0 || fresh === 0) break;
      if (page.total !== undefined ? startIndex > page.total : page.resources.length < count) break;
    }
    return out;
  }

  private path(key: string): ScimPath {
    return this.cfg.mapping.get(key)!; // username and userid are always mapped
  }

  async findByLogin(login: string): Promise<UserRecord | undefined> {
    if (login === '') return undefined;
    const hit = this.cached(`login:${login}`);
    if (hit) return hit;
    const attr = this.path('username').filterAttr;
    // userName is case-insensitive in SCIM; an exact match wins over one differing in case.
    const lower = login.toLowerCase();
    const found = await this.collect(
      attr === undefined ? undefined : equalsCondition(attr, login),
      (r) => r.username.toLowerCase() === lower,
      attr === undefined ? Number.MAX_SAFE_INTEGER : 10,
    );
    const record = found.find((r) => r.username === login) ?? found[0];
    return record && this.remember(record, login);
  }

  async findById(userid: string): Promise<UserRecord | undefined> {
    // fetch() would resolve "." and ".." as path segments; they are no SCIM ids anyway.
    if (userid === '' || userid === '.' || userid === '..') return undefined;
    const hit = this.cached(`id:${userid}`);
    if (hit) return hit;
    const path = this.path('userid');
    let record: UserRecord | undefined;
    if (path.schema === undefined && path.steps.length === 1 && path.steps[0]!.name.toLowerCase() === 'id') {
      const url = `${this.cfg.usersUrl}/${encodeURIComponent(userid)}`;
      const answer = await this.client.get(url);
      if (answer.status === 404) return undefined;
      if (answer.status !== 200) throw this.client.failure(answer, url);
      record = this.toRecord(parseJson(answer, url));
      if (record?.userid !== userid) return undefined;
    } else {
      const attr = path.filterAttr;
      [record] = await this.collect(
        attr === undefined ? undefined : equalsCondition(attr, userid),
        (r) => r.userid === userid,
        1,
      );
    }
    return record && this.remember(record);
  }

  async search(filter: UserSearch, limit: number): Promise<UserRecord[]> {
    if (limit <= 0) return [];
    const conditions: string[] = [];
    const tests: [string, (v: string | undefined) => boolean][] = [];
    for (const [key, pattern] of Object.entries(filter)) {
      const path = this.cfg.mapping.get(key);
      if (path === undefined) return []; // an attribute this store does not have matches nobody
      if (/^\*+$/.test(pattern)) continue;
      tests.push([key, wildcardMatcher(pattern)]);
      if (path.filterAttr !== undefined) conditions.push(...wildcardConditions(path.filterAttr, pattern));
    }
    return this.collect(
      conditions.length ? conditions.join(' and ') : undefined,
      (r) => tests.every(([key, test]) => test(r[key] as string | undefined)),
      limit,
    );
  }

  async checkPassword(_user: UserRecord, _password: string): Promise<boolean> {
    throw new ResolverError(
      'SCIM user stores cannot check passwords: SCIM has no password verification; authenticate these users with a token',
    );
  }

  /** totalResults of an unfiltered list (one user asked for). */
  async count(): Promise<number> {
    const page = await this.client.list(undefined, 1, 1);
    return page.total ?? page.resources.length;
  }

  async close(): Promise<void> {
    this.cache.clear();
    this.client.forgetToken();
  }
}
