// What the caller may do: the questions front ends and services ask of the policy engine about the
// caller of a request (reference 5.3). Administrators are matched in the admin scope by their name
// and realm and by the target of the request; users in the user scope as themselves. The operator
// of the CLI acts by virtue of shell access and is never restricted.
import {
  type ActionValueOptions,
  type ConditionData,
  listMatches,
  type MatchRequest,
  type PolicySet,
  userAgentName,
} from '../../policy/index.ts';
import type { Store } from '../../store/index.ts';
import { countersGeneration, REUSE_MS } from '../change-counters.ts';
import type { Caller, Context } from '../context.ts';
import { findUser, realmsOfResolver, resolversOfUser, splitLogin } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';

/** The object of a request: the user, realm and resolver it names (privacyIDEA's check_base_action). */
export interface Target {
  user?: string | undefined;
  realm?: string | undefined;
  resolver?: string | undefined;
}

/** What the extended conditions may read about the request itself. */
export interface RequestFacts {
  /** Header names in lower case. */
  headers?: Readonly<Record<string, string>>;
  /** The request parameters. */
  data?: Readonly<Record<string, string>>;
  method?: string;
  path?: string;
}

/** Request parameters never visible to conditions. */
const SECRET_PARAMS = new Set(['pass', 'password']);

/** The target a request names by its parameters `user`, `realm` and `resolver`. */
export function targetOf(params: Readonly<Record<string, string>>): Target {
  return {
    user: params.user || undefined,
    realm: params.realm || undefined,
    resolver: params.resolver || undefined,
  };
}

/**
 * The compiled policies as one request sees them. A request asks several questions (the right of
 * its endpoint, then the values and realms its service reads: an audit page four), and each
 * compiledPolicies() call reads the change counters anew; the questions of one caller object —
 * the HTTP layer makes one per request — share the first read instead, as the validate path's
 * RequestPolicies does. A local write (the counters' generation moves) ends the sharing, and so
 * does age, for callers that live longer than a request (tests, tasks).
 */
const perCaller = new WeakMap<
  Caller,
  { store: Store; generation: number; at: number; set: Promise<PolicySet> }
>();

function policiesOf(ctx: Context): Promise<PolicySet> {
  const now = performance.now();
  const generation = countersGeneration(ctx.store);
  const hit = perCaller.get(ctx.caller);
  if (hit && hit.store === ctx.store && hit.generation === generation && now - hit.at < REUSE_MS)
    return hit.set;
  const set = compiledPolicies(ctx);
  const entry = { store: ctx.store, generation, at: now, set };
  perCaller.set(ctx.caller, entry);
  set.catch(() => {
    if (perCaller.get(ctx.caller) === entry) perCaller.delete(ctx.caller);
  });
  return set;
}

function isOperator(ctx: Context): boolean {
  return ctx.caller.authtype === 'local';
}

function requestConditionData(ctx: Context, facts: RequestFacts | undefined): ConditionData {
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(facts?.data ?? {})) if (!SECRET_PARAMS.has(k)) data[k] = v;
  const env: Record<string, string> = { REMOTE_ADDR: ctx.caller.client };
  if (facts?.method) env.REQUEST_METHOD = facts.method;
  if (facts?.path) env.PATH_INFO = facts.path;
  return { 'HTTP Request header': facts?.headers ?? {}, 'HTTP Environment': env, 'Request Data': data };
}

/**
 * The engine request for the caller and target. The user store is asked only when an active
 * policy of the scope needs the user's resolver(s) or user attributes.
 */
