// ldapresolver: users of an LDAP directory (OpenLDAP, 389-DS, Active Directory) through ldapts, with the
// settings of privacyIDEA's LDAPIdResolver.
//
// Connections. A store keeps one connection bound as BINDDN (or anonymous) for every search and
// write, and a small pool of further connections (MAX_AUTH_CONNECTIONS, kept open) on which user
// passwords are checked by re-binding them as the user, so the service connection is never
// rebound. So one authentication (findByLogin + checkPassword) costs one search and one bind, no
// search at all while the user is in the cache (CACHE_TIMEOUT), and no new connection. ldapts
// would silently reconnect a dropped connection without its bind and without StartTLS; the sockets
// handed to it are therefore made here and a connection is never reopened by ldapts: a lost
// connection is replaced by a new one (connected, StartTLS, bound) and a read is retried once on it.
//
// LDAPURI is a server pool: servers are tried in the given order, one that cannot be reached (or
// does not answer within TIMEOUT) is skipped for SERVERPOOL_SKIP seconds (privacyIDEA's default 30),
// unless every server is skipped, then all are tried again. SERVERPOOL_ROUNDS, _STRATEGY and
// _PERSISTENT, KEYTABFILE and the group settings are accepted and not used; ignoredSettings names
// the ones whose value asks for something else, and saving or testing such a resolver warns.
//
// Time limits: connecting (TCP, TLS, StartTLS, the service bind) must finish within TIMEOUT; every
// LDAP request (each page of a search) must be answered within TIMEOUT. A dead or hung server
// therefore fails after TIMEOUT per server tried, never hangs.
//
// TLS_VERSION: privacyIDEA stores Python's ssl protocol numbers: 2 (its default, PROTOCOL_TLS,
// which privacyIDEA restricts to TLS 1.3), 3 = TLS 1.0, 4 = TLS 1.1, 5 = TLS 1.2, each meaning
// exactly that version. `1.0`…`1.3` (or `TLSv1.2` …) mean "at least this version". Empty: Node's
// defaults (TLS 1.2 or 1.3). TLS_VERIFY defaults to true (fail closed); the server certificate is
// checked against TLS_CA_FILE and/or CACERTIFICATE, or the system CAs when neither is given.
//
// Filters: LDAPSEARCHFILTER is privacyIDEA's sequence of filters that are AND-ed with the lookup,
// e.g. `(uid=*)(objectClass=inetOrgPerson)`. Values from users are escaped (RFC 4515); search values
// keep `*` as wildcard. The legacy LDAPFILTER (`(&(uid=%s)(objectClass=…))`) is used, with %s as `*`,
// only when LDAPSEARCHFILTER is empty. Search references (referrals) are never chased and never fail
// a search, whatever NOREFERRALS says. NOSCHEMAS is accepted and has nothing to switch off.
//
// Writes (EDITABLE): the DN comes from DN_TEMPLATE (`<username>`, `<givenname>`, `<surname>` are
// escaped per RFC 4514, `<basedn>` is LDAPBASE); attributes are mapped through USERINFO; the password
// is stored as {SSHA} (as privacyIDEA does) in the attribute USERINFO maps `password` to, else
// userPassword. For person object classes a missing cn/sn is filled from the names or the login.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import tls from 'node:tls';
import { Attribute, Change, Client, type Entry, FilterParser, ResultCodeError } from 'ldapts';
import { AuthsrvError, ParameterError, ResolverError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { settingBool, settingInt, settingMap, settingText, wildcardMatcher } from './settings.ts';
import type {
  ResolverKind,
  ResolverSettings,
  SettingSpec,
  StoreEnvironment,
  TestResult,
  UserChanges,
  UserRecord,
  UserSearch,
  UserStore,
} from './user-store.ts';

/** privacyIDEA's ResolverError (907): the directory failed, as opposed to bad settings (905). */

/** A server could not be used (unreachable, hung, TLS failed): the pool tries the next one. */
class ServerFailure extends Error {}

const DEFAULT_USERINFO: Record<string, string> = {
  phone: 'telephoneNumber',
  mobile: 'mobile',
  email: 'mail',
  surname: 'sn',
  givenname: 'givenName',
};
const DEFAULT_OBJECT_CLASSES = ['top', 'person', 'organizationalPerson', 'inetOrgPerson'];
const PERSON_CLASSES = new Set(['person', 'organizationalperson', 'inetorgperson']);
const PAGE_SIZE = 200;
/**
 * Connections for password checks: at most this many are opened (more checks at once wait for one
 * to be released, see authConnection), and as many stay open when idle, so a login under load binds
 * on an open connection instead of paying a TCP (and TLS) handshake for a connection of its own.
 */
const MAX_AUTH_CONNECTIONS = 4;
const MAX_CACHE_ENTRIES = 10_000;
/** Result codes of a bind that mean "these credentials do not work" rather than a failure. */
const CREDENTIAL_CODES = new Set([48, 49, 53]);
const REFERRAL_CODE = 10;
const ATTRIBUTE_NAME = /^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)$/;

type Scope = 'base' | 'one' | 'sub';

interface LdapServer {
  url: string;
  host: string;
  port: number;
  secure: boolean;
}

interface LdapConfig {
  servers: LdapServer[];
  base: string;
  /** undefined: anonymous */
  bind: { dn: string; password: string } | undefined;
  timeoutMs: number;
  cacheMs: number;
  sizeLimit: number;
  loginAttributes: string[];
  /** The AND-ed filter sequence, e.g. `(uid=*)(objectClass=inetOrgPerson)`. */
  searchFilter: string;
  /** privacyIDEA key → LDAP attribute, `username` included (the first login attribute). */
  userinfo: Record<string, string>;
  /** `DN` or an attribute name. */
  uidType: string;
  multiValue: Set<string>;
  editable: boolean;
  startTls: boolean;
  tls: tls.ConnectionOptions;
  scope: Scope;
  objectClasses: string[];
  dnTemplate: string;
  skipMs: number;
}

// --- settings --------------------------------------------------------------------------------------

function parseServers(text: string): LdapServer[] {
  const servers: LdapServer[] = [];
  for (const part of text.split(',')) {
    const raw = part.trim();
    if (raw === '') continue;
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `ldap://${raw}`;
    let u: URL;
    try {
      u = new URL(withScheme);
    } catch {
      throw new ParameterError(`LDAPURI: '${raw}' is not an LDAP URI`);
    }
    const scheme = u.protocol.slice(0, -1).toLowerCase();
    if (scheme !== 'ldap' && scheme !== 'ldaps') {
      throw new ParameterError(`LDAPURI: '${raw}' must start with ldap:// or ldaps://`);
    }
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    if (host === '') throw new ParameterError(`LDAPURI: '${raw}' names no host`);
    const secure = scheme === 'ldaps';
    const port = u.port ? Number(u.port) : secure ? 636 : 389;
    const shownHost = host.includes(':') ? `[${host}]` : host;
    servers.push({ url: `${scheme}://${shownHost}:${port}`, host, port, secure });
  }
  if (servers.length === 0) throw ParameterError.missing('LDAPURI');
  return servers;
}

