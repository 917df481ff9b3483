// The lifecycle actions of the /token API (reference 3.5): assign, unassign, enable, disable,
// revoke, reset and delete. Each action first selects and authorizes its tokens (select.ts), then
// validates everything, and only then writes, in one transaction: bad input or a locked token
// changes nothing.
import { ERR, ParameterError, PolicyError, TokenAdminError } from '../../errors.ts';
import { allow } from '../access/index.ts';
import { certificateAuthoritiesOf } from '../caconnector/index.ts';
import type { Context } from '../context.ts';
import { userStore } from '../directory/index.ts';
import { checkTokenLimits } from './enrollment-limits.ts';
import { ownerOf, ownerRecord, ownerUser, targetOfOwner } from './owner.ts';
import { checkPinPolicy, nextPinChange } from './pin-policy.ts';
import {
  type BulkValue,
  bulkValue,
  inTransaction,
  mayActOn,
  pick,
  refuseLocked,
  type Selection,
} from './select.ts';
import { checkSerial } from './serial.ts';
import {
  deleteTokenInfo,
  deleteTokenRows,
  pinHash,
  requireToken,
  resetFailcount,
  revokeToken,
  setActive,
  setTokenInfo,
  setTokenOwner,
  tokenState,
} from './store/index.ts';

function userRepr(login: string, realm: string, resolver: string): string {
  return `User(login='${login}', realm='${realm}', resolver='${resolver}')`;
}

/** POST /token/assign: the token gets an owner (and the owner's realm); its fail counter is reset. */
export async function assignToken(
  ctx: Context,
  p: {
    serial?: string | undefined;
    user?: string | undefined;
    realm?: string | undefined;
    pin?: string | undefined;
  },
): Promise<boolean> {
  if (!p.serial) throw ParameterError.missing('serial');
  checkSerial(p.serial);
  if (ctx.caller.role === 'admin' && !p.user) throw ParameterError.missing('user');
  const owner = (await ownerOf(ctx, p))!;
  const t = await requireToken(ctx, p.serial);
  if (ctx.caller.role === 'admin') {
    await allow(ctx, 'assign', { user: `${owner.login}@${owner.realm}`, resolver: owner.resolver });
    if (!(await mayActOn(ctx, 'assign', t)))
      throw new PolicyError('Admin actions are defined, but the action assign is not allowed!');
  } else {
    await allow(ctx, 'assign');
  }
  if (t.owner) {
    if (ctx.caller.role === 'user')
      throw new TokenAdminError('Token already assigned to another user.', ERR.TokenAssigned);
    const handle = await userStore(ctx, t.owner.resolver).catch(() => undefined);
    const login = handle ? ((await handle.store.findById(t.owner.userId))?.username ?? '') : '';
    throw new TokenAdminError(
      `Token already assigned to user ${userRepr(login, t.owner.realm, t.owner.resolver)}`,
      ERR.TokenAssigned,
    );
  }
  refuseLocked([t]);
  await checkTokenLimits(ctx, owner, owner.realm, t.row.tokentype, undefined);
  let pinChange: string | undefined;
  if (p.pin) {
    await checkPinPolicy(ctx, p.pin, targetOfOwner(owner), t.row.tokentype);
    pinChange = await nextPinChange(ctx, { owner });
  }
  const pin = p.pin !== undefined ? await pinHash(p.pin) : undefined;
  await inTransaction(ctx, async (trx) => {
    await setTokenOwner(trx, t.row.id, ownerRecord(owner));
    await resetFailcount(trx, t.row.id, pin);
    if (pinChange !== undefined) await setTokenInfo(ctx, trx, t.row.id, { next_pin_change: pinChange });
  });
  return true;
}

/** POST /token/unassign: removes the owner, the PIN and the fail count. */
export async function unassignTokens(ctx: Context, sel: Selection): Promise<BulkValue> {
  const p = await pick(ctx, 'unassign', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) {
      await setTokenOwner(trx, t.row.id, undefined);
      await resetFailcount(trx, t.row.id, ''); // and no PIN
    }
  });
  return bulkValue(p, p.tokens.length);
}

/** Enables or disables; the number of tokens whose state changed. */
export async function enableTokens(ctx: Context, sel: Selection, enable: boolean): Promise<number> {
  const p = await pick(ctx, enable ? 'enable' : 'disable', sel);
  refuseLocked(p.tokens);
  const changing = p.tokens.filter((t) => (t.row.active === 1) !== enable);
  // max_active_token_per_user: enabling counts against the owner's active tokens, one at a time.
  if (enable)
    for (const t of changing) {
      const owner = await ownerUser(ctx, t);
      if (owner) await checkTokenLimits(ctx, owner, undefined, t.row.tokentype, t.row.serial);
    }
  await inTransaction(ctx, async (trx) => {
    for (const t of changing) await setActive(trx, t.row.id, enable);
  });
  return changing.length;
}

/** Revoked tokens are locked and inactive for good. */
export async function revokeTokens(ctx: Context, sel: Selection): Promise<number> {
  const p = await pick(ctx, 'revoke', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) await revokeToken(trx, t.row.id);
  });
  // What revoking means beyond the token (a certificate revoked by its CA, the CRL written again)
  // follows once the tokens are revoked: a CA that fails then does not un-revoke them.
  const ca = certificateAuthoritiesOf(ctx);
  for (const t of p.tokens) await t.type.revoked(tokenState(ctx, t), ca);
  return p.tokens.length;
}

export async function resetTokens(ctx: Context, sel: Selection): Promise<number> {
  const p = await pick(ctx, 'reset', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) {
      await resetFailcount(trx, t.row.id);
      await deleteTokenInfo(trx, t.row.id, 'failcounter_exceeded');
    }
  });
  return p.tokens.length;
}

export async function deleteTokens(ctx: Context, sel: Selection): Promise<BulkValue> {
  const p = await pick(ctx, 'delete', sel);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) await deleteTokenRows(trx, ctx.store, t);
  });
  return bulkValue(p, p.tokens.length);
}
