// Whether a token can be used now (privacyIDEA's check_all and check_reset_failcount, reference
// 4.2.2 steps 1 and 2): its authentication counters, its state, its fail counter and its validity
// period; and a fail counter whose lock has timed out cleared first.
import type { Runtime } from '../context.ts';
import {
  counterValue,
  deleteTokenInfo,
  type LoadedToken,
  outsideValidityPeriod,
  resetFailcount,
  storedMinuteTime,
} from '../token/index.ts';

/** Whether `now` is outside the token's validity_period_start … validity_period_end. */
function outsideValidity(t: LoadedToken, now: Date): boolean {
  return outsideValidityPeriod(t.info, now);
}

export const COUNTER_EXCEEDED = 'Authentication counter exceeded';

/** A counting tokeninfo value, or a limit, as the checks read it (leading integer, else 0). */
const infoNumber = (t: LoadedToken, key: string) => counterValue(t.info[key]);

/** The counters a success adds to, with their limits (count_auth_max …; 0 = no limit). */
export function successCounters(t: LoadedToken): { key: string; max: number }[] {
  return [
    { key: 'count_auth', max: infoNumber(t, 'count_auth_max') },
    { key: 'count_auth_success', max: infoNumber(t, 'count_auth_success_max') },
  ];
}

/** Why a token cannot be used now, or undefined (check_all: the first failing check wins). */
export function unusable(t: LoadedToken, now: Date): string | undefined {
  if (successCounters(t).some(({ key, max }) => max > 0 && infoNumber(t, key) >= max))
    return COUNTER_EXCEEDED;
  if (Number(t.row.active) !== 1) return 'Token is disabled';
  if (t.row.failcount >= t.row.maxfail) return 'Failcounter exceeded';
  if (outsideValidity(t, now)) return 'Outside validity period';
  if (t.row.rollout_state === 'clientwait' || t.row.rollout_state === 'verify')
    return 'Token is not yet enrolled';
  return undefined;
}

/**
 * check_reset_failcount: a token at maxfail whose failcounter_exceeded is older than
 * failcounter_clear_timeout minutes (0 = off) gets its fail counter back to 0.
 */
export async function clearTimedOutFailcount(
  rt: Runtime,
  t: LoadedToken,
  timeoutMinutes: number,
  now: Date,
): Promise<void> {
  if (timeoutMinutes <= 0 || t.row.failcount < t.row.maxfail) return;
  // With its offset (a token from privacyIDEA may carry the server's zone); without one, UTC.
  const at = storedMinuteTime(t.info.failcounter_exceeded, 'utc');
  if (!Number.isFinite(at) || now.getTime() <= at + timeoutMinutes * 60_000) return;
  await resetFailcount(rt.store.db, t.row.id);
  await deleteTokenInfo(rt.store.db, t.row.id, 'failcounter_exceeded');
  t.row.failcount = 0;
  delete t.info.failcounter_exceeded;
}