function attributeName(key: string, value: string): string {
  const v = value.trim();
  if (!ATTRIBUTE_NAME.test(v)) throw new ParameterError(`${key}: '${value}' is not an LDAP attribute name`);
  return v;
}

/** A JSON list of strings; privacyIDEA (YAML) also accepted single-quoted Python lists. */
function stringList(s: ResolverSettings, key: string, fallback: string[], commaList: boolean): string[] {
  const text = settingText(s, key).trim();
  if (text === '') return fallback;
  if (commaList && !text.startsWith('[')) {
    return text
      .split(',')
      .map((x) => x.trim())
      .filter((x) => x !== '');
  }
  for (const candidate of [text, text.replace(/'/g, '"')]) {
    try {
      const v: unknown = JSON.parse(candidate);
      if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
    } catch {
      // try the next spelling
    }
  }
  throw new ParameterError(`${key} must be a JSON list of strings, got '${text.slice(0, 80)}'`);
}

function tlsVersions(value: string): Pick<tls.ConnectionOptions, 'minVersion' | 'maxVersion'> {
  const v = value.trim();
  const exact: Record<string, tls.SecureVersion> = {
    '2': 'TLSv1.3',
    '3': 'TLSv1',
    '4': 'TLSv1.1',
    '5': 'TLSv1.2',
  };
  const atLeast: Record<string, tls.SecureVersion> = {
    '1.0': 'TLSv1',
    '1.1': 'TLSv1.1',
    '1.2': 'TLSv1.2',
    '1.3': 'TLSv1.3',
  };
  if (v === '') return {};
  const e = exact[v];
  if (e) return { minVersion: e, maxVersion: e };
  const a = atLeast[v.replace(/^tlsv?/i, '')];
  if (a) return { minVersion: a };
  throw new ParameterError(
    `TLS_VERSION '${value}' is not supported: use 2 (TLS 1.3), 3, 4, 5 (exactly TLS 1.0, 1.1, 1.2) or 1.2/1.3 (at least)`,
  );
}

function tlsOptions(s: ResolverSettings): tls.ConnectionOptions {
  const verify = settingBool(s, 'TLS_VERIFY', true);
  const ca: string[] = [];
  const caFile = settingText(s, 'TLS_CA_FILE').trim();
  if (caFile !== '') {
    try {
      ca.push(readFileSync(caFile, 'utf8'));
    } catch (e) {
      throw new ParameterError(
        `TLS_CA_FILE: cannot read ${caFile}: ${(e as NodeJS.ErrnoException).code ?? e}`,
      );
    }
  }
  const caText = settingText(s, 'CACERTIFICATE').trim();
  if (caText !== '') ca.push(caText);
  if (ca.length > 0 && !ca.every((c) => c.includes('-----BEGIN CERTIFICATE-----'))) {
    throw new ParameterError('TLS_CA_FILE/CACERTIFICATE must hold PEM certificates');
  }
  return {
    rejectUnauthorized: verify,
    ...(verify && ca.length > 0 ? { ca } : {}),
    ...tlsVersions(settingText(s, 'TLS_VERSION')),
  };
}

function parseScope(value: string): Scope {
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'sub' || v === 'subtree') return 'sub';
  if (v === 'one' || v === 'onelevel' || v === 'level') return 'one';
  if (v === 'base') return 'base';
  throw new ParameterError(`SCOPE '${value}' must be subtree, one or base`);
}

function parseSearchFilter(s: ResolverSettings, primaryLogin: string): string {
  let filter = settingText(s, 'LDAPSEARCHFILTER').trim();
  if (filter === '') {
    const legacy = settingText(s, 'LDAPFILTER').trim();
    filter = legacy !== '' ? legacy.replaceAll('%s', '*') : `(${primaryLogin}=*)`;
  }
  if (!filter.startsWith('(')) filter = `(${filter})`;
  // ldapts' parser forgives a missing closing parenthesis; the server would not.
  let depth = 0;
  for (let i = 0; i < filter.length && depth >= 0; i++) {
    if (filter[i] === '\\') i++;
    else if (filter[i] === '(') depth++;
    else if (filter[i] === ')') depth--;
  }
  try {
    if (depth !== 0 || !filter.endsWith(')')) throw new Error('unbalanced parentheses');
    FilterParser.parseString(`(&${filter})`);
  } catch (e) {
    throw new ParameterError(
      `LDAPSEARCHFILTER '${filter}' is not a valid LDAP filter: ${(e as Error).message}`,
    );
  }
  return filter;
}

function parseConfig(s: ResolverSettings): LdapConfig {
  const servers = parseServers(settingText(s, 'LDAPURI'));
  const base = settingText(s, 'LDAPBASE').trim();
  if (base === '') throw ParameterError.missing('LDAPBASE');

  const authType = settingText(s, 'AUTHTYPE').trim() || 'Simple';
  const bindDn = settingText(s, 'BINDDN').trim();
  const bindPw = settingText(s, 'BINDPW');
  let bind: LdapConfig['bind'];
  if (authType.toLowerCase() === 'simple') {
    if (bindDn !== '') {
      // An empty password turns a simple bind into an unauthenticated one, which always "works".
      if (bindPw === '')
        throw new ParameterError('BINDPW is empty: a simple bind needs the password of BINDDN');
      bind = { dn: bindDn, password: bindPw };
    }
  } else if (authType.toLowerCase() !== 'anonymous') {
    throw new ParameterError(`AUTHTYPE '${authType}' is not supported (only Simple and Anonymous)`);
  }

  const loginAttributes = settingText(s, 'LOGINNAMEATTRIBUTE', 'uid')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map((a) => attributeName('LOGINNAMEATTRIBUTE', a));
  if (loginAttributes.length === 0) loginAttributes.push('uid');

  const userinfo = { ...settingMap(s, 'USERINFO', DEFAULT_USERINFO) };
  for (const [k, v] of Object.entries(userinfo)) userinfo[k] = attributeName(`USERINFO '${k}'`, v);
  userinfo.username = loginAttributes[0]!;

  const uidRaw = settingText(s, 'UIDTYPE').trim();
  const uidType = uidRaw === '' || uidRaw.toLowerCase() === 'dn' ? 'DN' : attributeName('UIDTYPE', uidRaw);

  const start = settingBool(s, 'START_TLS', false);
  return {
    servers,
    base,
    bind,
    timeoutMs: settingInt(s, 'TIMEOUT', 5, 1, 3600) * 1000,
    cacheMs: settingInt(s, 'CACHE_TIMEOUT', 120, 0) * 1000,
    sizeLimit: settingInt(s, 'SIZELIMIT', 500, 1),
    loginAttributes,
    searchFilter: parseSearchFilter(s, loginAttributes[0]!),
    userinfo,
    uidType,
    multiValue: new Set(stringList(s, 'MULTIVALUEATTRIBUTES', ['mobile'], false)),
    editable: settingBool(s, 'EDITABLE', false),
    // Ignored for ldaps:// servers (connectTo), as privacyIDEA does.
    startTls: start,
    tls: tlsOptions(s),
    scope: parseScope(settingText(s, 'SCOPE')),
    objectClasses: stringList(s, 'OBJECT_CLASSES', DEFAULT_OBJECT_CLASSES, true),
    dnTemplate: settingText(s, 'DN_TEMPLATE').trim(),
    skipMs: settingInt(s, 'SERVERPOOL_SKIP', 30, 0) * 1000,
  };
}

// --- escaping --------------------------------------------------------------------------------------

/** RFC 4515 value escaping: nothing in the value can end the assertion or act as a wildcard. */
function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => `\\${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** A search value: `*` stays a wildcard, everything else is literal. */
function wildcardFilterValue(value: string): string {
  return value.replace(/\*+/g, '*').split('*').map(escapeFilterValue).join('*');
}

/** RFC 4514 attribute value escaping for a DN. */
function escapeDnValue(value: string): string {
  const chars = [...value];
  return chars
    .map((c, i) => {
      if (c === '\0') return '\\00';
      if ('\\,+"<>;='.includes(c)) return `\\${c}`;
      if ((c === ' ' && (i === 0 || i === chars.length - 1)) || (c === '#' && i === 0)) return `\\${c}`;
      return c;
    })
    .join('');
}

/** Splits a DN into its RDNs at unescaped commas. */
function splitDn(dn: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < dn.length; i++) {
    const c = dn[i]!;
    if (c === '\\' && i + 1 < dn.length) {
      cur += c + dn[++i];
    } else if (c === ',') {
      parts.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  parts.push(cur);
  return parts.map((p) => p.trim());
}

function normalizeRdn(rdn: string): string {
  const eq = rdn.indexOf('=');
  return eq < 0 ? rdn.toLowerCase() : `${rdn.slice(0, eq).trim()}=${rdn.slice(eq + 1).trim()}`.toLowerCase();
}

function isWithin(dn: string, base: string): boolean {
  const d = splitDn(dn).map(normalizeRdn);
  const b = splitDn(base).map(normalizeRdn);
  return d.length >= b.length && b.every((rdn, i) => d[d.length - b.length + i] === rdn);
}

function unescapeDnValue(value: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (c === '\\' && /^[0-9a-f]{2}$/i.test(value.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(value.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === '\\' && i + 1 < value.length) {
      bytes.push(...Buffer.from(value[++i]!));
    } else {
      bytes.push(...Buffer.from(c));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** The attribute/value pairs of a DN's first RDN (`uid=x+cn=y` gives two). */
function firstRdn(dn: string): [string, string][] {
  const rdn = splitDn(dn)[0] ?? '';
  const pairs: [string, string][] = [];
  let cur = '';
  const parts: string[] = [];
  for (let i = 0; i < rdn.length; i++) {
    const c = rdn[i]!;
    if (c === '\\' && i + 1 < rdn.length) cur += c + rdn[++i];
    else if (c === '+') {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  parts.push(cur);
  for (const p of parts) {
    const eq = p.indexOf('=');
    if (eq > 0) pairs.push([p.slice(0, eq).trim(), unescapeDnValue(p.slice(eq + 1).trim())]);
  }
  return pairs;
}

/** AD's objectGUID: 16 bytes, the first three fields little-endian (Python's UUID(bytes_le=…)). */
function guidToString(b: Buffer): string {
  if (b.length !== 16) return b.toString('hex');
  const h = Buffer.concat([
    Buffer.from(b.subarray(0, 4)).reverse(),
    Buffer.from(b.subarray(4, 6)).reverse(),
    Buffer.from(b.subarray(6, 8)).reverse(),
    b.subarray(8),
  ]).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function guidFilterValue(uuid: string): string | undefined {
  const hex = uuid.replace(/[{}-]/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) return undefined;
  const b = Buffer.from(hex, 'hex');
  const le = Buffer.concat([
    Buffer.from(b.subarray(0, 4)).reverse(),
    Buffer.from(b.subarray(4, 6)).reverse(),
    Buffer.from(b.subarray(6, 8)).reverse(),
    b.subarray(8),
  ]);
  return [...le].map((x) => `\\${x.toString(16).padStart(2, '0')}`).join('');
}

function isGuid(attribute: string): boolean {
  return attribute.toLowerCase() === 'objectguid';
}

/** The {SSHA} scheme privacyIDEA writes (passlib ldap_salted_sha1); OpenLDAP verifies it natively. */
function sshaHash(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash('sha1').update(password, 'utf8').update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString('base64')}`;
}

