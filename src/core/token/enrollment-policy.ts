// The opt-in enrollment scope (reference 5.3, 5.5): the values of enrollment actions for the owner
// of a token (or, for a token without owner, for the realm it goes into). Matched by the owner's
// login, realm and resolver, the client and node, and userinfo conditions.
import type { MatchRequest } from '../../policy/index.ts';
import type { Context } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';

/** Whom an enrollment policy is matched for: the token owner, else the realm the token goes into. */
export interface EnrollmentSubject {
  owner?: ResolvedUser | undefined;
  realm?: string | undefined;
}

function request(ctx: Context, s: EnrollmentSubject, action: string): MatchRequest & { action: string } {
  const o = s.owner;
  return {
    scope: 'enrollment',
    action,
    user: o?.login ?? '',
    realm: o?.realm ?? s.realm?.toLowerCase() ?? '',
    resolver: o?.resolver ?? '',
    client: ctx.caller.client,
    servicenode: ctx.node,
    time: ctx.clock(),
    conditionData: o ? { userinfo: o.info } : {},
  };
}

/** Every value of an enrollment action (value → policy names), from all matching policies. */
export async function enrollmentValues(
  ctx: Context,
  s: EnrollmentSubject,
  action: string,
  allowWhiteSpace = false,
): Promise<Map<string, string[]>> {
  const set = await compiledPolicies(ctx);
  if (!set.hasActive('enrollment')) return new Map();
  return set.actionValues(request(ctx, s, action), { allowWhiteSpace });
}

/** The single value of an enrollment action (conflicts at the best priority → 303), or undefined. */
export async function enrollmentValue(
  ctx: Context,
  s: EnrollmentSubject,
  action: string,
  allowWhiteSpace = false,
): Promise<string | undefined> {
  const set = await compiledPolicies(ctx);
  if (!set.hasActive('enrollment')) return undefined;
  return set.actionValue(request(ctx, s, action), { allowWhiteSpace });
}

/** Whether a boolean enrollment action is set for the subject. */
export async function enrollmentIsSet(ctx: Context, s: EnrollmentSubject, action: string): Promise<boolean> {
  const set = await compiledPolicies(ctx);
  return set.hasActive('enrollment') && set.isSet(request(ctx, s, action));
}

/** The largest integer value of a limit action (privacyIDEA takes the maximum), or undefined. */
export async function enrollmentLimit(
  ctx: Context,
  s: EnrollmentSubject,
  action: string,
): Promise<number | undefined> {
  const values = [...(await enrollmentValues(ctx, s, action)).keys()]
    .map((v) => Number.parseInt(v, 10))
    .filter((n) => Number.isInteger(n));
  return values.length ? Math.max(...values) : undefined;
}
