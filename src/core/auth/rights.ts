// The rights a login carries (reference 2.4, 2.5): the boolean actions of the caller's scope that
// its matching policies grant, plus `name` and `name=value` for valued actions they set. They go
// into the /auth answer and the JWT for the web UI to show what the caller may use; every endpoint
// still checks its own right on each request.

import { type CompiledPolicy, listMatches } from '../../policy/index.ts';
import type { Caller, Context, Runtime } from '../context.ts';
import { findUser, type ResolvedUser } from '../directory/index.ts';
import { compiledPolicies, policyDefinitions } from '../policy/index.ts';

/** The policies of the caller's scope that apply to the caller (no action filter), or undefined if none is active. */
async function callerPolicies(
  rt: Runtime,
  caller: Caller,
  user?: ResolvedUser,
): Promise<CompiledPolicy[] | undefined> {
  const set = await compiledPolicies(rt);
  if (!set.hasActive(caller.role)) return undefined;
  const common = { client: caller.client, servicenode: rt.node, time: rt.clock() };
  if (caller.role === 'admin') {
    return set.match({
      scope: 'admin',
      adminuser: caller.username,
      adminrealm: caller.realm,
      ...common,
      conditionSections: [],
    });
  }
  return set.match({
    scope: 'user',
    user: caller.username,
    realm: caller.realm,
    ...(user ? { resolver: user.resolver } : {}),
    ...common,
    conditionData: user ? { userinfo: user.info } : {},
    conditionSections: ['userinfo'],
  });
}

/** The rights of a caller; `user` is the realm user behind a user login (for resolver and userinfo matching). */
export async function rightsOf(rt: Runtime, caller: Caller, user?: ResolvedUser): Promise<string[]> {
  const definitions = policyDefinitions();
  const candidates = definitions.rightCandidates(caller.role);
  const policies = await callerPolicies(rt, caller, user);
  if (!policies) return candidates;
  const granted = new Set<string>();
  const defs = definitions.actionsOf(caller.role);
  for (const name of candidates) {
    const def = defs[name];
    if (def?.type === 'bool') {
      if (policies.some((p) => listMatches(p.actions, name) && p.action[name] !== 'false')) granted.add(name);
      continue;
    }
    // A valued action counts where a policy sets it: `name` and `name=value`.
    for (const p of policies) {
      const v = Object.hasOwn(p.action, name) ? p.action[name] : undefined;
      if (typeof v === 'string' && v !== '' && listMatches(p.actions, name)) {
        granted.add(name);
        granted.add(`${name}=${v}`);
      }
    }
  }
  return [...granted];
}

/** GET /auth/rights: the token types the caller may enroll, type → description (from the `enroll<TYPE>` rights). */
export async function enrollableTypes(ctx: Context): Promise<Record<string, string>> {
  const user =
    ctx.caller.role === 'user' ? await findUser(ctx, ctx.caller.username, ctx.caller.realm) : undefined;
  const rights = new Set(await rightsOf(ctx, ctx.caller, user));
  const out: Record<string, string> = {};
  for (const [name, def] of Object.entries(policyDefinitions().actionsOf(ctx.caller.role))) {
    const m = /^enroll([A-Z0-9]+)$/.exec(name);
    if (m && def.type === 'bool' && rights.has(name)) out[(m[1] as string).toLowerCase()] = def.description;
  }
  return out;
}