// --- connections -----------------------------------------------------------------------------------

function sleepReject(ms: number, onTimeout: () => Error): { promise: Promise<never>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  promise.catch(() => {});
  return { promise, cancel: () => clearTimeout(timer) };
}

function socketErrorText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return err.message ?? String(e);
  }
}

function isTlsError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return (
    /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME/i.test(code) ||
    /certificate|ssl|tls/i.test(String(e))
  );
}

/** One open connection: the ldapts client and the raw socket under it (which alone can kill it). */
class Connection {
  readonly client: Client;
  readonly server: LdapServer;
  private readonly socket: net.Socket;

  constructor(client: Client, server: LdapServer, socket: net.Socket) {
    this.client = client;
    this.server = server;
    this.socket = socket;
  }

  get alive(): boolean {
    return this.client.isConnected && !this.socket.destroyed;
  }

  kill(): void {
    this.socket.destroy();
  }

  async close(): Promise<void> {
    try {
      if (this.alive) await this.client.unbind();
    } catch {
      // closing anyway
    } finally {
      this.socket.destroy();
    }
  }
}

function openSocket(server: LdapServer, cfg: LdapConfig, ms: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const servername = net.isIP(server.host) ? undefined : server.host;
    const socket = server.secure
      ? tls.connect({ host: server.host, port: server.port, servername, ...cfg.tls })
      : net.connect({ host: server.host, port: server.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ServerFailure(`no connection to ${server.url} within ${ms / 1000} s`));
    }, ms);
    socket.once(server.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      // ldapts replaces this listener when it takes the socket over.
      socket.on('error', () => {});
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      // An idle pooled connection must not keep a CLI process alive.
      socket.unref();
      resolve(socket);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      socket.destroy();
      reject(
        new ServerFailure(
          server.secure && isTlsError(e)
            ? `TLS with ${server.url} failed: ${(e as Error).message}`
            : `cannot connect to ${server.url}: ${socketErrorText(e)}`,
        ),
      );
    });
  });
}

