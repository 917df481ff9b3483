// The matching engine (reference 5.2–5.4). A list of policy records is compiled once (patterns,
// networks, time ranges, condition regexes) into a PolicySet whose queries are cheap; the caller
// recompiles when the policy change counter moves.

import { BlockList, isIP } from 'node:net';
import { ConfigAdminError, ParameterError, PolicyError } from '../errors.ts';
import { textList } from '../text-list.ts';
import { type ActionDict, parseActionText } from './action-value.ts';

export type ConditionTuple =
  | [section: string, key: string, comparator: string, value: string, active: boolean]
  | [section: string, key: string, comparator: string, value: string, active: boolean, handleMissing: string];

/** A stored policy as the service layer holds it (the spec's Policy resource plus reference 5.1). */
export interface PolicyRecord {
  name: string;
  scope: string;
  action: ActionDict | string;
  active: boolean;
  realm?: readonly string[] | string;
  resolver?: readonly string[] | string;
  user?: readonly string[] | string;
  adminrealm?: readonly string[] | string;
  adminuser?: readonly string[] | string;
  client?: readonly string[] | string;
  /** privacyIDEA calls it pinode; the spec servicenode. Either is read. */
  servicenode?: readonly string[] | string;
  pinode?: readonly string[] | string;
  user_agents?: readonly string[] | string;
  time?: string;
  priority?: number;
  check_all_resolvers?: boolean;
  user_case_insensitive?: boolean;
  conditions?: readonly ConditionTuple[];
  description?: string | null;
}

/** Data the conditions read, by section name (reference 5.4). */
export type ConditionData = Partial<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * One request to the engine. For each attribute: undefined = do not filter by it; "" = filter,
 * the request has no such value (only policies without a restriction, or with `*`, match).
 */
export interface MatchRequest {
  scope: string;
  action?: string;
  name?: string;
  user?: string;
  realm?: string;
  /** Further realms any of which may match (the token's realms for admin token actions). */
  additionalRealms?: readonly string[];
  resolver?: string;
  /** All resolvers of the user in the realm, in priority order (for check_all_resolvers). */
  userResolvers?: readonly string[];
  adminuser?: string;
  adminrealm?: string;
  client?: string;
  servicenode?: string;
  /** The user-agent name (see userAgentName). */
  userAgent?: string;
  /** Defaults to now; compared in the server's local time. */
  time?: Date;
  /** Inactive policies are never returned unless this is false (list all). */
  activeOnly?: boolean;
  conditionData?: ConditionData;
  /** Only conditions of these sections are evaluated (e.g. ['userinfo'] at web UI login); default all. */
  conditionSections?: readonly string[];
}

// ---------------------------------------------------------------------------------------------
// Value lists: `*`, exact, `!x`/`-x` exclusion, otherwise a regex anchored at both ends.

interface CompiledEntry {
  negated: boolean;
  exact: string;
  wildcard: boolean;
  re: RegExp | null;
}

export interface ValueList {
  readonly empty: boolean;
  readonly entries: readonly CompiledEntry[];
  readonly caseInsensitive: boolean;
}

export function compileValueList(
  values: readonly string[] | string | undefined,
  caseInsensitive = false,
): ValueList {
  const entries = textList(values).map((raw): CompiledEntry => {
    const negated = raw.startsWith('!') || raw.startsWith('-');
    const exact = negated ? raw.slice(1) : raw;
    let re: RegExp | null = null;
    try {
      re = new RegExp(`^(?:${exact})$`, caseInsensitive ? 'i' : '');
    } catch {
      re = null; // an invalid pattern never matches (the write path rejects it)
    }
    return { negated, exact: caseInsensitive ? exact.toLowerCase() : exact, wildcard: exact === '*', re };
  });
  return { empty: entries.length === 0, entries, caseInsensitive };
}

/** privacyIDEA's `_search_value`: [found, excluded]. */
function search(list: ValueList, value: string): { found: boolean; excluded: boolean } {
  const v = list.caseInsensitive ? value.toLowerCase() : value;
  let found = false;
  let excluded = false;
  for (const e of list.entries) {
    if (e.negated) {
      if (e.exact === v) excluded = true;
    } else if (e.exact === v || e.wildcard || e.re?.test(value)) {
      found = true;
    }
  }
  return { found, excluded };
}

