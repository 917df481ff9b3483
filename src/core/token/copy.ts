// POST /token/copypin and /token/copyuser: one token gets another's PIN, or its owner and realms.
import { ParameterError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { inTransaction, refuseLocked } from './select.ts';
import { type LoadedToken, requireToken, setPin, setTokenOwner, setTokenRealms } from './store/index.ts';

async function fromTo(
  ctx: Context,
  from: string | undefined,
  to: string | undefined,
): Promise<[LoadedToken, LoadedToken]> {
  if (!from) throw ParameterError.missing('from');
  if (!to) throw ParameterError.missing('to');
  const a = await requireToken(ctx, from);
  const b = await requireToken(ctx, to);
  refuseLocked([b]);
  return [a, b];
}

/** POST /token/copypin: the target token gets the source token's PIN (its hash). */
export async function copyPin(
  ctx: Context,
  from: string | undefined,
  to: string | undefined,
): Promise<boolean> {
  const [a, b] = await fromTo(ctx, from, to);
  await setPin(ctx.store.db, b.row.id, a.row.pin_hash);
  return true;
}

/** POST /token/copyuser: the target token gets the source token's owner and realms. */
export async function copyUser(
  ctx: Context,
  from: string | undefined,
  to: string | undefined,
): Promise<boolean> {
  const [a, b] = await fromTo(ctx, from, to);
  await inTransaction(ctx, async (trx) => {
    await setTokenOwner(trx, b.row.id, a.owner);
    await setTokenRealms(trx, b.row.id, a.realms);
  });
  return true;
}