async function matchRequest(
  ctx: Context,
  set: PolicySet,
  action: string | undefined,
  target: Target,
  facts: RequestFacts | undefined,
): Promise<MatchRequest> {
  const { caller } = ctx;
  const scope = caller.role;
  const needs = set.needs(scope);
  const req: MatchRequest = {
    scope,
    ...(action !== undefined ? { action } : {}),
    client: caller.client,
    servicenode: ctx.node,
    userAgent: userAgentName(facts?.headers?.['user-agent']),
    time: ctx.clock(),
    conditionData: requestConditionData(ctx, facts),
  };
  let login: string | undefined;
  let realm: string | undefined;
  if (scope === 'admin') {
    req.adminuser = caller.username;
    req.adminrealm = caller.realm;
    if (target.resolver && !target.realm) {
      // A user of a resolver (user editing): the realms that contain the resolver are the target.
      req.resolver = target.resolver;
      if (target.user) req.user = target.user;
      const realms = await realmsOfResolver(ctx, target.resolver);
      if (realms.length) req.additionalRealms = realms;
      else req.realm = '';
      return req;
    }
    if (target.user) {
      ({ login, realm } = await splitLogin(ctx, target.user, target.realm));
    } else if (target.realm) {
      req.realm = target.realm.toLowerCase();
    }
    if (target.resolver) req.resolver = target.resolver;
  } else {
    login = caller.username;
    realm = caller.realm;
  }
  if (login === undefined || realm === undefined) return req;
  req.user = login;
  req.realm = realm;
  if (req.resolver === undefined && (needs.resolver || needs.sections.has('userinfo'))) {
    const found = await findUser(ctx, login, realm);
    req.resolver = found?.resolver ?? '';
    if (found) req.conditionData = { ...req.conditionData, userinfo: found.info };
  }
  if (needs.allResolvers) req.userResolvers = await resolversOfUser(ctx, login, realm);
  return req;
}

/** Whether the caller may perform a right of its scope (admin or user) on the target. */
export async function isAllowed(
  ctx: Context,
  action: string,
  target: Target = {},
  facts?: RequestFacts,
): Promise<boolean> {
  if (isOperator(ctx)) return true;
  const set = await policiesOf(ctx);
  if (!set.hasActive(ctx.caller.role)) return true;
  return set.allowed({ ...(await matchRequest(ctx, set, action, target, facts)), action });
}

/** Like isAllowed, but a refusal is PolicyError 303 with privacyIDEA's message. */
export async function allow(
  ctx: Context,
  action: string,
  target: Target = {},
  facts?: RequestFacts,
): Promise<void> {
  if (isOperator(ctx)) return;
  const set = await policiesOf(ctx);
  if (!set.hasActive(ctx.caller.role)) return;
  set.checkAllowed({ ...(await matchRequest(ctx, set, action, target, facts)), action });
}

/** Whether the caller's scope holds no active policy, so that the caller may do everything. */
export async function unrestricted(ctx: Context): Promise<boolean> {
  if (isOperator(ctx)) return true;
  return !(await policiesOf(ctx)).hasActive(ctx.caller.role);
}

/**
 * The values of a valued action of the caller's scope for the target (value → policy names). The
 * CLI operator, and callers whose scope has no active policy, get an empty map: see unrestricted.
 */
export async function actionValues(
  ctx: Context,
  action: string,
  target: Target = {},
  opts: ActionValueOptions = {},
): Promise<Map<string, string[]>> {
  if (isOperator(ctx)) return new Map();
  const set = await policiesOf(ctx);
  if (!set.hasActive(ctx.caller.role)) return new Map();
  return set.actionValues({ ...(await matchRequest(ctx, set, action, target, undefined)), action }, opts);
}

/** The single value of an action of the caller's scope (conflicts → 303), or undefined. */
export async function actionValue(
  ctx: Context,
  action: string,
  target: Target = {},
): Promise<string | undefined> {
  const values = await actionValues(ctx, action, target, { unique: true });
  return values.keys().next().value;
}

/**
 * The realms in which an administrator holds a right (or, without action, any right): undefined
 * when not restricted to realms (the CLI operator, no active admin policy, or a granting policy
 * without realm restriction); otherwise the existing realms the granting policies' realm entries
 * match (wildcards, patterns and exclusions as in matching), possibly none. Where a listing has no
 * realm to check, it is narrowed to these.
 */
export async function grantedRealms(ctx: Context, action: string | undefined): Promise<string[] | undefined> {
  if (isOperator(ctx) || ctx.caller.role !== 'admin') return undefined;
  const set = await policiesOf(ctx);
  if (!set.hasActive('admin')) return undefined;
  const granting = set.match({
    ...(await matchRequest(ctx, set, action, {}, undefined)),
    ...(action !== undefined ? { action } : {}),
  });
  if (granting.some((p) => p.realm.empty)) return undefined;
  const realms = (await ctx.store.db.selectFrom('realm').select('name').orderBy('name').execute()).map(
    (r) => r.name,
  );
  return realms.filter((r) => granting.some((p) => listMatches(p.realm, r)));
}