/**
 * Connects to one server: TCP or TLS, StartTLS, and the bind when given, all within TIMEOUT.
 * Throws ServerFailure when the server is not usable, ResolverError when it refuses the bind.
 */
async function connectTo(server: LdapServer, cfg: LdapConfig, bind: LdapConfig['bind']): Promise<Connection> {
  const started = Date.now();
  const socket = await openSocket(server, cfg, cfg.timeoutMs);
  let handedOver = false;
  const handOver = () => {
    // ldapts calls this again to reconnect a dropped connection, without StartTLS or bind: refuse.
    if (handedOver) throw new Error('the LDAP connection was lost');
    handedOver = true;
    return socket;
  };
  const client = new Client({
    url: server.url,
    timeout: cfg.timeoutMs,
    connectTimeout: cfg.timeoutMs,
    createConnection: handOver as unknown as typeof net.connect,
    createSecureConnection: ((options: unknown) =>
      typeof options === 'object' && options !== null && 'socket' in options
        ? tls.connect(options as tls.ConnectionOptions)
        : handOver()) as unknown as typeof tls.connect,
  });
  const conn = new Connection(client, server, socket);
  const remaining = cfg.timeoutMs - (Date.now() - started);
  const deadline = sleepReject(Math.max(remaining, 1), () => {
    socket.destroy();
    return new ServerFailure(`${server.url} did not answer within ${cfg.timeoutMs / 1000} s`);
  });
  try {
    await Promise.race([
      deadline.promise,
      (async () => {
        if (cfg.startTls && !server.secure) {
          try {
            await client.startTLS({
              ...cfg.tls,
              host: server.host,
              servername: net.isIP(server.host) ? undefined : server.host,
            });
          } catch (e) {
            if (e instanceof ResultCodeError) {
              throw new ServerFailure(`${server.url} refused StartTLS: ${e.message}`);
            }
            throw new ServerFailure(`StartTLS with ${server.url} failed: ${(e as Error).message}`);
          }
        }
        if (bind) await client.bind(bind.dn, bind.password);
      })(),
    ]);
    return conn;
  } catch (e) {
    conn.kill();
    if (e instanceof ServerFailure) throw e;
    if (e instanceof ResultCodeError) {
      throw new ResolverError(
        CREDENTIAL_CODES.has(e.code)
          ? `The LDAP server ${server.url} rejected the bind as '${bind?.dn}': wrong BINDDN or BINDPW`
          : `The bind as '${bind?.dn}' on ${server.url} failed: ${e.message}`,
      );
    }
    throw new ServerFailure(`${server.url}: ${(e as Error).message}`);
  } finally {
    deadline.cancel();
  }
}

/** The servers of LDAPURI, with the ones that failed recently skipped. */
class ServerPool {
  private readonly cfg: LdapConfig;
  private readonly clock: () => Date;
  private readonly log: StoreEnvironment['log'];
  private readonly deadUntil = new Map<string, number>();

  constructor(cfg: LdapConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.clock = env.clock;
    this.log = env.log;
  }

  markDead(server: LdapServer, reason: string): void {
    if (this.cfg.servers.length > 1) this.log.warn({ server: server.url, reason }, 'LDAP server skipped');
    this.deadUntil.set(server.url, this.clock().getTime() + this.cfg.skipMs);
  }

  async connect(bind: LdapConfig['bind']): Promise<Connection> {
    const now = this.clock().getTime();
    const live = this.cfg.servers.filter((s) => (this.deadUntil.get(s.url) ?? 0) <= now);
    const failures: string[] = [];
    for (const server of live.length > 0 ? live : this.cfg.servers) {
      try {
        const conn = await connectTo(server, this.cfg, bind);
        this.deadUntil.delete(server.url);
        return conn;
      } catch (e) {
        if (!(e instanceof ServerFailure)) throw e;
        failures.push(e.message);
        this.markDead(server, e.message);
      }
    }
    throw new ResolverError(`LDAP server unreachable: ${failures.join('; ')}`);
  }
}

// --- the store -------------------------------------------------------------------------------------

interface Found {
  record: UserRecord;
  dn: string;
}

interface CacheEntry {
  value: Found | undefined;
  expires: number;
}

function copyRecord(r: UserRecord): UserRecord {
  const out: UserRecord = { userid: r.userid, username: r.username };
  for (const [k, v] of Object.entries(r)) out[k] = Array.isArray(v) ? [...v] : v;
  return out;
}

function isConnectionLost(e: unknown): boolean {
  return /Connection closed before message response|Socket connection not established|LDAP connection was lost|Socket error/.test(
    String((e as Error)?.message ?? e),
  );
}

function isTimeout(e: unknown): boolean {
  return /Operation timed out/.test(String((e as Error)?.message ?? e));
}

class LdapStore implements UserStore {
  readonly editable: boolean;
  private readonly cfg: LdapConfig;
  private readonly env: StoreEnvironment;
  private readonly pool: ServerPool;
  private service: Promise<Connection> | undefined;
  private readonly idleAuth: Connection[] = [];
  private readonly busy = new Set<Connection>();
  /** Password-check connections being opened (not in `busy` yet). */
  private authOpening = 0;
  /** Password checks waiting for a connection: handed one, or undefined to open their own. */
  private readonly authWaiters: ((conn: Connection | undefined) => void)[] = [];
  private readonly byLogin = new Map<string, CacheEntry>();
  private readonly byId = new Map<string, CacheEntry>();
  /** The DN of every record handed out, for checkPassword/update/delete without another search. */
  private readonly dnOf = new WeakMap<UserRecord, string>();
  private readonly attributes: string[];
  private closed = false;

  constructor(cfg: LdapConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.env = env;
    this.editable = cfg.editable;
    this.pool = new ServerPool(cfg, env);
    const attrs = new Set(
      Object.entries(cfg.userinfo)
        .filter(([k]) => k !== 'password')
        .map(([, v]) => v),
    );
    if (cfg.uidType !== 'DN') attrs.add(cfg.uidType);
    this.attributes = [...attrs];
  }

  // connections

  private ensureOpen(): void {
    if (this.closed) throw new ResolverError('The LDAP resolver has been closed');
  }

