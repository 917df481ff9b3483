// POST /token/resync (reference 4.5): two consecutive OTP values re-align a token's counter.
import { ParameterError, TokenAdminError } from '../../errors.ts';
import { findCounter, HotpType, hashlibOf, TotpType } from '../../tokens/index.ts';
import type { Context } from '../context.ts';
import { inTransaction, pick, refuseLocked, type Selection } from './select.ts';
import { setTokenInfo, tokenState } from './store.ts';

export const hotp = new HotpType();

export const totp = new TotpType();

/** POST /token/resync: two consecutive values re-align the counter (reference 4.5). */
export async function resyncToken(
  ctx: Context,
  sel: Selection,
  otp1: string | undefined,
  otp2: string | undefined,
): Promise<boolean> {
  if (!otp1) throw ParameterError.missing('otp1');
  if (!otp2) throw ParameterError.missing('otp2');
  const p = await pick(ctx, 'resync', sel);
  if (p.tokens.length !== 1) throw new ParameterError('resync needs exactly one token');
  const t = p.tokens[0]!;
  refuseLocked([t]);
  const state = tokenState(ctx, t);
  let update: { count: number; info?: Record<string, string> } | undefined;
  if (t.row.tokentype === 'hotp') {
    const c = hotp.findInSyncWindow(state, otp1);
    if (c >= 0 && findCounter(state.key(), otp2, c + 1, 1, state.otplen, hashlibOf(state)) === c + 1)
      update = { count: c + 2 };
  } else if (t.row.tokentype === 'totp') {
    const m = totp.resync(state, otp1, otp2, ctx.clock());
    if (m) update = { count: m.newCount, ...(m.info ? { info: m.info } : {}) };
  } else {
    throw new TokenAdminError(`Token type ${t.row.tokentype} can not be resynchronized`);
  }
  if (!update) return false;
  const u = update;
  await inTransaction(ctx, async (trx) => {
    await trx.updateTable('token').set({ count: u.count }).where('id', '=', t.row.id).execute();
    if (u.info) await setTokenInfo(ctx, trx, t.row.id, u.info);
  });
  return true;
}
