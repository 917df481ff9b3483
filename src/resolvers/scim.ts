// scimresolver: users of a SCIM 2.0 service (RFC 7643/7644), read-only.
//
// Settings: privacyIDEA's class reads the capitalised keys Authserver, Resourceserver, Client, Secret
// and Mapping while its descriptor lists authserver, resourceserver, authclient, authsecret and
// mapping, so both spellings are accepted. TIMEOUT (seconds, 5) bounds every lookup and every page of
// a search, the access token included; CACHE_TIMEOUT (seconds, 120; 0 = off) keeps found users.
//
// Access token: OAuth 2.0 client-credentials grant (RFC 6749 §4.4), POST with HTTP Basic client
// authentication. `Authserver` may be the token endpoint itself or the authorisation server's base URL;
// see tokenEndpoint(). The token is shared by all lookups of the store, renewed shortly before it
// expires (expires_in minus a tenth, at most 60 s) and once more when the resource server answers 401.
//
// Users: `<Resourceserver>/Users`. Login lookups filter `userName eq "…"` (values are JSON string
// literals, as RFC 7644 §3.4.2.2 defines them, so quotes and backslashes cannot break out of the
// filter), id lookups GET `/Users/<id>`, searches turn `*` wildcards into sw/co/ew/eq filters joined
// with `and` and page with startIndex/count until the limit.
//
// Mapping: a JSON object privacyIDEA attribute → SCIM attribute path, merged over DEFAULT_MAPPING (a
// key mapped to "" is dropped; username and userid cannot be). Path syntax:
//   path      = [schema-urn ":"] step *("." step)     e.g. name.givenName, emails[type=work].value
//   step      = attribute-name ["[" selector "]"]       attribute names are case-insensitive
//   selector  = "primary"             the element of a multi-valued attribute with primary=true
//             / index                 the element at this 0-based position
//             / sub-attribute "=" v   the element whose sub-attribute equals v (case-insensitive;
//                                     v may be quoted with "…" or '…', cannot contain "]")
// A multi-valued attribute reached without a selector yields its primary element, else its first:
// `emails.value` is the primary e-mail or the only/first one. A path may start with an extension
// schema URN: `urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber`. Values
// that are not strings, numbers or booleans (objects, arrays) map to nothing. Searches filter on the
// path without its selectors (`emails.value`) on the server and then check the mapped value locally,
// so results are exact; a path deeper than attribute.sub-attribute is filtered locally only.
//
// Passwords: SCIM defines no way to verify a user's password, so checkPassword throws (privacyIDEA's
// class silently answers false). Users of a SCIM store authenticate with their tokens' OTP values
// or through another resolver of the realm. The store is not editable.
import { AuthsrvError, ParameterError, ResolverError } from '../errors.ts';
import { settingInt, settingMap, wildcardMatcher } from './settings.ts';
import type {
  ResolverKind,
  ResolverSettings,
  SettingSpec,
  StoreEnvironment,
  UserRecord,
  UserSearch,
  UserStore,
} from './user-store.ts';

const DEFAULT_MAPPING: Readonly<Record<string, string>> = {
  username: 'userName',
  userid: 'id',
  givenname: 'name.givenName',
  surname: 'name.familyName',
  email: 'emails.value',
  phone: 'phoneNumbers[type=work].value',
  mobile: 'phoneNumbers[type=mobile].value',
};

const SETTINGS = {
  Authserver: {
    type: 'string',
    required: true,
    description:
      'OAuth 2.0 authorisation server: its base URL (token endpoint <base>/oauth/token) or the token endpoint URL',
    aliases: ['authserver'],
  },
  Resourceserver: {
    type: 'string',
    required: true,
    description: 'SCIM service base URL; users are read from <Resourceserver>/Users',
    aliases: ['resourceserver'],
  },
  Client: {
    type: 'string',
    required: true,
    description: 'OAuth 2.0 client id (client-credentials grant)',
    aliases: ['authclient'],
  },
  Secret: { type: 'password', description: 'OAuth 2.0 client secret', aliases: ['authsecret'] },
  Mapping: {
    type: 'json',
    description: 'JSON map privacyIDEA attribute → SCIM attribute path (e.g. emails[type=work].value)',
    default: JSON.stringify(DEFAULT_MAPPING),
    aliases: ['mapping'],
  },
  TIMEOUT: { type: 'int', description: 'Seconds a lookup may take, access token included', default: '5' },
  CACHE_TIMEOUT: { type: 'int', description: 'Seconds found users are cached (0: no cache)', default: '120' },
} satisfies Record<string, SettingSpec>;

