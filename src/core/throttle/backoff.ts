// The arithmetic of the brute-force throttling (Keycloak's brute-force detection, by key): a key's
// failures are counted until `resetAfter` passes without one; beyond the free failures each
// failure makes the key wait, from `baseDelay` doubling up to `maxDelay`, and from `blockAfter`
// failures on each failure blocks it for `blockDuration`. Pure: the time is given.
import type { Config } from '../../config/index.ts';

/** The kinds of key: an account from one client address, or a client address over all accounts. */
export type ThrottleKind = 'account' | 'address';

/** The rules of one kind of key; times in seconds. */
export interface Backoff {
  freeFailures: number;
  baseDelay: number;
  maxDelay: number;
  blockAfter: number;
  blockDuration: number;
  resetAfter: number;
}

/** A key's count: its failures, the last one, and until when attempts are refused. */
export interface FailureCount {
  failures: number;
  lastFailure: Date;
  blockedUntil: Date;
}

/** The rules of a kind: an address (an office behind one NAT address) gets `addressFactor` times the counts. */
export function backoffOf(config: Config['throttle'], kind: ThrottleKind): Backoff {
  const factor = kind === 'address' ? config.addressFactor : 1;
  return {
    freeFailures: config.freeFailures * factor,
    baseDelay: config.baseDelay,
    maxDelay: config.maxDelay,
    blockAfter: config.blockAfter * factor,
    blockDuration: config.blockDuration,
    resetAfter: config.resetAfter,
  };
}

/** The seconds a key waits after its `failures`-th failure. */
export function waitAfter(failures: number, b: Backoff): number {
  if (failures >= b.blockAfter) return b.blockDuration;
  if (failures <= b.freeFailures) return 0;
  // Past 2^60 the product only grows beyond every cap.
  const doublings = Math.min(failures - b.freeFailures - 1, 60);
  return Math.min(b.baseDelay * 2 ** doublings, b.maxDelay);
}

/** Whether a count is forgotten at `now` (its last failure is resetAfter ago and it blocks no more). */
export function forgotten(count: FailureCount, now: Date, b: Pick<Backoff, 'resetAfter'>): boolean {
  return (
    now.getTime() - count.lastFailure.getTime() >= b.resetAfter * 1000 &&
    count.blockedUntil.getTime() <= now.getTime()
  );
}

/** The count after one more failure at `now`; a block already running is never shortened. */
export function afterFailure(prev: FailureCount | undefined, now: Date, b: Backoff): FailureCount {
  const failures = prev && !forgotten(prev, now, b) && prev.failures > 0 ? prev.failures + 1 : 1;
  const until = now.getTime() + waitAfter(failures, b) * 1000;
  const kept = prev && prev.blockedUntil.getTime() > until ? prev.blockedUntil.getTime() : until;
  return { failures, lastFailure: now, blockedUntil: new Date(kept) };
}

/** The whole seconds until the latest of the counts lets attempts through again; 0 when none blocks. */
export function retryAfter(counts: readonly FailureCount[], now: Date): number {
  const latest = Math.max(now.getTime(), ...counts.map((c) => c.blockedUntil.getTime()));
  return Math.ceil((latest - now.getTime()) / 1000);
}
