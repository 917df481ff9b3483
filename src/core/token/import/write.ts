// Writing the tokens of a token file: one token in a transaction of its own, or a batch of them
// in one transaction with multi-row INSERTs (the token store writes the rows).
import { runTransaction } from '../../../store/index.ts';
import type { Context } from '../../context.ts';
import { checkLength, LIMITS } from '../../limits.ts';
import {
  addTokenInfo,
  insertToken,
  insertTokenBatch,
  type NewToken,
  setTokenOwner,
  setTokenRealms,
} from '../store/index.ts';

/** One token in a transaction of its own: the token row, its tokeninfo, realms and owner or nothing. */
export async function writeToken(ctx: Context, n: NewToken, realms: readonly string[]): Promise<void> {
  await runTransaction(ctx.store, async (trx) => {
    const id = await insertToken(trx, n.row);
    await addTokenInfo(ctx, trx, id, n.info);
    await setTokenRealms(trx, id, realms);
    if (n.owner) await setTokenOwner(trx, id, n.owner);
  });
}

/**
 * A batch of tokens in one transaction, with the rows writeToken writes, in multi-row INSERTs.
 * Anything unexpected throws, and the caller writes the batch token by token, which reports the
 * token at fault as writeToken does.
 */
export async function writeBatch(
  ctx: Context,
  batch: readonly NewToken[],
  realms: readonly string[],
): Promise<void> {
  for (const n of batch) {
    for (const [key, value] of Object.entries(n.info)) {
      checkLength('tokeninfo key', key, LIMITS.name);
      checkLength(`tokeninfo ${key.slice(0, 40)}`, value, LIMITS.text);
    }
  }
  await runTransaction(ctx.store, (trx) => insertTokenBatch(trx, ctx.store.dialect, batch, realms));
}
