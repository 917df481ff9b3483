// The hash slots are shared: argon2id on libuv's pool and the hash workers together never run more
// than MAX_CONCURRENT_HASHES hashes at once.
import { describe, expect, it } from 'vitest';
import { shaCrypt, verifyCryptHash } from '../../src/crypto/crypt-hashes.ts';
import {
  hashesStarted,
  hashQueue,
  MAX_CONCURRENT_HASHES,
  withHashSlot,
} from '../../src/crypto/hash-slots.ts';
import { hashPassword, verifyPassword } from '../../src/crypto/password-hash.ts';

describe('hash slots', () => {
  it('argon2id and the hash workers share them', async () => {
    const argon = await hashPassword('pw', { memoryKiB: 1024, passes: 1, parallelism: 1 });
    const crypt = await shaCrypt('pw', '$6$rounds=20000$shared');
    const pending = [
      ...Array.from({ length: MAX_CONCURRENT_HASHES }, () => verifyPassword('pw', argon)),
      verifyCryptHash(crypt, 'pw'),
    ];
    expect(hashQueue()).toEqual({ running: MAX_CONCURRENT_HASHES, waiting: 1 });
    expect(await Promise.all(pending)).toEqual(pending.map(() => true));
    expect(hashQueue()).toEqual({ running: 0, waiting: 0 });
  });

  it('counts every hash asked for, of every kind, failed ones included', async () => {
    const before = hashesStarted();
    const argon = await hashPassword('pw', { memoryKiB: 1024, passes: 1, parallelism: 1 });
    await verifyPassword('wrong', argon);
    await verifyCryptHash(`$5$rounds=1000$salt$${'x'.repeat(43)}`, 'pw');
    await withHashSlot(async () => Promise.reject(new Error('boom'))).catch(() => undefined);
    expect(hashesStarted() - before).toBe(4);
  });

  it('a job that fails gives its slot back', async () => {
    await expect(withHashSlot(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(hashQueue()).toEqual({ running: 0, waiting: 0 });
  });
});