  /** The bound service connection, opened (again) when there is none or it dropped. */
  private async serviceConnection(): Promise<{ conn: Connection; reused: boolean }> {
    this.ensureOpen();
    const current = this.service;
    if (current) {
      const conn = await current.catch(() => undefined);
      if (conn?.alive) return { conn, reused: true };
      if (this.service === current) this.service = undefined;
      conn?.kill();
    }
    if (!this.service) {
      const opening = this.pool.connect(this.cfg.bind);
      this.service = opening;
      opening.catch(() => {
        if (this.service === opening) this.service = undefined;
      });
    }
    const conn = await this.service;
    if (this.closed) {
      await conn.close();
      this.ensureOpen();
    }
    return { conn, reused: false };
  }

  /**
   * Runs an operation on the service connection. A reused connection that turns out to be gone is
   * replaced and a read (or a write that was never sent) is tried once more.
   */
  private async onService<T>(what: string, op: (c: Client) => Promise<T>, idempotent = true): Promise<T> {
    const { conn, reused } = await this.serviceConnection();
    try {
      return await op(conn.client);
    } catch (e) {
      const lost = isConnectionLost(e) && !conn.alive;
      const unsent = /LDAP connection was lost|Socket connection not established/.test(String(e));
      // A server that stopped answering: another server of the pool may still.
      const hung = isTimeout(e) && idempotent && this.cfg.servers.length > 1;
      if ((lost && reused && (idempotent || unsent)) || hung) {
        if (hung) this.pool.markDead(conn.server, 'timeout');
        conn.kill();
        const again = await this.serviceConnection();
        try {
          return await op(again.conn.client);
        } catch (e2) {
          throw this.operationError(what, e2, again.conn);
        }
      }
      throw this.operationError(what, e, conn);
    }
  }

  private operationError(what: string, e: unknown, conn: Connection): Error {
    if (e instanceof AuthsrvError) return e;
    if (isTimeout(e)) {
      conn.kill();
      this.pool.markDead(conn.server, 'timeout');
      return new ResolverError(
        `${conn.server.url} did not answer the ${what} within ${this.cfg.timeoutMs / 1000} s`,
      );
    }
    if (isConnectionLost(e)) {
      conn.kill();
      return new ResolverError(`The connection to ${conn.server.url} was lost during the ${what}`);
    }
    if (e instanceof ResultCodeError) {
      if (e.code === 32) {
        return new ResolverError(
          what === 'search' || what.startsWith('lookup')
            ? `The ${what} failed: LDAPBASE '${this.cfg.base}' does not exist on ${conn.server.url}`
            : `The ${what} failed: no such object (${e.message})`,
        );
      }
      if (e.code === 50)
        return new ResolverError(`The ${what} failed: BINDDN has insufficient access rights`);
      if (e.code === REFERRAL_CODE)
        return new ResolverError(`The ${what} failed: the server answered with a referral`);
    }
    return new ResolverError(`The LDAP ${what} on ${conn.server.url} failed: ${(e as Error).message ?? e}`);
  }

  // reading

  /** The user id of an entry: its DN, or the first value of the UIDTYPE attribute. */
  private uidOf(entry: Entry): string | undefined {
    if (this.cfg.uidType === 'DN') return entry.dn;
    const key = Object.keys(entry).find((k) => k.toLowerCase() === this.cfg.uidType.toLowerCase());
    const v = key === undefined ? undefined : entry[key];
    const first = Array.isArray(v) ? v[0] : v;
    if (first === undefined || first === '') return undefined;
    return Buffer.isBuffer(first)
      ? isGuid(this.cfg.uidType)
        ? guidToString(first)
        : first.toString('utf8')
      : first;
  }

