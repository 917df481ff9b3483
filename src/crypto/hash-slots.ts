// How many expensive hashes run at once in this process, whatever runs them: argon2id on libuv's
// thread pool (password-hash.ts) and SHA-crypt, phpass and bcrypt on the hash workers (hash-pool.ts).
// The rest wait, in order, for a slot.
import { availableParallelism } from 'node:os';

/**
 * At most this many hashes run at once. libuv's pool has 4 threads; were all of them busy hashing
 * during a burst of PIN logins, every other pool job (RSA signatures of responses and audit rows,
 * file reads) would wait behind the queue of hashes and the server would stop answering anything
 * else. With one hash per core (at most 3), a thread stays free and the cores stay busy; the hash
 * workers share the same slots, so that hashes of every kind together never take more cores.
 */
export const MAX_CONCURRENT_HASHES = Math.max(1, Math.min(3, availableParallelism()));
let running = 0;
/** Hashes asked for since the process started (tests count work done with it, never time). */
let started = 0;
const waiting: (() => void)[] = [];

/**
 * Runs `job` when a slot is free. A slot is taken at once when one is free (before the first
 * await), so a caller's hash is counted as soon as it is asked for.
 */
export async function withHashSlot<T>(job: () => Promise<T>): Promise<T> {
  started++;
  // A finishing job hands its slot straight to the next waiter, so a newcomer cannot slip in between.
  if (running >= MAX_CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await job();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** Hashes running now and waiting for a slot (for tests and diagnostics). */
export function hashQueue(): { running: number; waiting: number } {
  return { running, waiting: waiting.length };
}

/** Hashes of every kind asked for since the process started (tests count work with it, not time). */
export function hashesStarted(): number {
  return started;
}
