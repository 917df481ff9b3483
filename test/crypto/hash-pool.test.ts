// The hash workers: the expensive hashes leave the event loop free, a failed worker fails only its
// job, and idle workers never keep a process alive (nor does a busy one let it end too early).
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeCryptHash, shaCrypt, verifyCryptHash } from '../../src/crypto/crypt-hashes.ts';
import { hashWorkers, inHashWorker, stopHashWorkers } from '../../src/crypto/hash-pool.ts';
import { hashQueue, MAX_CONCURRENT_HASHES } from '../../src/crypto/hash-slots.ts';

const root = resolve(import.meta.dirname, '../..');

/** How busy the event loop was (0 to 1) while `work` ran. */
async function loopBusyWhile<T>(work: () => Promise<T>): Promise<{ result: T; busy: number }> {
  const before = performance.eventLoopUtilization();
  const result = await work();
  return { result, busy: performance.eventLoopUtilization(before).utilization };
}

describe('hash workers', () => {
  // Each well over a tenth of a second, so that the cost of starting a worker does not count.
  const slow: [string, () => Promise<string>][] = [
    ['sha512-crypt, 200 000 rounds', () => shaCrypt('pw', '$6$rounds=200000$saltsalt')],
    ['sha256-crypt, 4 000-character password', () => shaCrypt('p'.repeat(4000), '$5$rounds=20000$saltsalt')],
    ['bcrypt, cost 12', () => inHashWorker({ kind: 'bcrypt-hash', password: 'pw', cost: 12 })],
    [
      'phpass, 2^18 rounds',
      async () =>
        `$P$G12345678${await inHashWorker({ kind: 'phpass', password: 'pw', salt: '12345678', log2: 18 })}`,
    ],
  ];

  it.each(slow)('leave the event loop free while %s is verified', async (_name, make) => {
    const stored = await make();
    const password = stored.startsWith('$5$') ? 'p'.repeat(4000) : 'pw';
    // On the event loop (as before: hashing in slices between other callbacks), it is busy nearly
    // all the time; on a worker it only waits.
    const { result, busy } = await loopBusyWhile(() => verifyCryptHash(stored, password));
    expect(result).toBe(true);
    expect(busy).toBeLessThan(0.5);
    expect(hashWorkers().alive).toBeGreaterThan(0);
  });

  it('runs no more hashes at once than MAX_CONCURRENT_HASHES, and every one of a burst right', async () => {
    const stored = await shaCrypt('pw', '$6$rounds=20000$burst');
    const pending = Array.from({ length: 8 }, (_, i) => verifyCryptHash(stored, i % 2 === 0 ? 'pw' : 'no'));
    expect(hashQueue()).toEqual({ running: MAX_CONCURRENT_HASHES, waiting: 8 - MAX_CONCURRENT_HASHES });
    expect(await Promise.all(pending)).toEqual(Array.from({ length: 8 }, (_, i) => i % 2 === 0));
    expect(hashWorkers().alive).toBeLessThanOrEqual(MAX_CONCURRENT_HASHES);
    expect(hashQueue()).toEqual({ running: 0, waiting: 0 });
  });

  it('a worker that dies fails only its job: the check answers false, the next one works', async () => {
    const stored = await shaCrypt('pw', '$6$rounds=200000$dies');
    const pending = verifyCryptHash(stored, 'pw');
    await stopHashWorkers();
    expect(await pending).toBe(false);
    expect(
      await verifyCryptHash(
        '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1',
        'Hello world!',
      ),
    ).toBe(true);
  });

  it('a job that fails in the worker is an error for the caller and leaves the worker working', async () => {
    await expect(
      inHashWorker({ kind: 'bcrypt-hash', password: 5 as unknown as string, cost: 4 }),
    ).rejects.toThrow(/^Password hashing failed: /);
    expect(await verifyCryptHash(await makeCryptHash('bcrypt', 'pw'), 'pw')).toBe(true);
  });

  it('a process ends by itself after its last hash, and not before it', async () => {
    const script = [
      `import { verifyCryptHash } from '${root}/src/crypto/crypt-hashes.ts';`,
      `import { shaCrypt } from '${root}/src/crypto/crypt-hashes.ts';`,
      `console.log(await verifyCryptHash(await shaCrypt('pw', '$6$rounds=50000$x'), 'pw'));`,
    ].join('\n');
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: root,
      timeout: 60_000,
    });
    expect(stdout.trim()).toBe('true');
  });
});