  private entryToFound(entry: Entry): Found | undefined {
    const lc = new Map<string, unknown>();
    for (const [k, v] of Object.entries(entry)) lc.set(k.toLowerCase(), v);
    const values = (attribute: string): string[] => {
      const v = lc.get(attribute.toLowerCase());
      if (v === undefined) return [];
      const list = (Array.isArray(v) ? v : [v]) as (string | Buffer)[];
      return list.map((x) =>
        Buffer.isBuffer(x) ? (isGuid(attribute) ? guidToString(x) : x.toString('utf8')) : String(x),
      );
    };
    const userid = this.uidOf(entry);
    if (!userid) {
      this.env.log.warn(
        { dn: entry.dn, uidType: this.cfg.uidType },
        'LDAP entry without the UIDTYPE attribute',
      );
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

  private handOut(found: Found): UserRecord {
    const copy = copyRecord(found.record);
    this.dnOf.set(copy, found.dn);
    return copy;
  }

  private get binaryAttributes(): string[] {
    return this.attributes.filter(isGuid);
  }

  /** One search (one request) for at most one entry; two matches are an error. */
  private async searchOne(what: string, filter: string, base = this.cfg.base, scope = this.cfg.scope) {
    return this.onService(what, async (client) => {
      try {
        const { searchEntries } = await client.search(base, {
          scope,
          filter,
          attributes: this.attributes,
          explicitBufferAttributes: this.binaryAttributes,
          sizeLimit: 2,
        });
        if (searchEntries.length > 1)
          throw new ResolverError(`More than one LDAP object matches the ${what}`);
        return searchEntries[0];
      } catch (e) {
        // A base that lies in a referral or does not exist: no such user.
        if (
          e instanceof ResultCodeError &&
          [REFERRAL_CODE, 32, 34].includes(e.code) &&
          base !== this.cfg.base
        ) {
          return undefined;
        }
        throw e;
      }
    });
  }

  private cached(map: Map<string, CacheEntry>, key: string): CacheEntry | undefined {
    if (this.cfg.cacheMs === 0) return undefined;
    const entry = map.get(key);
    if (!entry) return undefined;
    if (entry.expires > this.env.clock().getTime()) return entry;
    map.delete(key);
    return undefined;
  }

  private remember(map: Map<string, CacheEntry>, key: string, value: Found | undefined): void {
    if (this.cfg.cacheMs === 0) return;
    const now = this.env.clock().getTime();
    if (map.size >= MAX_CACHE_ENTRIES) {
      for (const [k, e] of map) if (e.expires <= now) map.delete(k);
      // Still full: drop the oldest tenth (a Map iterates in insertion order).
      let n = map.size >= MAX_CACHE_ENTRIES ? Math.ceil(MAX_CACHE_ENTRIES / 10) : 0;
      for (const k of map.keys()) {
        if (n-- <= 0) break;
        map.delete(k);
      }
    }
    map.set(key, { value, expires: now + this.cfg.cacheMs });
  }

  private forgetAll(): void {
    this.byLogin.clear();
    this.byId.clear();
  }

  private loginFilter(login: string): string | undefined {
    const escaped = escapeFilterValue(login);
    const terms = this.cfg.loginAttributes.flatMap((a) => {
      if (!isGuid(a)) return [`(${a}=${escaped})`];
      const guid = guidFilterValue(login);
      return guid ? [`(${a}=${guid})`] : [];
    });
    if (terms.length === 0) return undefined;
    return `(&${this.cfg.searchFilter}${terms.length === 1 ? terms[0] : `(|${terms.join('')})`})`;
  }

  async findByLogin(login: string): Promise<UserRecord | undefined> {
    this.ensureOpen();
    const hit = this.cached(this.byLogin, login);
    if (hit) return hit.value && this.handOut(hit.value);
    const filter = login === '' ? undefined : this.loginFilter(login);
    const entry = filter ? await this.searchOne(`lookup of the login name '${login}'`, filter) : undefined;
    const found = entry && this.entryToFound(entry);
    this.remember(this.byLogin, login, found);
    if (found) this.remember(this.byId, found.record.userid, found);
    return found && this.handOut(found);
  }

  async findById(userid: string): Promise<UserRecord | undefined> {
    this.ensureOpen();
    const hit = this.cached(this.byId, userid);
    if (hit) return hit.value && this.handOut(hit.value);
    let entry: Entry | undefined;
    if (userid === '') {
      entry = undefined;
    } else if (this.cfg.uidType === 'DN') {
      // Only DNs under LDAPBASE belong to this resolver.
      if (isWithin(userid, this.cfg.base)) {
        entry = await this.searchOne(`lookup of '${userid}'`, `(&${this.cfg.searchFilter})`, userid, 'base');
      }
    } else {
      const value = isGuid(this.cfg.uidType) ? guidFilterValue(userid) : escapeFilterValue(userid);
      if (value !== undefined) {
        const filter = `(&${this.cfg.searchFilter}(${this.cfg.uidType}=${value}))`;
        entry = await this.searchOne(`lookup of the user id '${userid}'`, filter);
      }
    }
    const found = entry && this.entryToFound(entry);
    this.remember(this.byId, userid, found);
    return found && this.handOut(found);
  }

  /**
   * A paged search of LDAPBASE. The server is asked for at most `limit` entries; when it stops with
   * sizeLimitExceeded (its own limit or ours), the entries received so far are the result.
   */
  private async pagedSearch(filter: string, limit: number): Promise<Entry[]> {
    return this.onService('search', async (client) => {
      const out: Entry[] = [];
      const pages = client.searchPaginated(this.cfg.base, {
        scope: this.cfg.scope,
        filter,
        attributes: this.attributes,
        explicitBufferAttributes: this.binaryAttributes,
        sizeLimit: limit,
        paged: { pageSize: Math.min(limit, PAGE_SIZE) },
      });
      for await (const page of pages) {
        // Search references (referrals) are in page.searchReferences: never chased.
        for (const e of page.searchEntries) if (out.length < limit) out.push(e);
        // Some servers (Active Directory) ignore the requested size limit.
        if (out.length >= limit) break;
      }
      return out;
    });
  }

  async search(filter: UserSearch, limit: number): Promise<UserRecord[]> {
    this.ensureOpen();
    const max = Math.min(Math.floor(limit), this.cfg.sizeLimit);
    if (!(max > 0)) return [];
    let terms = '';
    let dnMatcher: ((v: string | undefined) => boolean) | undefined;
    for (const [key, value] of Object.entries(filter)) {
      if (value === undefined || value === '') continue;
      if (key === 'userid' && this.cfg.uidType === 'DN') {
        dnMatcher = wildcardMatcher(value);
        continue;
      }
      const attribute =
        key === 'userid' ? this.cfg.uidType : key === 'password' ? undefined : this.cfg.userinfo[key];
      // A field this store does not map matches nobody here.
      if (attribute === undefined) return [];
      if (isGuid(attribute)) {
        const guid = value === '*' ? '*' : guidFilterValue(value);
        if (guid === undefined) return [];
        terms += `(${attribute}=${guid})`;
      } else {
        terms += `(${attribute}=${wildcardFilterValue(value)})`;
      }
    }
    const entries = await this.pagedSearch(`(&${this.cfg.searchFilter}${terms})`, max);
    const out: UserRecord[] = [];
    for (const entry of entries) {
      const found = this.entryToFound(entry);
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

  // passwords

  private async authConnection(): Promise<{ conn: Connection; reused: boolean }> {
    this.ensureOpen();
    for (let conn = this.idleAuth.pop(); conn; conn = this.idleAuth.pop()) {
      if (conn.alive) {
        this.busy.add(conn);
        return { conn, reused: true };
      }
      conn.kill();
    }
    if (this.busy.size + this.authOpening >= MAX_AUTH_CONNECTIONS) {
      // All in use: wait for one to be released. After TIMEOUT of waiting (a slow or hung server)
      // or when a released one was lost, this check opens a connection of its own.
      const handed = await new Promise<Connection | undefined>((resolve) => {
        const waiter = (c: Connection | undefined) => {
          clearTimeout(timer);
          resolve(c);
        };
        const timer = setTimeout(() => {
          const i = this.authWaiters.indexOf(waiter);
          if (i >= 0) this.authWaiters.splice(i, 1);
          resolve(undefined);
        }, this.cfg.timeoutMs);
        this.authWaiters.push(waiter);
      });
      // A connection handed over is still in `busy`, now this check's.
      if (handed) return { conn: handed, reused: true };
      this.ensureOpen();
    }
    this.authOpening++;
    try {
      const conn = await this.pool.connect(undefined);
      this.busy.add(conn);
      return { conn, reused: false };
    } finally {
      this.authOpening--;
    }
  }

  private releaseAuth(conn: Connection): void {
    const alive = !this.closed && conn.alive;
    const waiter = this.authWaiters.shift();
    if (waiter && alive) {
      waiter(conn);
      return;
    }
    this.busy.delete(conn);
    if (alive && this.idleAuth.length < MAX_AUTH_CONNECTIONS) {
      this.idleAuth.push(conn);
      return;
    }
    void conn.close();
    // The lost connection's place is free: the first waiter opens a new one.
    waiter?.(undefined);
  }

  async checkPassword(user: UserRecord, password: string): Promise<boolean> {
    this.ensureOpen();
    // An empty password would make the bind unauthenticated, which LDAP servers accept.
    if (password === '') return false;
    const dn = await this.dnOfUser(user);
    if (!dn) return false;
    for (let attempt = 0; ; attempt++) {
      const { conn, reused } = await this.authConnection();
      try {
        await conn.client.bind(dn, password);
        this.releaseAuth(conn);
        return true;
      } catch (e) {
        if (e instanceof ResultCodeError && CREDENTIAL_CODES.has(e.code)) {
          this.releaseAuth(conn);
          return false;
        }
        conn.kill();
        this.releaseAuth(conn);
        if (isConnectionLost(e) && reused && attempt === 0) continue;
        throw this.operationError('password check', e, conn);
      }
    }
  }

  // writing

  private refuseUnlessEditable(): void {
    this.ensureOpen();
    if (!this.editable) throw new ParameterError('The LDAP resolver is not editable');
  }

  private passwordAttribute(): string {
    return this.cfg.userinfo.password ?? 'userPassword';
  }

  /** privacyIDEA attribute → LDAP attribute for a write; unknown fields are refused. */
  private mapped(changes: UserChanges): [string, string, string][] {
    const out: [string, string, string][] = [];
    for (const [key, value] of Object.entries(changes)) {
      if (value === undefined || key === 'password' || key === 'userid') continue;
      const attribute = this.cfg.userinfo[key];
      if (!attribute) throw new ParameterError(`The LDAP resolver has no mapping for the attribute '${key}'`);
      out.push([key, attribute, value]);
    }
    return out;
  }

  async create(changes: UserChanges, password: string | undefined): Promise<string> {
    this.refuseUnlessEditable();
    const username = changes.username ?? '';
    if (username === '') throw ParameterError.missing('username');
    if (this.cfg.dnTemplate === '') throw new ParameterError('DN_TEMPLATE is not set: cannot create users');
    const dn = this.cfg.dnTemplate
      .replaceAll('<basedn>', this.cfg.base)
      .replaceAll('<username>', escapeDnValue(username))
      .replaceAll('<givenname>', escapeDnValue(changes.givenname ?? ''))
      .replaceAll('<surname>', escapeDnValue(changes.surname ?? ''));
    const attrs = new Map<string, string[]>();
    const put = (attribute: string, values: string[]) => {
      const existing = [...attrs.keys()].find((a) => a.toLowerCase() === attribute.toLowerCase());
      attrs.set(existing ?? attribute, values);
    };
    const has = (attribute: string) =>
      [...attrs.keys()].some((a) => a.toLowerCase() === attribute.toLowerCase());
    put('objectClass', this.cfg.objectClasses);
    for (const [, attribute, value] of this.mapped(changes)) if (value !== '') put(attribute, [value]);
    for (const [attribute, value] of firstRdn(dn)) if (!has(attribute)) put(attribute, [value]);
    if (this.cfg.objectClasses.some((c) => PERSON_CLASSES.has(c.toLowerCase()))) {
      const full = [changes.givenname, changes.surname].filter((x) => x).join(' ');
      if (!has('sn')) put('sn', [changes.surname || username]);
      if (!has('cn')) put('cn', [full || username]);
    }
    if (password) put(this.passwordAttribute(), [sshaHash(password)]);
    await this.onService(
      'creation of the user',
      async (client) => {
        try {
          await client.add(
            dn,
            [...attrs].map(([type, values]) => new Attribute({ type, values })),
          );
        } catch (e) {
          if (e instanceof ResultCodeError && e.code === 68) {
            throw new ParameterError(`The user '${username}' already exists (${dn})`);
          }
          throw e;
        }
      },
      false,
    );
    this.forgetAll();
    // Read the entry back: the id must be the one lookups give (the server's spelling of the DN,
    // OpenLDAP writes \2C for \, ; or the UIDTYPE value the server assigned).
    const entry = await this.searchOne(`lookup of '${dn}'`, '(objectClass=*)', dn, 'base');
    const found = entry && this.entryToFound(entry);
    if (!found)
      throw new ResolverError(`The new entry ${dn} cannot be read back (UIDTYPE ${this.cfg.uidType})`);
    return found.record.userid;
  }

  async update(user: UserRecord, changes: UserChanges, password: string | undefined): Promise<void> {
    this.refuseUnlessEditable();
    const dn = await this.dnOfUser(user);
    if (!dn) throw new ResolverError(`The user '${user.username}' is not in this LDAP resolver`);
    const rdn = firstRdn(dn);
    const list: Change[] = [];
    for (const [key, attribute, value] of this.mapped(changes)) {
      const naming = rdn.find(([a]) => a.toLowerCase() === attribute.toLowerCase());
      if (naming) {
        if (naming[1].toLowerCase() === value.toLowerCase()) continue;
        throw new ParameterError(`'${key}' names the LDAP entry (${dn}) and cannot be changed`);
      }
      // replace with no value deletes the attribute, and is no error when it is absent.
      list.push(
        new Change({
          operation: 'replace',
          modification: new Attribute({ type: attribute, values: value === '' ? [] : [value] }),
        }),
      );
    }
    if (password) {
      list.push(
        new Change({
          operation: 'replace',
          modification: new Attribute({ type: this.passwordAttribute(), values: [sshaHash(password)] }),
        }),
      );
    }
    if (list.length === 0) return;
    await this.onService('change of the user', (client) => client.modify(dn, list));
    this.forgetAll();
  }

  async delete(user: UserRecord): Promise<void> {
    this.refuseUnlessEditable();
    const dn = await this.dnOfUser(user);
    if (!dn) throw new ResolverError(`The user '${user.username}' is not in this LDAP resolver`);
    await this.onService('deletion of the user', (client) => client.del(dn), false);
    this.forgetAll();
  }

  // test and close

  /** Counts the users of LDAPSEARCHFILTER (up to SIZELIMIT) and those with a UIDTYPE value. */
  async count(): Promise<{ count: number; withUid: number }> {
    this.ensureOpen();
    const entries = await this.pagedSearch(`(&${this.cfg.searchFilter})`, this.cfg.sizeLimit);
    const withUid = entries.filter((e) => this.uidOf(e) !== undefined).length;
    return { count: entries.length, withUid };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.forgetAll();
    const service = this.service;
    this.service = undefined;
    for (const waiter of this.authWaiters.splice(0)) waiter(undefined);
    const conns = [...this.idleAuth.splice(0), ...this.busy];
    this.busy.clear();
    const serviceConn = service ? await service.catch(() => undefined) : undefined;
    if (serviceConn) conns.push(serviceConn);
    await Promise.allSettled(conns.map((c) => c.close()));
  }
}

// --- settings without effect -----------------------------------------------------------------------

const GROUPS_UNSUPPORTED = 'group lookups are not supported, users get no group memberships';
const POOL_IN_ORDER = 'servers are always tried in the given order (as with FIRST)';

/**
 * privacyIDEA settings accepted so that its configurations import unchanged, but not implemented:
 * when a value asks for something else than authsrv does, `ignoredSettings` names it. Empty values,
 * privacyIDEA's defaults (SERVERPOOL_ROUNDS 2, SERVERPOOL_STRATEGY ROUND_ROBIN, the rest empty or
 * False) and values that ask for what authsrv does anyway are not named: servers are tried in order,
 * each once per connection (FIRST, ROUNDS 1), and a pool's skipped servers are remembered for the
 * life of the resolver (SERVERPOOL_PERSISTENT True), so SERVERPOOL_PERSISTENT is never named.
 */
const IGNORED_SETTINGS: Record<string, { ignored: (value: string) => boolean; why: string }> = {
  KEYTABFILE: { ignored: (v) => v !== '', why: 'Kerberos/SASL binds are not supported' },
  SERVERPOOL_ROUNDS: {
    ignored: (v) => v !== '' && !['1', '2'].includes(String(Number(v))),
    why: 'each server of LDAPURI is tried once per connection, in the given order',
  },
  SERVERPOOL_STRATEGY: {
    ignored: (v) => v !== '' && !['ROUND_ROBIN', 'FIRST'].includes(v.toUpperCase()),
    why: POOL_IN_ORDER,
  },
  group_name_attribute: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  group_base_dn: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  group_search_filter: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  group_attribute_mapping_key: { ignored: (v) => v !== '', why: GROUPS_UNSUPPORTED },
  recursive_group_search: {
    ignored: isTrue,
    why: GROUPS_UNSUPPORTED,
  },
};

/** One sentence for every setting that is accepted but has no effect with its value. */
export function ignoredSettings(settings: ResolverSettings): string[] {
  const out: string[] = [];
  for (const [key, rule] of Object.entries(IGNORED_SETTINGS)) {
    if (rule.ignored((settings[key] ?? '').trim())) {
      out.push(`LDAP setting ${key} is accepted but not used: ${rule.why}.`);
    }
  }
  return out;
}

// --- the kind --------------------------------------------------------------------------------------

const spec = (
  type: SettingSpec['type'],
  description: string,
  extra: Partial<SettingSpec> = {},
): SettingSpec => ({ type, description, ...extra });

export const ldapResolver: ResolverKind = {
  type: 'ldapresolver',
  settings: {
    LDAPURI: spec(
      'string',
      'LDAP server URI, or a comma-separated list of URIs (a server pool with fail-over)',
      {
        required: true,
      },
    ),
    LDAPBASE: spec('string', 'Base DN of the user search', { required: true }),
    AUTHTYPE: spec('string', 'Simple or Anonymous', { default: 'Simple' }),
    BINDDN: spec('string', 'DN of the service account that searches the directory (empty: anonymous)'),
    BINDPW: spec('password', 'Password of BINDDN'),
    TIMEOUT: spec('int', 'Seconds to connect and for every LDAP request', { default: '5' }),
    CACHE_TIMEOUT: spec('int', 'Seconds users found are cached (0: no cache)', { default: '120' }),
    SIZELIMIT: spec('int', 'Maximum number of users a search returns', { default: '500' }),
    LOGINNAMEATTRIBUTE: spec('string', 'Login attribute(s), comma-separated; the first gives the user name', {
      default: 'uid',
    }),
    LDAPSEARCHFILTER: spec(
      'string',
      'Filters AND-ed to every lookup, e.g. (uid=*)(objectClass=inetOrgPerson)',
    ),
    LDAPFILTER: spec('string', 'Legacy filter with %s for the login; used only without LDAPSEARCHFILTER'),
    USERINFO: spec('json', 'JSON map of user attributes to LDAP attributes', {
      default: JSON.stringify(DEFAULT_USERINFO),
    }),
    UIDTYPE: spec('string', 'DN, or the attribute holding the user id (entryUUID, uidNumber, objectGUID …)', {
      default: 'DN',
    }),
    MULTIVALUEATTRIBUTES: spec('json', 'JSON list of user attributes that keep all their values', {
      default: '["mobile"]',
    }),
    NOREFERRALS: spec('bool', 'Ignore referrals (they are never followed either way)', { default: 'False' }),
    NOSCHEMAS: spec('bool', 'Do not read the schema (never read)', { default: 'False' }),
    EDITABLE: spec('bool', 'Users may be created, changed and deleted', { default: 'False' }),
    SCOPE: spec('string', 'Search scope: subtree, one or base', { default: 'subtree' }),
    START_TLS: spec('bool', 'Use StartTLS on ldap:// connections', { default: 'False' }),
    TLS_VERIFY: spec('bool', 'Verify the server certificate', { default: 'True' }),
    TLS_VERSION: spec('string', '2 (TLS 1.3), 3/4/5 (exactly TLS 1.0/1.1/1.2), or 1.2/1.3 (at least)'),
    TLS_CA_FILE: spec('string', 'File with the CA certificate(s) (PEM) to verify the server with'),
    CACERTIFICATE: spec('text', 'CA certificate(s) (PEM) to verify the server with'),
    SERVERPOOL_SKIP: spec('int', 'Seconds an unreachable server of the pool is skipped', { default: '30' }),
    // privacyIDEA settings accepted so that its configurations import unchanged, but not used:
    // Kerberos (KEYTABFILE), the other pool strategies, and group lookups are not implemented.
    // Saving or testing a resolver that sets them warns (ignoredSettings).
    KEYTABFILE: spec('string', 'Accepted for compatibility; not used (SASL Kerberos is not supported)'),
    SERVERPOOL_ROUNDS: spec('int', 'Accepted for compatibility; not used (each server is tried once)'),
    SERVERPOOL_PERSISTENT: spec(
      'bool',
      'Accepted for compatibility; not used (skipped servers are always remembered, as with True)',
    ),
    SERVERPOOL_STRATEGY: spec('string', 'Accepted for compatibility; not used (servers are tried in order)'),
    group_name_attribute: spec('string', 'Accepted for compatibility; not used'),
    group_base_dn: spec('string', 'Accepted for compatibility; not used'),
    group_search_filter: spec('string', 'Accepted for compatibility; not used'),
    group_attribute_mapping_key: spec('string', 'Accepted for compatibility; not used'),
    recursive_group_search: spec('bool', 'Accepted for compatibility; not used'),
    OBJECT_CLASSES: spec('string', 'Object classes of new users (comma-separated or JSON list)', {
      default: DEFAULT_OBJECT_CLASSES.join(', '),
    }),
    DN_TEMPLATE: spec('string', 'DN of new users, e.g. uid=<username>,ou=people,<basedn>'),
  },
  validate(settings) {
    parseConfig(settings);
  },
  warnings: ignoredSettings,
  open: (settings, env) => new LdapStore(parseConfig(settings), env),
  async test(settings: ResolverSettings, env: StoreEnvironment): Promise<TestResult> {
    let store: LdapStore | undefined;
    try {
      store = new LdapStore(parseConfig(settings), env);
      const { count, withUid } = await store.count();
      return {
        value: true,
        description:
          withUid < count
            ? `Your LDAP config found ${count} user objects, but only ${withUid} with the specified uidtype`
            : `Your LDAP config seems to be OK, ${count} user objects found.`,
      };
    } catch (e) {
      return { value: false, description: e instanceof Error ? e.message : String(e) };
    } finally {
      await store?.close();
    }
  },
};
