// The bookkeeping of a check (reference 4.2.2): the count_auth counters a failure and a success
// add to (unless no_auth_counter), and what a success does to its token (a single-use token
// deletes itself, tokeninfo the OTP check learned is stored).
import { runTransaction } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import {
  bumpInfoCounterBelow,
  bumpInfoCounters,
  deleteTokenRows,
  type LoadedToken,
  setTokenInfoRacing,
} from '../token/index.ts';
import { COUNTER_EXCEEDED, successCounters } from './usable.ts';

export async function countFailure(rt: Runtime, t: LoadedToken, noCounter: boolean): Promise<void> {
  if (!noCounter) await bumpInfoCounters(rt, t, ['count_auth']);
}

/**
 * Counts a success in count_auth and count_auth_success (one UPDATE for both when neither has a
 * limit). A counter with a limit is counted only below it, by the database, so that of a burst of
 * requests that all loaded the token below its limit only as many pass as the limit leaves; the
 * others get COUNTER_EXCEEDED, as one more request after them would from unusable().
 */
async function countSuccess(rt: Runtime, t: LoadedToken, noCounter: boolean): Promise<string | undefined> {
  if (noCounter) return undefined;
  const counters = successCounters(t);
  if (counters.every((c) => c.max <= 0)) {
    await bumpInfoCounters(
      rt,
      t,
      counters.map((c) => c.key),
    );
    return undefined;
  }
  // In order: a success refused at count_auth_max counts nowhere, one refused at
  // count_auth_success_max counts as an attempt only.
  for (const { key, max } of counters) {
    if (max <= 0) await bumpInfoCounters(rt, t, [key]);
    else if (!(await bumpInfoCounterBelow(rt, t, key, max))) return COUNTER_EXCEEDED;
  }
  return undefined;
}

/**
 * The bookkeeping of a token that authenticated (the counter was already consumed); the reason
 * when a burst of concurrent requests took the last counts under its limit (the success is void).
 */
export async function succeeded(
  rt: Runtime,
  t: LoadedToken,
  info: Record<string, string> | undefined,
  noCounter: boolean,
): Promise<string | undefined> {
  if (t.type.singleUse) {
    // One transaction: the token goes with everything that names it, or not at all.
    await runTransaction(rt.store, (trx) => deleteTokenRows(trx, rt.store, t));
    return undefined;
  }
  if (info && Object.keys(info).length > 0) await setTokenInfoRacing(rt, t.row.id, info);
  return countSuccess(rt, t, noCounter);
}
