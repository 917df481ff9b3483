// Runs an authentication under the brute-force throttling: refused unchecked while its account
// from its address, or its address, waits; a failure counts for both; a success forgets the count
// of its account from its address (not the address's: an attacker's own good login must not wipe
// what the address did).
import { AuthError, ResourceNotFoundError, ThrottledError, UserError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { backoffOf, retryAfter } from './backoff.ts';
import { type Attempt, accountColumn, keyOf } from './keys.ts';
import { countFailures, countOf, deleteKey, pruneForgotten, rowsOf, type Target } from './store.ts';

/** What an authentication's result was for the throttling: a challenge, for one, is neither. */
export type ThrottleVerdict = 'success' | 'failure' | 'neither';

/** One in this many failures also deletes the counts that are forgotten. */
const PRUNE_EVERY = 64;

/** The keys of an attempt: its account from its address (first), and its address. */
function targetsOf(rt: Runtime, attempt: Attempt): Target[] {
  const { account, address } = attempt;
  return [
    {
      key: keyOf('account', account, address),
      kind: 'account',
      account: accountColumn(account),
      address,
      backoff: backoffOf(rt.config.throttle, 'account'),
    },
    {
      key: keyOf('address', '', address),
      kind: 'address',
      account: '',
      address,
      backoff: backoffOf(rt.config.throttle, 'address'),
    },
  ];
}

/**
 * A refusal that counts as a failed guess: wrong credentials (AuthError, also under
 * hide_specific_error_message), an unknown user or serial. A malformed request or a policy's
 * refusal guesses nothing.
 */
function failedGuess(e: unknown): boolean {
  return e instanceof AuthError || e instanceof UserError || e instanceof ResourceNotFoundError;
}

async function countFailure(rt: Runtime, targets: Target[]): Promise<void> {
  const now = rt.clock();
  await countFailures(rt.store, targets, now);
  if (rt.random.int(PRUNE_EVERY) === 0) {
    const since = new Date(now.getTime() - rt.config.throttle.resetAfter * 1000);
    // Housekeeping only: a prune that fails (a lock conflict) is tried again by a later failure.
    await pruneForgotten(rt.store.db, now, since).catch((e: unknown) =>
      rt.log.warn({ err: e }, 'forgotten login failure counts could not be deleted'),
    );
  }
}

/**
 * Runs `run` (an authentication) unless the attempt is throttled (ThrottledError, nothing
 * checked), and counts its outcome by `verdict`. Without an attempt (no account or no client
 * address: the CLI) or with throttle.enabled off, it only runs.
 */
export async function throttled<T>(
  rt: Runtime,
  attempt: Attempt | undefined,
  run: () => Promise<T>,
  verdict: (result: T) => ThrottleVerdict,
): Promise<T> {
  if (!rt.config.throttle.enabled || !attempt?.address || !attempt.account) return run();
  const targets = targetsOf(rt, attempt);
  const rows = await rowsOf(
    rt.store.db,
    targets.map((t) => t.key),
  );
  const wait = retryAfter(rows.map(countOf), rt.clock());
  if (wait > 0) throw new ThrottledError(wait);
  let result: T;
  try {
    result = await run();
  } catch (e) {
    if (failedGuess(e)) await countFailure(rt, targets);
    throw e;
  }
  const v = verdict(result);
  if (v === 'failure') await countFailure(rt, targets);
  else if (v === 'success' && rows.some((r) => r.key === targets[0]!.key))
    await deleteKey(rt.store.db, targets[0]!.key);
  return result;
}
