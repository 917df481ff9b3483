// The enrollment limits (reference 3.3): tokens per realm, per user, per type and active ones, and
// the description some types require.
import { PolicyError } from '../../errors.ts';
import type { Context } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { type EnrollmentSubject, enrollmentLimit, enrollmentValues } from './enrollment-policy.ts';
import { findToken } from './store/index.ts';

async function countTokens(
  ctx: Context,
  owner: ResolvedUser,
  filter: { type?: string | undefined; active?: boolean },
): Promise<{ n: number; serials: string[] }> {
  let q = ctx.store.db
    .selectFrom('token')
    .innerJoin('tokenowner', 'tokenowner.token_id', 'token.id')
    .select('token.serial')
    .where('tokenowner.resolver', '=', owner.resolver)
    .where('tokenowner.user_id', '=', owner.userid);
  if (filter.type) q = q.where('token.tokentype', '=', filter.type);
  if (filter.active) q = q.where('token.active', '=', 1);
  const serials = (await q.execute()).map((r) => r.serial);
  return { n: serials.length, serials };
}

/**
 * max_token_per_realm, max_token_per_user, <type>_max_token_per_user, max_active_token_per_user and
 * <type>_max_active_token_per_user: the largest matching value is the limit; a serial the user
 * already has (among the counted tokens) may be re-enrolled, assigned or enabled.
 */
export async function checkTokenLimits(
  ctx: Context,
  owner: ResolvedUser | undefined,
  realm: string | undefined,
  type: string,
  serial: string | undefined,
): Promise<void> {
  const tokenRealm = (owner?.realm ?? realm)?.toLowerCase();
  if (tokenRealm) {
    const limit = await enrollmentLimit(ctx, { owner, realm: tokenRealm }, 'max_token_per_realm');
    if (limit !== undefined) {
      const rows = await ctx.store.db
        .selectFrom('tokenrealm')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .innerJoin('token', 'token.id', 'tokenrealm.token_id')
        .select('token.serial')
        .where('realm.name', '=', tokenRealm)
        .execute();
      const serials = rows.map((r) => r.serial);
      if (!(serial && serials.includes(serial)) && serials.length >= limit)
        throw new PolicyError('The number of tokens in this realm is limited!');
    }
  }
  if (!owner) return;
  const subject: EnrollmentSubject = { owner };
  const checks: [string, { type?: string; active?: boolean }, string][] = [
    ['max_token_per_user', {}, 'The number of tokens for this user is limited!'],
    [
      `${type}_max_token_per_user`,
      { type },
      `The number of tokens of type ${type} for this user is limited!`,
    ],
    ['max_active_token_per_user', { active: true }, 'The number of active tokens for this user is limited!'],
    [
      `${type}_max_active_token_per_user`,
      { type, active: true },
      `The number of active tokens of type ${type} for this user is limited!`,
    ],
  ];
  for (const [action, filter, message] of checks) {
    const limit = await enrollmentLimit(ctx, subject, action);
    if (limit === undefined) continue;
    const { n, serials } = await countTokens(ctx, owner, filter);
    if (serial && serials.includes(serial)) continue;
    if (n >= limit) throw new PolicyError(message);
  }
}

/** require_description: the listed types need a description (unless the token already has one). */
export async function checkDescription(
  ctx: Context,
  subject: EnrollmentSubject,
  type: string,
  description: string | undefined,
  serial: string | undefined,
): Promise<void> {
  const types = await enrollmentValues(ctx, subject, 'require_description');
  if (!types.has(type) || description) return;
  const existing = serial ? await findToken(ctx, serial) : undefined;
  if (existing?.row.description) return;
  throw new PolicyError(`Description required for token type ${type}.`);
}