const PAGE_SIZE = 100;
const CACHE_MAX_ENTRIES = 10_000;

// ---------------------------------------------------------------------------------------------------
// Settings

/**
 * The token endpoint for an `Authserver` value. privacyIDEA always requests `<Authserver>/oauth/token`,
 * so a base URL (`https://auth.example.org`, `https://host/uaa`) gets `/oauth/token` appended. A URL
 * whose last path segment starts with `token` is taken as the token endpoint itself, so the usual
 * providers work as configured (`…/protocol/openid-connect/token`, `…/oauth2/v2.0/token`,
 * `…/v1/token`, `…/as/token.oauth2`, and `<base>/oauth/token`, which stays as it is).
 */
export function tokenEndpoint(authserver: string): string {
  const url = new URL(authserver);
  const segments = url.pathname.replace(/\/+$/, '').split('/');
  if (/^token/i.test(segments[segments.length - 1] ?? '')) return url.href;
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/oauth/token`;
  return url.href;
}

type SettingKey = keyof typeof SETTINGS;

/** The settings under their canonical names, whichever spelling was stored. */
function canonical(settings: ResolverSettings): ResolverSettings {
  const out: ResolverSettings = {};
  for (const [key, spec] of Object.entries(SETTINGS) as [SettingKey, SettingSpec][]) {
    for (const name of [key, ...(spec.aliases ?? [])]) {
      const v = settings[name];
      if (v !== undefined && v !== '') {
        out[key] = v;
        break;
      }
    }
  }
  return out;
}

function httpUrl(value: string | undefined, key: string): URL {
  if (value === undefined || value.trim() === '') throw ParameterError.missing(key);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ParameterError(`${key} must be an http or https URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ParameterError(`${key} must be an http or https URL, got '${value}'`);
  }
  return url;
}

interface ScimConfig {
  tokenUrl: string;
  usersUrl: string;
  client: string;
  secret: string;
  mapping: Map<string, ScimPath>;
  timeoutMs: number;
  cacheMs: number;
}

function parseConfig(settings: ResolverSettings): ScimConfig {
  const s = canonical(settings);
  const tokenUrl = tokenEndpoint(httpUrl(s.Authserver, 'Authserver').href);
  const resource = httpUrl(s.Resourceserver, 'Resourceserver');
  if (resource.search !== '' || resource.hash !== '') {
    throw new ParameterError(
      `Resourceserver must be a base URL without query or fragment, got '${s.Resourceserver}'`,
    );
  }
  const client = s.Client ?? '';
  if (client === '') throw ParameterError.missing('Client');
  const given = settingMap(s, 'Mapping', {});
  const mapping = new Map<string, ScimPath>();
  for (const [key, path] of Object.entries({ ...DEFAULT_MAPPING, ...given })) {
    if (path.trim() === '') {
      if (key === 'username' || key === 'userid')
        throw new ParameterError(`Mapping: '${key}' cannot be empty`);
      continue;
    }
    try {
      mapping.set(key, parseScimPath(path));
    } catch (e) {
      throw new ParameterError(`Mapping: '${key}': ${(e as Error).message}`);
    }
  }
  return {
    tokenUrl,
    usersUrl: `${resource.origin}${resource.pathname.replace(/\/+$/, '')}/Users`,
    client,
    secret: s.Secret ?? '',
    mapping,
    timeoutMs: settingInt(s, 'TIMEOUT', 5, 1, 3600) * 1000,
    cacheMs: settingInt(s, 'CACHE_TIMEOUT', 120, 0) * 1000,
  };
}

// ---------------------------------------------------------------------------------------------------
// Attribute paths (syntax in the header comment)

