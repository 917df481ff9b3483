// The settings of an LDAP resolver read into an LdapConfig: every value is checked once, when the
// resolver is saved or opened, and the connections and the store work with typed values only.

import type tls from 'node:tls';
import { ParameterError } from '../../errors.ts';
import type { AllowedFiles } from '../../files/index.ts';
import { textList } from '../../text-list.ts';
import { settingBool, settingInt, settingMap, settingText } from '../settings.ts';
import type { ResolverSettings } from '../user-store.ts';
import { configuredSearchFilter } from './filter.ts';
import { DEFAULT_OBJECT_CLASSES, DEFAULT_USERINFO } from './settings.ts';
import { tlsOptions } from './tls-options.ts';

const ATTRIBUTE_NAME = /^(?:[A-Za-z][A-Za-z0-9-]*|\d+(?:\.\d+)+)$/;

export type Scope = 'base' | 'one' | 'sub';

export interface LdapServer {
  url: string;
  host: string;
  port: number;
  secure: boolean;
}

export interface Credentials {
  dn: string;
  password: string;
}

/**
 * What a connection to an LDAP server needs (the server pool, the bind, TLS, time limits): shared by
 * the user store and the LDAP machine resolver (src/machine-resolvers), which read it alike.
 */
export interface LdapConnectionConfig {
  servers: LdapServer[];
  base: string;
  /** undefined: anonymous */
  bind: Credentials | undefined;
  timeoutMs: number;
  startTls: boolean;
  tls: tls.ConnectionOptions;
  skipMs: number;
}

export interface LdapConfig extends LdapConnectionConfig {
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
  scope: Scope;
  objectClasses: string[];
  dnTemplate: string;
}

function parseServers(text: string): LdapServer[] {
  const servers = textList(text).map(parseServer);
  if (servers.length === 0) throw ParameterError.missing('LDAPURI');
  return servers;
}

function parseServer(raw: string): LdapServer {
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
  return { url: `${scheme}://${shownHost}:${port}`, host, port, secure };
}

/** A checked LDAP attribute name (or OID) of a setting. */
export function attributeName(key: string, value: string): string {
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

function parseScope(value: string): Scope {
  const v = value.trim().toLowerCase();
  if (v === '' || v === 'sub' || v === 'subtree') return 'sub';
  if (v === 'one' || v === 'onelevel' || v === 'level') return 'one';
  if (v === 'base') return 'base';
  throw new ParameterError(`SCOPE '${value}' must be subtree, one or base`);
}

function parseBind(s: ResolverSettings): Credentials | undefined {
  const authType = settingText(s, 'AUTHTYPE').trim() || 'Simple';
  const bindDn = settingText(s, 'BINDDN').trim();
  const bindPw = settingText(s, 'BINDPW');
  if (authType.toLowerCase() === 'simple') {
    if (bindDn === '') return undefined;
    // An empty password turns a simple bind into an unauthenticated one, which always "works".
    if (bindPw === '')
      throw new ParameterError('BINDPW is empty: a simple bind needs the password of BINDDN');
    return { dn: bindDn, password: bindPw };
  }
  if (authType.toLowerCase() !== 'anonymous') {
    throw new ParameterError(`AUTHTYPE '${authType}' is not supported (only Simple and Anonymous)`);
  }
  return undefined;
}

function parseLoginAttributes(s: ResolverSettings): string[] {
  const names = settingText(s, 'LOGINNAMEATTRIBUTE', 'uid')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map((a) => attributeName('LOGINNAMEATTRIBUTE', a));
  return names.length > 0 ? names : ['uid'];
}

function parseUserinfo(s: ResolverSettings, username: string): Record<string, string> {
  const userinfo = { ...settingMap(s, 'USERINFO', DEFAULT_USERINFO) };
  for (const [k, v] of Object.entries(userinfo)) userinfo[k] = attributeName(`USERINFO '${k}'`, v);
  userinfo.username = username;
  return userinfo;
}

function parseUidType(s: ResolverSettings): string {
  const raw = settingText(s, 'UIDTYPE').trim();
  return raw === '' || raw.toLowerCase() === 'dn' ? 'DN' : attributeName('UIDTYPE', raw);
}

/**
 * The connection settings: LDAPURI (a server pool), LDAPBASE, AUTHTYPE with BINDDN and BINDPW,
 * TIMEOUT, START_TLS, the TLS settings and SERVERPOOL_SKIP.
 */
export function parseConnectionConfig(s: ResolverSettings, files: AllowedFiles): LdapConnectionConfig {
  const servers = parseServers(settingText(s, 'LDAPURI'));
  const base = settingText(s, 'LDAPBASE').trim();
  if (base === '') throw ParameterError.missing('LDAPBASE');
  return {
    servers,
    base,
    bind: parseBind(s),
    timeoutMs: settingInt(s, 'TIMEOUT', 5, 1, 3600) * 1000,
    // Ignored for ldaps:// servers (connection.ts), as privacyIDEA does.
    startTls: settingBool(s, 'START_TLS', false),
    tls: tlsOptions(s, files),
    skipMs: settingInt(s, 'SERVERPOOL_SKIP', 30, 0) * 1000,
  };
}

export function parseConfig(s: ResolverSettings, files: AllowedFiles): LdapConfig {
  const connection = parseConnectionConfig(s, files);
  const loginAttributes = parseLoginAttributes(s);
  const userinfo = parseUserinfo(s, loginAttributes[0]!);
  const uidType = parseUidType(s);
  return {
    ...connection,
    cacheMs: settingInt(s, 'CACHE_TIMEOUT', 120, 0) * 1000,
    sizeLimit: settingInt(s, 'SIZELIMIT', 500, 1),
    loginAttributes,
    searchFilter: configuredSearchFilter(
      settingText(s, 'LDAPSEARCHFILTER'),
      settingText(s, 'LDAPFILTER'),
      loginAttributes[0]!,
    ),
    userinfo,
    uidType,
    multiValue: new Set(stringList(s, 'MULTIVALUEATTRIBUTES', ['mobile'], false)),
    editable: settingBool(s, 'EDITABLE', false),
    scope: parseScope(settingText(s, 'SCOPE')),
    objectClasses: stringList(s, 'OBJECT_CLASSES', [...DEFAULT_OBJECT_CLASSES], true),
    dnTemplate: settingText(s, 'DN_TEMPLATE').trim(),
  };
}