/** An empty list matches anything; otherwise the value must be found and not excluded. */
export function listMatches(list: ValueList, value: string): boolean {
  if (list.empty) return true;
  const r = search(list, value);
  return r.found && !r.excluded;
}

// ---------------------------------------------------------------------------------------------
// Client networks.

/** `::ffff:10.0.0.1` → `10.0.0.1`, so v4 policies match clients that arrive on a dual-stack socket. */
export function normaliseIp(ip: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip.trim());
  return m ? (m[1] as string) : ip.trim();
}

interface ClientList {
  empty: boolean;
  allow: BlockList;
  deny: BlockList;
}

function addNet(list: BlockList, def: string): boolean {
  const [addr = '', prefix, ...rest] = def.split('/');
  const family = isIP(addr);
  if (!family || rest.length) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (prefix === undefined) {
    list.addAddress(addr, type);
    return true;
  }
  if (!/^\d+$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128)) return false;
  list.addSubnet(addr, Number(prefix), type);
  return true;
}

/** Compiles a client list; throws ConfigAdminError 302 (as privacyIDEA) on an entry that is no IP or network. */
export function compileClientList(values: readonly string[] | string | undefined): ClientList {
  const allow = new BlockList();
  const deny = new BlockList();
  const entries = textList(values);
  for (const raw of entries) {
    const negated = raw.startsWith('!') || raw.startsWith('-');
    const def = negated ? raw.slice(1).trim() : raw;
    if (!addNet(negated ? deny : allow, def)) {
      throw new ConfigAdminError(`Invalid client definition! '${raw}' is not an IP address or network.`);
    }
  }
  return { empty: entries.length === 0, allow, deny };
}

export function clientMatches(list: ClientList, client: string): boolean {
  if (list.empty) return true;
  const ip = normaliseIp(client);
  const family = isIP(ip);
  if (!family) return false;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return list.allow.check(ip, type) && !list.deny.check(ip, type);
}

// ---------------------------------------------------------------------------------------------
// Time ranges: `Mon-Fri: 09:00-17:30, Sat: 9-12` (days inclusive, server local time).

const DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface TimeRange {
  days: Set<number>;
  from: number; // seconds since midnight
  to: number;
}

function parseClock(s: string, whole: string): number {
  const m = /^(\d{1,2})(?::(\d{2}))?$/.exec(s.trim());
  const h = Number(m?.[1]);
  const min = Number(m?.[2] ?? 0);
  if (!m || h > 24 || min > 59 || (h === 24 && min > 0)) {
    throw new ParameterError(`Invalid time '${whole}': '${s.trim()}' is not a time of day (h or hh:mm)`);
  }
  return h * 3600 + min * 60;
}

function parseDay(s: string, whole: string): number {
  const word = s.trim().toLowerCase();
  const i = /^[a-z]{3,}$/.test(word) ? DAYS.indexOf(word.slice(0, 3)) : -1;
  if (i < 0) {
    throw new ParameterError(`Invalid time '${whole}': '${s.trim()}' is not a day (Mon … Sun)`);
  }
  return i;
}

/** Parses a time attribute; "" → no restriction (null). Bad syntax → ParameterError 905. */
export function parseTimeRanges(time: string | undefined | null): TimeRange[] | null {
  if (!time?.trim()) return null;
  return time.split(',').map((part) => {
    const colon = part.indexOf(':');
    if (colon < 0)
      throw new ParameterError(`Invalid time '${time}': expected '<Dow>[-<Dow>]: <hh:mm>-<hh:mm>'`);
    const dayPart = part.slice(0, colon);
    const timePart = part.slice(colon + 1);
    const [d1 = '', d2, ...dmore] = dayPart.split('-');
    const [t1 = '', t2, ...tmore] = timePart.split('-');
    if (dmore.length || tmore.length || t2 === undefined) {
      throw new ParameterError(`Invalid time '${time}': expected '<Dow>[-<Dow>]: <hh:mm>-<hh:mm>'`);
    }
    const start = parseDay(d1, time);
    const end = d2 === undefined ? start : parseDay(d2, time);
    const days = new Set<number>();
    for (let d = start; ; d = (d + 1) % 7) {
      days.add(d);
      if (d === end) break;
    }
    return { days, from: parseClock(t1, time), to: parseClock(t2, time) };
  });
}

