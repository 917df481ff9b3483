// The owner a token action is about: the user a request names (users always themselves), the
// owner of a stored token as a user, and the policy target of an owner.
import { UserError } from '../../errors.ts';
import type { Target } from '../access/index.ts';
import type { Context } from '../context.ts';
import {
  findUser,
  type ResolvedUser,
  realmExists,
  requireUser,
  splitLogin,
  userStore,
} from '../directory/index.ts';
import type { LoadedToken, TokenOwner } from './store/index.ts';

/**
 * The owner a request names: users are always themselves; administrators name `user` (+ `realm`,
 * `user@realm`); an unknown user is an error.
 */
export async function ownerOf(
  ctx: Context,
  params: { user?: string | undefined; realm?: string | undefined },
): Promise<ResolvedUser | undefined> {
  if (ctx.caller.role === 'user') return requireUser(ctx, ctx.caller.username, ctx.caller.realm);
  if (!params.user) return undefined;
  const { login, realm } = await splitLogin(ctx, params.user, params.realm);
  if (!realm) throw new UserError('No realm given and no default realm is set.');
  if (!(await realmExists(ctx, realm))) throw new UserError(`The realm '${realm}' does not exist.`);
  return requireUser(ctx, login, realm);
}

export function ownerRecord(u: ResolvedUser): TokenOwner {
  return { resolver: u.resolver, userId: u.userid, realm: u.realm };
}

/** The target of the admin/user-scope checks for an owner (users: themselves). */
export function targetOfOwner(owner: ResolvedUser | undefined, realm?: string): Target {
  return owner ? { user: `${owner.login}@${owner.realm}`, resolver: owner.resolver } : { realm };
}

/** The owner of a token as a user (undefined when it has none or the user is gone). */
export async function ownerUser(ctx: Context, t: LoadedToken): Promise<ResolvedUser | undefined> {
  if (!t.owner) return undefined;
  const handle = await userStore(ctx, t.owner.resolver).catch(() => undefined);
  const login = handle ? (await handle.store.findById(t.owner.userId))?.username : undefined;
  return login ? findUser(ctx, login, t.owner.realm) : undefined;
}
