// The token's own counters: the OTP counter, moved by a compare-and-set that accepts an OTP value
// once however many requests carry it, and the fail counter (the /validate path after every OTP
// check: each function here is one statement, prepared where it runs on every check).
import { sql } from 'kysely';
import { prepared, runTransaction } from '../../../store/index.ts';
import type { Runtime } from '../../context.ts';
import { formatMinute } from '../tokeninfo-dates.ts';
import { setTokenInfo, setTokenInfoRacing } from './info.ts';
import { sealKey } from './secrets.ts';
import type { Executor, LoadedToken } from './types.ts';

/**
 * Moves the counter from the value the check saw to the new one, only if nobody moved it in
 * between: of concurrent requests carrying the same OTP exactly one succeeds. Resets the fail
 * counter on success unless `resetFailcount` is false (a value used up by a token that may not
 * authenticate).
 */
export async function consumeOtp(
  rt: Runtime,
  t: LoadedToken,
  newCount: number,
  newKey?: Buffer,
  resetFailcount = true,
): Promise<boolean> {
  const shape = `${resetFailcount ? 'reset' : ''} ${newKey ? 'key' : ''}`;
  const r = await countSwap.run(
    rt.store.db,
    {
      id: t.row.id,
      count: t.row.count,
      newCount,
      key: t.row.key_enc,
      newKey: newKey ? sealKey(rt, newKey) : '',
    },
    shape,
  );
  return Number(r.numAffectedRows) === 1;
}

/**
 * The compare-and-set of consumeOtp; the shape says whether the fail counter is reset and whether
 * the key is swapped too (a type that uses up part of its secret, tan, hands back the rest).
 */
const countSwap = prepared(
  (db, v: { id: number; count: number; newCount: number; key: string; newKey: string }, shape) => {
    const withKey = shape.includes('key');
    const q = db
      .updateTable('token')
      .set({
        count: v.newCount,
        ...(shape.includes('reset') ? { failcount: 0 } : {}),
        ...(withKey ? { key_enc: v.newKey } : {}),
      })
      .where('id', '=', v.id)
      .where('count', '=', v.count);
    return withKey ? q.where('key_enc', '=', v.key) : q;
  },
);

/**
 * Advances the counter past values handed out (the offline application) from the value the caller
 * saw, with tokeninfo stored sealed, in one transaction; false (nothing written) when another
 * request moved the counter in between.
 */
export async function advanceOtpCounter(
  rt: Runtime,
  t: LoadedToken,
  newCount: number,
  secretInfo: Record<string, string>,
): Promise<boolean> {
  return runTransaction(rt.store, async (trx) => {
    const v = { id: t.row.id, count: Number(t.row.count), newCount, key: '', newKey: '' };
    const r = await countSwap.run(trx, v, '');
    if (Number(r.numAffectedRows) !== 1) return false;
    await setTokenInfo(rt, trx, t.row.id, secretInfo, 'password');
    return true;
  });
}

/** Sets the OTP counter where a resynchronization found it (no compare-and-set: an admin action). */
export async function setOtpCounter(db: Executor, tokenId: number, count: number): Promise<void> {
  await db.updateTable('token').set({ count }).where('id', '=', tokenId).execute();
}

/** Increments the fail counter while it is below maxfail; reaching it records failcounter_exceeded. */
export async function incFailcount(rt: Runtime, t: LoadedToken, now: Date): Promise<void> {
  let after: { failcount: number; maxfail: number } | undefined;
  if (rt.store.dialect === 'mysql') {
    if (Number((await failIncrement.run(rt.store.db, { id: t.row.id })).numAffectedRows) !== 1) return;
    // Read back (MariaDB has no UPDATE … RETURNING): concurrent failures may each have seen a
    // lower count before their update.
    after = await rt.store.db
      .selectFrom('token')
      .select(['failcount', 'maxfail'])
      .where('id', '=', t.row.id)
      .executeTakeFirst();
  } else {
    // The count our own increment made: of concurrent failures, the one that reached maxfail.
    after = (await failIncrementReturning.run(rt.store.db, { id: t.row.id })).rows[0];
    if (!after) return;
  }
  if (after && after.failcount >= after.maxfail) {
    rt.metrics.lockout(t.type.type);
    await setTokenInfoRacing(rt, t.row.id, { failcounter_exceeded: formatMinute(now) });
  }
}

const failIncrementOf = (db: Executor, id: number) =>
  db
    .updateTable('token')
    .set((eb) => ({ failcount: eb('failcount', '+', 1) }))
    .where('id', '=', id)
    .whereRef('failcount', '<', 'maxfail');
const failIncrement = prepared((db, v: { id: number }) => failIncrementOf(db, v.id));
const failIncrementReturning = prepared((db, v: { id: number }) =>
  failIncrementOf(db, v.id).returning(['failcount', 'maxfail']),
);

/**
 * Sets the fail counter of a token back to 0; with `newPinHash`, the PIN is set in the same UPDATE
 * (assignment and unassignment change both at once).
 */
export async function resetFailcount(db: Executor, tokenId: number, newPinHash?: string): Promise<void> {
  await db
    .updateTable('token')
    .set({ failcount: 0, ...(newPinHash !== undefined ? { pin_hash: newPinHash } : {}) })
    .where('id', '=', tokenId)
    .execute();
}

/** Sets the fail counters of tokens back to 0 in one UPDATE (reset_all_user_tokens). */
export async function resetFailcounts(db: Executor, tokenIds: readonly number[]): Promise<void> {
  await db.updateTable('token').set({ failcount: 0 }).where('id', 'in', tokenIds).execute();
}

/** Sets the fail counter (the Token event handler's `set failcounter`). */
export async function setFailcount(db: Executor, tokenId: number, value: number): Promise<void> {
  await db.updateTable('token').set({ failcount: value }).where('id', '=', tokenId).execute();
}

/** Adds `delta` to the fail counter in one UPDATE, never below 0 (`change failcounter`). */
export async function changeFailcount(db: Executor, tokenId: number, delta: number): Promise<void> {
  await db
    .updateTable('token')
    .set({ failcount: sql<number>`case when failcount + ${delta} < 0 then 0 else failcount + ${delta} end` })
    .where('id', '=', tokenId)
    .execute();
}