function inTimeRanges(ranges: readonly TimeRange[], when: Date): boolean {
  const secs = when.getHours() * 3600 + when.getMinutes() * 60 + when.getSeconds();
  return ranges.some((r) => r.days.has(when.getDay()) && r.from <= secs && secs <= r.to);
}

// ---------------------------------------------------------------------------------------------
// Extended conditions.

export const HANDLE_MISSING = ['raise_error', 'condition_is_true', 'condition_is_false'] as const;

interface CompiledCondition {
  section: string;
  key: string;
  comparator: string;
  value: string;
  handleMissing: string;
  test: (actual: unknown, now: Date) => boolean;
}

class CompareError extends Error {}

function asNumber(v: unknown): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (Number.isNaN(n)) throw new CompareError(`'${String(v)}' is not a number`);
  return n;
}

function asDate(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  const s = String(v)
    .trim()
    .replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const t = Date.parse(s);
  if (Number.isNaN(t)) throw new CompareError(`'${String(v)}' is not a date`);
  return t;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };

/** `5d`, `2h`, `30m`, `10s`, `1w`, `1y` → milliseconds. */
export function parseDuration(s: string): number | null {
  const m = /^\s*(\d+)\s*([smhdwy])\s*$/i.exec(s);
  return m ? Number(m[1]) * (UNIT_SECONDS[(m[2] as string).toLowerCase()] as number) * 1000 : null;
}

function asString(v: unknown): string {
  if (v === true) return 'True';
  if (v === false) return 'False';
  return String(v);
}

function equalsValue(actual: unknown, expected: string): boolean {
  if (typeof actual === 'boolean') return actual === ['true', '1'].includes(expected.trim().toLowerCase());
  if (typeof actual === 'number') return actual === Number(expected);
  return asString(actual) === expected;
}

const NEGATABLE = new Set(['equals', 'contains', 'string_contains', 'matches', 'in', 'date_within_last']);

type Comparison = (actual: unknown, now: Date) => boolean;

/** A comparator as a condition names it (`!matches`), and the refusal of a value it cannot use. */
interface Use {
  name: string;
  /** Throws ParameterError `<what> in <where of the condition><after>`. */
  refuse(what: string, after?: string): never;
}

/** Each comparator compiles a condition's value once into the test of an actual value. */
const COMPARATORS: Readonly<Record<string, (value: string, use: Use) => Comparison>> = {
  equals: (value) => (a) => equalsValue(a, value),
  contains: (value) => (a) => {
    if (!Array.isArray(a)) throw new CompareError('the value is not a list');
    return a.map(asString).includes(value);
  },
  string_contains: (value) => (a) => asString(a).includes(value),
  matches: (value, use) => {
    let re: RegExp;
    try {
      re = new RegExp(`^(?:${value})$`);
    } catch {
      use.refuse(`Invalid regular expression '${value}'`);
    }
    return (a) => re.test(asString(a));
  },
  in: (value) => {
    const set = new Set(value.split(',').map((s) => s.trim()));
    return (a) => set.has(asString(a));
  },
  '<': (value, use) => {
    const right =
      numberOf(value) ?? use.refuse(`Comparator '${use.name}' needs a number`, `, not '${value}'`);
    return (a) => asNumber(a) < right;
  },
  '>': (value, use) => {
    const right =
      numberOf(value) ?? use.refuse(`Comparator '${use.name}' needs a number`, `, not '${value}'`);
    return (a) => asNumber(a) > right;
  },
  date_before: (value, use) => {
    const right = dateOf(value) ?? use.refuse(`Comparator '${use.name}' needs a date`);
    return (a) => asDate(a) < right;
  },
  date_after: (value, use) => {
    const right = dateOf(value) ?? use.refuse(`Comparator '${use.name}' needs a date`);
    return (a) => asDate(a) > right;
  },
  date_within_last: (value, use) => {
    const ms = parseDuration(value) ?? use.refuse(`Comparator '${use.name}' needs a duration like 5d`);
    return (a, now) => {
      const t = asDate(a);
      return t <= now.getTime() && t >= now.getTime() - ms;
    };
  },
};

