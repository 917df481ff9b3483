// POST /token/resync (reference 4.5): two consecutive OTP values re-align a token's counter; the
// type finds them (TokenType.resync), this file stores what it found.
import { ParameterError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { inTransaction, pick, refuseLocked, type Selection } from './select.ts';
import { setOtpCounter, setTokenInfo, tokenState } from './store/index.ts';

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
  const match = t.type.resync(tokenState(ctx, t), otp1, otp2, ctx.clock());
  if (!match) return false;
  await inTransaction(ctx, async (trx) => {
    await setOtpCounter(trx, t.row.id, match.newCount);
    if (match.info) await setTokenInfo(ctx, trx, t.row.id, match.info);
  });
  return true;
}
