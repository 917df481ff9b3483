// The authentication and authorization policies of /validate (reference 4.1, 4.2.1, 4.2.3): the
// lookups for the user of a request, and the rules that need more than a lookup (realm rewrites,
// mangle, the audit-counted limits, last_auth, the API key, the authorization post-checks).

import { sql } from 'kysely';
import { parseDuration } from '../../config/index.ts';
import { verifiedClaims } from '../../crypto/index.ts';
import { PolicyError } from '../../errors.ts';
import type { MatchRequest, PolicySet } from '../../policy/index.ts';
import type { Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';
import { type LoadedToken, setTokenInfoRacing } from '../token/index.ts';

export type Detail = Record<string, unknown>;

export interface Who {
  login: string;
  realm: string;
  user?: ResolvedUser;
}

/** Policies of the opt-in scopes authentication and authorization, for the user of the request. */
export class RequestPolicies {
  readonly #set: PolicySet;
  readonly #base: Omit<MatchRequest, 'scope'>;

  constructor(set: PolicySet, rt: Runtime, who: Who, client: string) {
    this.#set = set;
    this.#base = {
      user: who.login,
      realm: who.realm,
      resolver: who.user?.resolver ?? '',
      client,
      servicenode: rt.node,
      time: rt.clock(),
      conditionData: who.user ? { userinfo: who.user.info } : {},
    };
  }

  static async of(rt: Runtime, who: Who, client: string): Promise<RequestPolicies> {
    return new RequestPolicies(await compiledPolicies(rt), rt, who, client);
  }

  #req(scope: string, action: string): MatchRequest & { action: string } {
    return { ...this.#base, scope, action };
  }

  isSet(scope: string, action: string): boolean {
    return this.#set.hasActive(scope) && this.#set.isSet(this.#req(scope, action));
  }

  /** The names of the matching policies that set the action. */
  names(scope: string, action: string): string[] {
    if (!this.#set.hasActive(scope)) return [];
    return this.#set
      .match(this.#req(scope, action))
      .filter((p) => Object.hasOwn(p.action, action))
      .map((p) => p.name);
  }

  value(scope: string, action: string, allowWhiteSpace = false): string | undefined {
    if (!this.#set.hasActive(scope)) return undefined;
    return this.#set.actionValue(this.#req(scope, action), { allowWhiteSpace });
  }

  values(scope: string, action: string, allowWhiteSpace = false): string[] {
    if (!this.#set.hasActive(scope)) return [];
    return [...this.#set.actionValues(this.#req(scope, action), { allowWhiteSpace }).keys()];
  }
}

// ---------------------------------------------------------------------------------------------
// Rewrites before the user is looked up (reference 4.1).

const CONFLICTING_REALMS =
  'I do not know, to which realm I should set the new realm. Conflicting policies exist.';

/** set_realm (authentication), then setrealm (authorization): the realm the user is looked up in. */
export function rewrittenRealm(pol: RequestPolicies, realm: string): string {
  let out = realm;
  for (const [scope, action] of [
    ['authentication', 'set_realm'],
    ['authorization', 'setrealm'],
  ] as const) {
    const values = pol.values(scope, action);
    if (values.length > 1) throw new PolicyError(CONFLICTING_REALMS);
    if (values.length === 1) out = values[0]!.toLowerCase();
  }
  return out;
}

export interface Mangled {
  login: string;
  realm: string;
  pass: string;
}

/** Python's re.sub replacement (`\1`, `\g<name>`) as a JavaScript one (`$1`, `$<name>`). */
function jsReplacement(python: string): string {
  return python
    .replace(/\$/g, '$$$$')
    .replace(/\\g<(\w+)>/g, (_m, g: string) => (/^\d+$/.test(g) ? `$${g}` : `$<${g}>`))
    .replace(/\\(\d{1,2})/g, '$$$1');
}

/**
 * mangle (authentication): `user/<regex>/<replacement>/`, `realm/…/`, `pass/…/`, each a global
 * regex substitution of that parameter, as privacyIDEA's re.sub. A malformed value is ignored.
 */
export function mangle(pol: RequestPolicies, input: Mangled): Mangled {
  const out = { ...input };
  for (const value of pol.values('authentication', 'mangle')) {
    const parts = value.split('/');
    if (parts.length < 3) continue;
    const [key, search, replace] = parts as [string, string, string];
    const field = key === 'user' ? 'login' : key === 'realm' || key === 'pass' ? key : undefined;
    if (!field) continue;
    let re: RegExp;
    try {
      re = new RegExp(search.replace(/\(\?P</g, '(?<').replace(/\(\?P=(\w+)\)/g, '\\k<$1>'), 'g');
    } catch {
      continue;
    }
    out[field] = out[field].replace(re, jsReplacement(replace));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// API key (reference 2.3, 4.1).

/** api_key_required (authorization): the request must carry a JWT of role `validate`. */
export async function requireApiKey(
  rt: Runtime,
  pol: RequestPolicies,
  authorization: string | undefined,
): Promise<void> {
  if (!pol.isSet('authorization', 'api_key_required')) return;
  let role: unknown;
  try {
    if (!authorization) throw new Error('missing');
    ({ role } = await verifiedClaims(rt.keys.jwtSecret, authorization, rt.clock()));
  } catch {
    throw new PolicyError('No valid API key was passed.');
  }
  if (role !== 'validate') throw new PolicyError('A correct JWT was passed, but it was no API key.');
}

// ---------------------------------------------------------------------------------------------
// auth_max_fail / auth_max_success (reference 4.2.1 #4): counted in the audit log.

/** Python's str(timedelta): `0:05:00`, `1 day, 2:00:00`, `3 days, 0:00:00`. */
export function formatTimedelta(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const rest = seconds % 86_400;
  const h = Math.floor(rest / 3600);
  const m = Math.floor((rest % 3600) / 60);
  const s = rest % 60;
  const clock = `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return days > 0 ? `${days} day${days === 1 ? '' : 's'}, ${clock}` : clock;
}

function parseLimit(value: string): { count: number; seconds: number } {
  const [count, period] = value.split('/');
  const n = Number.parseInt(count ?? '', 10);
  if (!Number.isInteger(n) || period === undefined) {
    throw new PolicyError(`Invalid value '${value}': expected <count>/<period>, e.g. 3/5m.`);
  }
  return { count: n, seconds: parseDuration(period) };
}

/**
 * Authentications of the user in the period, from the audit rows of /validate/check and /auth by
 * their answer: ACCEPT a success, REJECT a failure, a CHALLENGE (not yet an authentication) neither.
 * The answer, not the success column, so that rows written before success meant the verdict (a
 * REJECT of /validate/check had success 1, a CHALLENGE of /auth too) count alike.
 */
async function countAuthentications(
  rt: Runtime,
  user: ResolvedUser,
  seconds: number,
  success: boolean,
): Promise<number> {
  const since = new Date(rt.clock().getTime() - seconds * 1000).toISOString();
  const row = await rt.store.db
    .selectFrom('audit')
    .select(sql<string | number>`count(*)`.as('n'))
    .where('user', '=', user.login)
    .where('realm', '=', user.realm)
    .where('date', '>=', since)
    .where((eb) => eb.or([eb('action', 'like', '%/validate/check'), eb('action', 'like', '%/auth')]))
    .where('authentication', '=', success ? 'ACCEPT' : 'REJECT')
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** The refusal message when the user reached auth_max_fail or auth_max_success, else undefined. */
export async function authLimitReached(
  rt: Runtime,
  pol: RequestPolicies,
  user: ResolvedUser,
): Promise<string | undefined> {
  const fail = pol.value('authorization', 'auth_max_fail');
  if (fail !== undefined) {
    const { count, seconds } = parseLimit(fail);
    if ((await countAuthentications(rt, user, seconds, false)) >= count)
      return `Only ${count} failed authentications per ${formatTimedelta(seconds)} allowed.`;
  }
  const success = pol.value('authorization', 'auth_max_success');
  if (success !== undefined) {
    const { count, seconds } = parseLimit(success);
    if ((await countAuthentications(rt, user, seconds, true)) >= count)
      return `Only ${count} successful authentications per ${formatTimedelta(seconds)} allowed.`;
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// last_auth (reference 4.2.1 #5).

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `%Y-%m-%d %H:%M:%S.%f%z` in the server's local time zone, as privacyIDEA writes last_auth. */
export function formatLastAuth(d: Date): string {
  const off = -d.getTimezoneOffset();
  const a = Math.abs(off);
  const date = `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
  return `${date} ${time}.${pad(d.getMilliseconds(), 3)}000${off < 0 ? '-' : '+'}${pad(Math.floor(a / 60))}${pad(a % 60)}`;
}

/** A stored last_auth as milliseconds; local time when it carries no offset. */
export function parseLastAuth(text: string): number | undefined {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,6}))?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(
    text.trim(),
  );
  if (!m) return undefined;
  const frac = (m[3] ?? '0').padEnd(3, '0').slice(0, 3);
  const zone = m[4] === undefined ? '' : m[4] === 'Z' ? 'Z' : `${m[4].slice(0, 3)}:${m[4].slice(-2)}`;
  const t = Date.parse(`${m[1]}T${m[2]}.${frac}${zone}`);
  return Number.isNaN(t) ? undefined : t;
}

/**
 * After a successful check by one token: refuses when its last_auth is older than the policy
 * allows (a token without last_auth passes), else stores now as its last_auth.
 */
export async function applyLastAuth(
  rt: Runtime,
  pol: RequestPolicies,
  token: LoadedToken,
): Promise<string | undefined> {
  const limit = pol.value('authorization', 'last_auth');
  const previous = token.info.last_auth;
  if (limit !== undefined && previous !== undefined) {
    const at = parseLastAuth(previous);
    if (at !== undefined && at + parseDuration(limit) * 1000 < rt.clock().getTime())
      return `The last successful authentication was ${previous}. It is too long ago.`;
  }
  const now = formatLastAuth(rt.clock());
  await setTokenInfoRacing(rt, token.row.id, { last_auth: now });
  token.info.last_auth = now;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Authorization of the token that authenticated (reference 4.2.3 #2).

/** A policy regex as Python's re.match (anchored at the start); an invalid one matches nothing. */
export function matchRegex(s: string): RegExp {
  try {
    return new RegExp(`^(?:${s})`);
  } catch {
    return /(?!)/;
  }
}

/** A policy regex as Python's re.search; an invalid one matches nothing. */
function searchRegex(s: string): RegExp {
  try {
    return new RegExp(s);
  } catch {
    return /(?!)/;
  }
}

/** authorization serial, tokentype and tokeninfo for the token that authenticated. */
export function authorizeToken(pol: RequestPolicies, t: LoadedToken): void {
  const types = pol.values('authorization', 'tokentype').map((v) => v.toLowerCase());
  if (types.length > 0 && !types.includes(t.type.type))
    throw new PolicyError('Tokentype not allowed for authentication!');
  const serials = pol.values('authorization', 'serial');
  if (serials.length > 0 && !serials.some((s) => matchRegex(s).test(t.row.serial)))
    throw new PolicyError('Serial is not allowed for authentication!');
  for (const rule of pol.values('authorization', 'tokeninfo', true)) {
    const parts = rule.split('/');
    if (parts.length !== 3) continue; // privacyIDEA logs and skips a malformed rule
    const [key, regex] = parts as [string, string];
    if (!searchRegex(regex).test(t.info[key] ?? ''))
      throw new PolicyError(`Tokeninfo field ${key} with contents does not match regular expression.`);
  }
}