type Selector =
  | { kind: 'primary' }
  | { kind: 'index'; index: number }
  | { kind: 'equals'; key: string; value: string };

interface Step {
  name: string;
  selector: Selector | undefined;
}

interface ScimPath {
  schema: string | undefined;
  steps: Step[];
  /** The path as a SCIM filter attrPath (selectors dropped), or undefined when SCIM cannot express it. */
  filterAttr: string | undefined;
}

const NAME = '[A-Za-z$][A-Za-z0-9_$-]*';
const STEP = new RegExp(`^(${NAME})(?:\\[([^\\]]*)\\])?`);
const SELECTOR_EQUALS = new RegExp(`^(${NAME})\\s*=\\s*(.*)$`);

function parseSelector(text: string): Selector {
  const s = text.trim();
  if (s.toLowerCase() === 'primary') return { kind: 'primary' };
  if (/^\d+$/.test(s)) return { kind: 'index', index: Number(s) };
  const m = SELECTOR_EQUALS.exec(s);
  if (!m)
    throw new Error(`invalid selector [${text}]: use [primary], [<index>] or [<sub-attribute>=<value>]`);
  const raw = m[2]!.trim();
  const quoted = /^"(.*)"$/.exec(raw) ?? /^'(.*)'$/.exec(raw);
  return { kind: 'equals', key: m[1]!, value: quoted ? quoted[1]! : raw };
}

