// Selection and authorization of the tokens an action touches (privacyIDEA's check_token_action):
// a serial, a list of serials or a user's tokens, of which the caller may act on some; locked
// tokens refuse every change.
import type { Transaction } from 'kysely';
import { ERR, ParameterError, PolicyError, ResourceNotFoundError, TokenAdminError } from '../../errors.ts';
import type { Database } from '../../store/index.ts';
import { runTransaction } from '../../store/index.ts';
import { grantedRealms, isAllowed } from '../access/index.ts';
import type { Context } from '../context.ts';
import { requireUser, userStore } from '../directory/index.ts';
import { ownerOf } from './owner.ts';
import { findToken, type LoadedToken, tokensOfOwner } from './store/index.ts';

const TOKEN_LOCKED = 'This action is not possible, since the token is locked';

/** ERR1007: revoked (locked) tokens refuse every modification (and /validate of revoked tokens). */
export function tokenLockedError(): TokenAdminError {
  return new TokenAdminError(TOKEN_LOCKED, ERR.TokenLocked);
}

/**
 * Whether the caller may perform `action` on a token: users on their own tokens (with the right
 * of their scope); administrators when a policy matches the owner (user, realm, resolver) or one
 * of the token's realms; a token in no realm matches only policies without realm restriction
 * (`assign` looks at neither owner nor realms: the new owner is checked by the caller).
 */
export async function mayActOn(ctx: Context, action: string, t: LoadedToken): Promise<boolean> {
  if (ctx.caller.role === 'user') {
    const me = await requireUser(ctx, ctx.caller.username, ctx.caller.realm);
    if (!t.owner || t.owner.resolver !== me.resolver || t.owner.userId !== me.userid) return false;
    return isAllowed(ctx, action);
  }
  if (t.owner && action !== 'assign') {
    const handle = await userStore(ctx, t.owner.resolver).catch(() => undefined);
    const login = handle ? (await handle.store.findById(t.owner.userId))?.username : undefined;
    if (
      login &&
      (await isAllowed(ctx, action, { user: login, realm: t.owner.realm, resolver: t.owner.resolver }))
    )
      return true;
  }
  for (const realm of t.realms) if (await isAllowed(ctx, action, { realm })) return true;
  if (action === 'assign') return isAllowed(ctx, action, { realm: '' });
  // A token in no realm is for administrators whose granting policies name no realm.
  if (t.realms.length === 0 && (await grantedRealms(ctx, action)) === undefined)
    return isAllowed(ctx, action);
  return false;
}

export interface Selection {
  serial?: string | undefined;
  /** JSON list or `[a,b]` text (bulk). */
  serials?: string | undefined;
  user?: string | undefined;
  realm?: string | undefined;
}

/** The serials a bulk request names, or undefined when it names a user instead. */
export function selectedSerials(sel: Selection): string[] | undefined {
  if (sel.serials) {
    const text = sel.serials.trim();
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch {
      list = text.replace(/^\[|\]$/g, '').split(',');
    }
    if (!Array.isArray(list)) throw new ParameterError("'serials' must be a list");
    return list
      .map((s) =>
        String(s)
          .trim()
          .replace(/^['"]|['"]$/g, ''),
      )
      .filter(Boolean);
  }
  if (sel.serial)
    return sel.serial
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return undefined;
}

export interface BulkResult {
  count_success: number;
  failed: string[];
  unauthorized: string[];
}

/**
 * Runs `act` on every token a request selects that the caller may manage (reference 3.5):
 * unknown serials go to `failed`, forbidden ones to `unauthorized`; a single forbidden serial, or
 * all forbidden, is PolicyError 303; no known serial at all is 601.
 */
export async function forEachToken(
  ctx: Context,
  action: string,
  sel: Selection,
  act: (t: LoadedToken) => Promise<number>,
): Promise<BulkResult & { single: boolean; changed: number }> {
  const serials = selectedSerials(sel);
  let tokens: LoadedToken[];
  const failed: string[] = [];
  if (serials) {
    tokens = [];
    for (const s of serials) {
      const t = await findToken(ctx, s);
      if (t) tokens.push(t);
      else failed.push(s);
    }
    if (tokens.length === 0)
      throw new ResourceNotFoundError(`No token found for serials: ${serials.join(', ')}`);
  } else {
    const owner = await ownerOf(ctx, sel);
    if (!owner) throw new ParameterError("Missing parameter: 'serial' or 'serials'");
    tokens = await tokensOfOwner(ctx, owner.resolver, owner.userid);
  }
  const unauthorized: string[] = [];
  let changed = 0;
  let success = 0;
  for (const t of tokens) {
    if (!(await mayActOn(ctx, action, t))) {
      unauthorized.push(t.row.serial);
      continue;
    }
    changed += await act(t);
    success++;
  }
  if (unauthorized.length > 0 && success === 0 && tokens.length > 0) {
    const who = ctx.caller.role === 'admin' ? 'Admin' : 'User';
    if (tokens.length === 1)
      throw new PolicyError(`${who} actions are defined, but the action ${action} is not allowed!`);
    throw new PolicyError(
      `${who} actions are defined, but the action ${action} is not allowed for any of the serials provided!`,
    );
  }
  return { count_success: success, failed, unauthorized, single: (serials?.length ?? 0) === 1, changed };
}

export type Trx = Transaction<Database>;

/** The answer of a bulk-capable action: a number for one serial, else the dict of reference 3.5. */
export type BulkValue = number | { count_success: number; failed: string[]; unauthorized: string[] };

export interface Picked {
  tokens: LoadedToken[];
  single: boolean;
  failed: string[];
  unauthorized: string[];
}

/** The tokens a request selects that the caller may act on (nothing is written yet). */
export async function pick(ctx: Context, action: string, sel: Selection): Promise<Picked> {
  const tokens: LoadedToken[] = [];
  const r = await forEachToken(ctx, action, sel, async (t) => {
    tokens.push(t);
    return 0;
  });
  return { tokens, single: r.single, failed: r.failed, unauthorized: r.unauthorized };
}

export function refuseLocked(tokens: readonly LoadedToken[]): void {
  if (tokens.some((t) => t.row.locked === 1)) throw tokenLockedError();
}

export async function inTransaction<T>(ctx: Context, work: (trx: Trx) => Promise<T>): Promise<T> {
  return runTransaction(ctx.store, work);
}

export function bulkValue(p: Picked, count: number): BulkValue {
  if (p.single) return count;
  return { count_success: p.tokens.length, failed: p.failed, unauthorized: p.unauthorized };
}