/** A number given as text, or undefined (blank is no number). */
function numberOf(value: string): number | undefined {
  const n = Number(value);
  return value.trim() !== '' && !Number.isNaN(n) ? n : undefined;
}

/** A date given as text (`+hhmm` offsets too) in ms, or undefined. */
function dateOf(value: string): number | undefined {
  const ms = Date.parse(value.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isNaN(ms) ? undefined : ms;
}

function buildComparator(comparator: string, value: string, where: string): Comparison {
  const negated = comparator.startsWith('!');
  const base = negated ? comparator.slice(1) : comparator;
  const compile = Object.hasOwn(COMPARATORS, base) ? COMPARATORS[base] : undefined;
  if (!compile || (negated && !NEGATABLE.has(base)))
    throw new ParameterError(`Unknown comparator '${comparator}' in ${where}`);
  const test = compile(value, {
    name: comparator,
    refuse: (what, after = '') => {
      throw new ParameterError(`${what} in ${where}${after}`);
    },
  });
  return negated ? (a, now) => !test(a, now) : test;
}

/** Compiles the active conditions of a policy; a bad comparator, regex or number → ParameterError 905. */
export function compileConditions(
  policyName: string,
  conditions: readonly ConditionTuple[] | undefined,
): CompiledCondition[] {
  const out: CompiledCondition[] = [];
  for (const c of conditions ?? []) {
    const [section, key, comparator, value, active] = c;
    const handleMissing = c[5] ?? 'raise_error';
    if (!(HANDLE_MISSING as readonly string[]).includes(handleMissing)) {
      throw new ParameterError(`Unknown handle_missing_data '${handleMissing}' in policy '${policyName}'`);
    }
    const test = buildComparator(comparator, String(value), `a condition of policy '${policyName}'`);
    if (active) out.push({ section, key, comparator, value: String(value), handleMissing, test });
  }
  return out;
}

function conditionsHold(p: CompiledPolicy, req: MatchRequest, now: Date): boolean {
  for (const c of p.conditions) {
    if (req.conditionSections && !req.conditionSections.includes(c.section)) continue;
    const data = req.conditionData?.[c.section];
    // HTTP header names are case-insensitive; Node hands them over in lower case.
    const key =
      c.section === 'HTTP Request header' && data !== undefined && !Object.hasOwn(data, c.key)
        ? c.key.toLowerCase()
        : c.key;
    const present =
      data !== undefined && Object.hasOwn(data, key) && data[key] !== undefined && data[key] !== null;
    if (!present) {
      if (c.handleMissing === 'condition_is_true') continue;
      if (c.handleMissing === 'condition_is_false') return false;
      throw new PolicyError(
        `Policy '${p.name}' has a condition on ${c.section} '${c.key}', but the request has no such value.`,
      );
    }
    let ok: boolean;
    try {
      ok = c.test(data[key], now);
    } catch (e) {
      if (!(e instanceof CompareError)) throw e;
      throw new PolicyError(
        `Invalid comparison in the ${c.section} conditions of policy '${p.name}': ${c.section} '${c.key}' ${c.comparator} '${c.value}': ${e.message}`,
      );
    }
    if (!ok) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------
// Compiled policies and the set.

export interface CompiledPolicy {
  readonly name: string;
  readonly scope: string;
  readonly active: boolean;
  readonly priority: number;
  readonly action: ActionDict;
  readonly record: PolicyRecord;
  readonly actions: ValueList;
  readonly realm: ValueList;
  readonly resolver: ValueList;
  readonly user: ValueList;
  readonly adminrealm: ValueList;
  readonly adminuser: ValueList;
  readonly servicenode: readonly string[];
  readonly userAgents: readonly string[];
  readonly client: ClientList;
  readonly time: TimeRange[] | null;
  readonly checkAllResolvers: boolean;
  readonly conditions: CompiledCondition[];
}

export function compilePolicy(r: PolicyRecord): CompiledPolicy {
  const action = typeof r.action === 'string' ? parseActionText(r.action) : { ...r.action };
  const priority = r.priority ?? 1;
  if (!Number.isInteger(priority) || priority < 1) throw new ParameterError('Priority must be at least 1');
  return {
    name: r.name,
    scope: r.scope,
    active: r.active,
    priority,
    action,
    record: r,
    actions: compileValueList(Object.keys(action)),
    realm: compileValueList(r.realm),
    resolver: compileValueList(r.resolver),
    user: compileValueList(r.user, r.user_case_insensitive ?? false),
    adminrealm: compileValueList(r.adminrealm),
    adminuser: compileValueList(r.adminuser),
    servicenode: textList(r.servicenode ?? r.pinode),
    userAgents: textList(r.user_agents).map((s) => s.toLowerCase()),
    client: compileClientList(r.client),
    time: parseTimeRanges(r.time),
    checkAllResolvers: r.check_all_resolvers ?? false,
    conditions: compileConditions(r.name, r.conditions),
  };
}

/** The user-agent *name* privacyIDEA matches `user_agents` against: `privacyIDEA-LDAP-Proxy/1.0` → `privacyIDEA-LDAP-Proxy`. */
export function userAgentName(header: string | undefined): string {
  return (header ?? '').trim().split(/[/\s]/)[0] ?? '';
}

/** Scopes in which the absence of any active policy means "everything allowed" (reference 5.3). */
export const RIGHTS_SCOPES: readonly string[] = ['admin', 'user'];

export interface ActionValueOptions {
  /** Several distinct values at the best priority → PolicyError 303. */
  unique?: boolean;
  /** Keep a value whole instead of splitting it at whitespace. */
  allowWhiteSpace?: boolean;
}

function matchesResolver(p: CompiledPolicy, req: MatchRequest): boolean {
  if (p.resolver.empty) return true;
  if (p.checkAllResolvers && req.userResolvers?.length) {
    return req.userResolvers.some((r) => listMatches(p.resolver, r));
  }
  return listMatches(p.resolver, req.resolver ?? '');
}

function matchesPolicy(p: CompiledPolicy, req: MatchRequest, now: Date): boolean {
  if (req.activeOnly !== false && !p.active) return false;
  if (p.scope !== req.scope) return false;
  if (req.name !== undefined && p.name !== req.name) return false;
  if (req.action !== undefined && !p.actions.empty && !listMatches(p.actions, req.action)) return false;
  if (req.realm !== undefined || req.additionalRealms?.length) {
    const realms = [...(req.realm !== undefined ? [req.realm] : []), ...(req.additionalRealms ?? [])];
    if (!p.realm.empty && !realms.some((r) => listMatches(p.realm, r))) return false;
  }
  if (req.scope === 'admin') {
    if (req.adminrealm !== undefined && !listMatches(p.adminrealm, req.adminrealm)) return false;
    if (req.adminuser !== undefined && !listMatches(p.adminuser, req.adminuser)) return false;
  }
  if (req.user !== undefined && !listMatches(p.user, req.user)) return false;
  if ((req.resolver !== undefined || req.userResolvers !== undefined) && !matchesResolver(p, req))
    return false;
  if (req.servicenode !== undefined && p.servicenode.length && !p.servicenode.includes(req.servicenode))
    return false;
  if (
    req.userAgent !== undefined &&
    p.userAgents.length &&
    !p.userAgents.includes(req.userAgent.toLowerCase())
  ) {
    return false;
  }
  if (req.client !== undefined && !clientMatches(p.client, req.client)) return false;
  if (p.time && !inTimeRanges(p.time, now)) return false;
  return true;
}

/** What the active policies of a scope look at beyond the caller's names (so that lookups are done only when needed). */
export interface ScopeNeeds {
  /** Some policy restricts the resolver: the user's resolver must be known. */
  resolver: boolean;
  /** Some policy with a resolver restriction checks all resolvers of the user. */
  allResolvers: boolean;
  /** The condition sections some policy reads. */
  sections: ReadonlySet<string>;
}

const NO_NEEDS: ScopeNeeds = { resolver: false, allResolvers: false, sections: new Set() };

export class PolicySet {
  readonly policies: readonly CompiledPolicy[];
  readonly #needs = new Map<string, ScopeNeeds>();

  constructor(records: readonly PolicyRecord[]) {
    // Stable sort: equal priorities keep their stored order.
    this.policies = records.map(compilePolicy).sort((a, b) => a.priority - b.priority);
    for (const p of this.policies) {
      if (!p.active) continue;
      const n = this.#needs.get(p.scope) ?? { resolver: false, allResolvers: false, sections: new Set() };
      const sections = n.sections as Set<string>;
      for (const c of p.conditions) sections.add(c.section);
      this.#needs.set(p.scope, {
        resolver: n.resolver || !p.resolver.empty,
        allResolvers: n.allResolvers || (!p.resolver.empty && p.checkAllResolvers),
        sections,
      });
    }
  }

  /** Whether any active policy exists in the scope. */
  hasActive(scope: string): boolean {
    return this.#needs.has(scope);
  }

  /** What matching in the scope needs to know about the user and the request. */
  needs(scope: string): ScopeNeeds {
    return this.#needs.get(scope) ?? NO_NEEDS;
  }

  /** The matching policies, best (lowest) priority first. Conditions may throw PolicyError. */
  match(req: MatchRequest): CompiledPolicy[] {
    const now = req.time ?? new Date();
    const out: CompiledPolicy[] = [];
    for (const p of this.policies) {
      if (matchesPolicy(p, req, now) && conditionsHold(p, req, now)) out.push(p);
    }
    return out;
  }

  /**
   * The boolean permission check of the admin and user scopes: allowed when a policy for the
   * action matches, or when the scope holds no active policy at all. Other scopes are opt-in.
   */
  allowed(req: MatchRequest & { action: string }): boolean {
    if (RIGHTS_SCOPES.includes(req.scope) && !this.hasActive(req.scope)) return true;
    return this.match(req).length > 0;
  }

  /** allowed(), or PolicyError 303 with privacyIDEA's message. */
  checkAllowed(req: MatchRequest & { action: string }): void {
    if (this.allowed(req)) return;
    const who = req.scope === 'admin' ? 'Admin' : req.scope === 'user' ? 'User' : req.scope;
    throw new PolicyError(`${who} actions are defined, but the action ${req.action} is not allowed!`);
  }

  /** Whether a boolean action is set by a matching policy (opt-in scopes). */
  isSet(req: MatchRequest & { action: string }): boolean {
    return this.match(req).some((p) => Object.hasOwn(p.action, req.action));
  }

  /**
   * The values of an action (privacyIDEA's `action_values`): value → names of the policies giving
   * it, from every matching policy that sets the action (only the best priority when unique). A value in single
   * quotes is literal; otherwise it is split at whitespace unless allowWhiteSpace.
   */
  actionValues(req: MatchRequest & { action: string }, opts: ActionValueOptions = {}): Map<string, string[]> {
    const values = new Map<string, string[]>();
    let best: number | undefined;
    for (const p of this.match(req)) {
      const v = Object.hasOwn(p.action, req.action) ? p.action[req.action] : undefined;
      if (typeof v !== 'string') continue;
      // Only a unique value is limited to the best priority (privacyIDEA's action_values).
      if (opts.unique && best !== undefined && p.priority !== best) break;
      best = p.priority;
      const parts =
        v.length >= 2 && v.startsWith("'") && v.endsWith("'")
          ? [v.slice(1, -1)]
          : opts.allowWhiteSpace
            ? [v]
            : v.split(/\s+/).filter(Boolean);
      for (const part of parts) {
        const names = values.get(part) ?? [];
        if (!names.includes(p.name)) names.push(p.name);
        values.set(part, names);
      }
    }
    if (opts.unique && values.size > 1) {
      const names = [...new Set([...values.values()].flat())].sort();
      throw new PolicyError(
        `There are policies with conflicting actions: [${names.map((n) => `'${n}'`).join(', ')}]`,
      );
    }
    return values;
  }

  /** The single value of an action (unique at the best priority), or undefined when no policy sets it. */
  actionValue(
    req: MatchRequest & { action: string },
    opts: Omit<ActionValueOptions, 'unique'> = {},
  ): string | undefined {
    const values = this.actionValues(req, { ...opts, unique: true });
    return values.keys().next().value;
  }
}

export function compilePolicies(records: readonly PolicyRecord[]): PolicySet {
  return new PolicySet(records);
}