function parseScimPath(text: string): ScimPath {
  let rest = text.trim();
  let schema: string | undefined;
  if (/^urn:/i.test(rest)) {
    // The attribute starts after the last colon that precedes any selector.
    const bracket = rest.indexOf('[');
    const colon = (bracket < 0 ? rest : rest.slice(0, bracket)).lastIndexOf(':');
    schema = rest.slice(0, colon);
    rest = rest.slice(colon + 1);
    if (schema.split(':').length < 3) throw new Error(`'${text}' has an invalid schema URN`);
  }
  const steps: Step[] = [];
  for (;;) {
    const m = STEP.exec(rest);
    if (!m) throw new Error(`'${text}' is not a SCIM attribute path`);
    steps.push({ name: m[1]!, selector: m[2] === undefined ? undefined : parseSelector(m[2]) });
    rest = rest.slice(m[0].length);
    if (rest === '') break;
    if (rest[0] !== '.') throw new Error(`'${text}' is not a SCIM attribute path`);
    rest = rest.slice(1);
  }
  const names = steps.map((st) => st.name).join('.');
  return {
    schema,
    steps,
    filterAttr: steps.length <= 2 ? (schema ? `${schema}:${names}` : names) : undefined,
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** An attribute by name, case-insensitively (RFC 7643 §2.1). */
function attribute(obj: unknown, name: string): unknown {
  if (!isObject(obj)) return undefined;
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(obj)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

function select(value: unknown, selector: Selector | undefined): unknown {
  const elements = Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
  if (selector === undefined) {
    if (!Array.isArray(value)) return value;
    return elements.find((e) => attribute(e, 'primary') === true) ?? elements[0];
  }
  switch (selector.kind) {
    case 'primary':
      return elements.find((e) => attribute(e, 'primary') === true);
    case 'index':
      return elements[selector.index];
    case 'equals':
      return elements.find((e) => {
        const v = attribute(e, selector.key);
        return (
          (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') &&
          String(v).toLowerCase() === selector.value.toLowerCase()
        );
      });
  }
}

function valueAt(resource: unknown, path: ScimPath): string | undefined {
  let current: unknown = path.schema === undefined ? resource : attribute(resource, path.schema);
  for (const step of path.steps) {
    current = select(attribute(current, step.name), step.selector);
    if (current === undefined || current === null) return undefined;
  }
  if (Array.isArray(current)) current = select(current, undefined);
  if (typeof current === 'string') return current;
  if (typeof current === 'number' || typeof current === 'boolean') return String(current);
  return undefined;
}

/** A SCIM filter for a privacyIDEA search value with `*` wildcards; values are JSON string literals. */
function wildcardConditions(attr: string, pattern: string): string[] {
  const literal = (s: string) => JSON.stringify(s);
  if (!pattern.includes('*')) return [`${attr} eq ${literal(pattern)}`];
  const parts = pattern.split('*');
  const out: string[] = [];
  if (parts[0]) out.push(`${attr} sw ${literal(parts[0])}`);
  for (const middle of parts.slice(1, -1)) if (middle) out.push(`${attr} co ${literal(middle)}`);
  const last = parts[parts.length - 1];
  if (last) out.push(`${attr} ew ${literal(last)}`);
  return out;
}

// ---------------------------------------------------------------------------------------------------
// HTTP

interface Answer {
  status: number;
  text: string;
}

/** Resolves like `promise`, or rejects with the signal's reason when it fires first. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

function originOf(url: string): string {
  return new URL(url).origin;
}

function pathOf(url: string): string {
  return new URL(url).pathname;
}

/** A failed fetch as a clear ResolverError: timeout, refused connection, DNS, TLS … */
function transportError(e: unknown, url: string, timeoutMs: number): AuthsrvError {
  if (e instanceof AuthsrvError) return e;
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') {
    return new ResolverError(`no answer from ${originOf(url)} within ${timeoutMs / 1000} s`);
  }
  const reason = err?.cause?.message ?? err?.cause?.code ?? err?.message ?? String(e);
  return new ResolverError(`cannot reach ${originOf(url)}: ${reason}`);
}

function parseJson(answer: Answer, url: string): unknown {
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new ResolverError(`the answer of ${originOf(url)}${pathOf(url)} is not JSON`);
  }
}

/** The error text a SCIM (detail) or OAuth (error, error_description) error body carries. */
function errorDetail(answer: Answer): string {
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return '';
  }
  const parts = ['error', 'error_description', 'scimType', 'detail']
    .map((k) => attribute(body, k))
    .filter((v): v is string => typeof v === 'string' && v !== '');
  return parts.length ? ` (${parts.join(': ')})` : '';
}

function formEncode(s: string): string {
  return new URLSearchParams([['', s]]).toString().slice(1);
}

// ---------------------------------------------------------------------------------------------------
// The store

interface Page {
  resources: unknown[];
  total: number | undefined;
}

class ScimStore implements UserStore {
  readonly editable = false;
  private readonly cfg: ScimConfig;
  private readonly env: StoreEnvironment;
  private token: { value: string; refreshAt: number } | undefined;
  private pendingToken: Promise<string> | undefined;
  private readonly cache = new Map<string, { record: UserRecord; until: number }>();

  constructor(cfg: ScimConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.env = env;
  }

  private now(): number {
    return this.env.clock().getTime();
  }

  // --- transport ---

  private async send(url: string, init: RequestInit, signal: AbortSignal): Promise<Answer> {
    try {
      const res = await fetch(url, { ...init, signal, redirect: 'manual' });
      return { status: res.status, text: await res.text() };
    } catch (e) {
      throw transportError(e, url, this.cfg.timeoutMs);
    }
  }

  private async fetchToken(): Promise<string> {
    const url = this.cfg.tokenUrl;
    const started = this.now();
    const answer = await this.send(
      url,
      {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${formEncode(this.cfg.client)}:${formEncode(this.cfg.secret)}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: 'grant_type=client_credentials',
      },
      AbortSignal.timeout(this.cfg.timeoutMs),
    );
    if (answer.status !== 200) {
      throw new ResolverError(
        `could not get an access token from ${url}: HTTP ${answer.status}${errorDetail(answer)}`,
      );
    }
    const body = parseJson(answer, url);
    const value = attribute(body, 'access_token');
    if (typeof value !== 'string' || value === '') {
      throw new ResolverError(`the token endpoint ${url} answered without an access_token`);
    }
    const type = attribute(body, 'token_type');
    if (typeof type === 'string' && type.toLowerCase() !== 'bearer') {
      throw new ResolverError(`the token endpoint ${url} issued a '${type}' token, not a Bearer token`);
    }
    const expiresIn = Number(attribute(body, 'expires_in'));
    const refreshAt =
      Number.isFinite(expiresIn) && expiresIn > 0
        ? started + (expiresIn - Math.min(60, expiresIn / 10)) * 1000
        : Number.POSITIVE_INFINITY; // no lifetime given: used until the resource server answers 401
    this.token = { value, refreshAt };
    this.env.log.debug({ tokenUrl: url, expiresIn }, 'SCIM access token obtained');
    return value;
  }

  /** The cached token, or one fresh token request shared by every concurrent caller. */
  private accessToken(signal: AbortSignal): Promise<string> {
    if (this.token && this.now() < this.token.refreshAt) return Promise.resolve(this.token.value);
    if (this.pendingToken === undefined) {
      const pending = this.fetchToken().finally(() => {
        this.pendingToken = undefined;
      });
      pending.catch(() => {}); // a caller that gave up must not leave the rejection unhandled
      this.pendingToken = pending;
    }
    return untilAborted(this.pendingToken, signal);
  }

  /** GET with the bearer token; a 401 renews the token once. One TIMEOUT covers all of it. */
  private async get(url: string): Promise<Answer> {
    const signal = AbortSignal.timeout(this.cfg.timeoutMs);
    try {
      const request = async () => {
        const token = await this.accessToken(signal);
        const headers = {
          authorization: `Bearer ${token}`,
          accept: 'application/scim+json, application/json',
        };
        return { token, answer: await this.send(url, { headers }, signal) };
      };
      let { token, answer } = await request();
      if (answer.status === 401) {
        if (this.token?.value === token) this.token = undefined;
        ({ token, answer } = await request());
        if (answer.status === 401) {
          throw new ResolverError(
            `the SCIM server ${originOf(url)} rejected a fresh access token: HTTP 401${errorDetail(answer)}`,
          );
        }
      }
      return answer;
    } catch (e) {
      throw transportError(e, url, this.cfg.timeoutMs);
    }
  }

  private failure(answer: Answer, url: string): ResolverError {
    return new ResolverError(
      `the SCIM server answered HTTP ${answer.status} for GET ${pathOf(url)}${errorDetail(answer)}`,
    );
  }

  private async list(filter: string | undefined, startIndex: number, count: number): Promise<Page> {
    const params: [string, string][] = [];
    if (filter !== undefined) params.push(['filter', filter]);
    params.push(['startIndex', String(startIndex)], ['count', String(count)]);
    const url = `${this.cfg.usersUrl}?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}`;
    const answer = await this.get(url);
    if (answer.status !== 200) throw this.failure(answer, url);
    const body = parseJson(answer, url);
    const resources = attribute(body, 'Resources') ?? [];
    if (!isObject(body) || !Array.isArray(resources)) {
      throw new ResolverError(`the answer of GET ${pathOf(url)} is not a SCIM ListResponse`);
    }
    const total = attribute(body, 'totalResults');
    return { resources, total: typeof total === 'number' ? total : undefined };
  }

  // --- users ---

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
      const page = await this.list(filter, startIndex, count);
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
      attr === undefined ? undefined : `${attr} eq ${JSON.stringify(login)}`,
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
      const answer = await this.get(url);
      if (answer.status === 404) return undefined;
      if (answer.status !== 200) throw this.failure(answer, url);
      record = this.toRecord(parseJson(answer, url));
      if (record?.userid !== userid) return undefined;
    } else {
      const attr = path.filterAttr;
      [record] = await this.collect(
        attr === undefined ? undefined : `${attr} eq ${JSON.stringify(userid)}`,
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
    const page = await this.list(undefined, 1, 1);
    return page.total ?? page.resources.length;
  }

  async close(): Promise<void> {
    this.cache.clear();
    this.token = undefined;
  }
}

export const scimResolver: ResolverKind = {
  type: 'scimresolver',
  settings: SETTINGS,
  validate(settings) {
    parseConfig(settings);
  },
  open: (settings, env) => new ScimStore(parseConfig(settings), env),
  async test(settings, env) {
    let store: ScimStore | undefined;
    try {
      store = new ScimStore(parseConfig(settings), env);
      return { value: true, description: `Found ${await store.count()} users` };
    } catch (e) {
      return { value: false, description: `failed to retrieve users: ${(e as Error).message}` };
    } finally {
      await store?.close();
    }
  },
};
