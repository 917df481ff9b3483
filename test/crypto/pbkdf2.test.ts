// PBKDF2 off the event loop, with a bounded iteration count.
import { pbkdf2Sync } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { MAX_PBKDF2_ITERATIONS, pbkdf2Key } from '../../src/crypto/pbkdf2.ts';
import { ParameterError } from '../../src/errors.ts';

describe('pbkdf2Key', () => {
  const salt = Buffer.from('a1a2a3a4a5a6a7a8', 'hex');

  it('derives what pbkdf2Sync derives', async () => {
    expect(await pbkdf2Key('qwerty', salt, 1000, 16, 'sha1')).toEqual(
      pbkdf2Sync('qwerty', salt, 1000, 16, 'sha1'),
    );
    expect(await pbkdf2Key(Buffer.from('00ff', 'hex'), salt, 10, 32, 'sha256')).toEqual(
      pbkdf2Sync(Buffer.from('00ff', 'hex'), salt, 10, 32, 'sha256'),
    );
  });

  it('leaves the event loop free while it derives', async () => {
    const before = performance.eventLoopUtilization();
    await pbkdf2Key('qwerty', salt, 1_000_000, 16, 'sha1');
    expect(performance.eventLoopUtilization(before).utilization).toBeLessThan(0.5);
  });

  it('refuses an iteration count out of bounds at once', async () => {
    for (const n of [0, -1, 1.5, Number.NaN, MAX_PBKDF2_ITERATIONS + 1, 2 ** 31]) {
      await expect(pbkdf2Key('qwerty', salt, n, 16, 'sha1'), String(n)).rejects.toThrow(ParameterError);
    }
  });
});
