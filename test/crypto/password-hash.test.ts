import { describe, expect, it } from 'vitest';
import {
  decoyHash,
  hashPassword,
  hashQueue,
  MAX_CONCURRENT_HASHES,
  needsRehash,
  verifyPassword,
} from '../../src/crypto/password-hash.ts';

const PHC = /^\$argon2id\$v=19\$m=19456,t=2,p=1\$([A-Za-z0-9+/]{22})\$([A-Za-z0-9+/]{43})$/;

describe('password hashes', () => {
  it('are argon2id PHC strings with m=19456, t=2, p=1, a 16-byte salt and a 32-byte tag', async () => {
    const h = await hashPassword('correct horse');
    expect(h).toMatch(PHC);
    const [, salt, tag] = PHC.exec(h)!;
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(tag!, 'base64')).toHaveLength(32);
  });

  it('use a new salt every time', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('verify the right password and only that', async () => {
    const h = await hashPassword('correct horse');
    expect(await verifyPassword('correct horse', h)).toBe(true);
    expect(await verifyPassword('correct hors', h)).toBe(false);
    expect(await verifyPassword('Correct horse', h)).toBe(false);
    expect(await verifyPassword('', h)).toBe(false);
    const unicode = await hashPassword('pässwörd ✓');
    expect(await verifyPassword('pässwörd ✓', unicode)).toBe(true);
    expect(await verifyPassword('passwort ✓', unicode)).toBe(false);
  });

  it('verify against the parameters stored in the hash', async () => {
    const h = await hashPassword('pw', { memoryKiB: 8192, passes: 1, parallelism: 2 });
    expect(h).toMatch(/^\$argon2id\$v=19\$m=8192,t=1,p=2\$/);
    expect(await verifyPassword('pw', h)).toBe(true);
  });

  it('need a rehash unless they are of the current parameters and tag length', async () => {
    const own = await hashPassword('pw');
    expect(needsRehash(own)).toBe(false);
    const [, , , params, salt, tag] = own.split('$');
    for (const other of [
      await hashPassword('pw', { memoryKiB: 8192, passes: 1, parallelism: 2 }),
      // privacyIDEA's (passlib): 100 MiB, 9 passes, 8 lanes, a 16-byte tag.
      `$argon2id$v=19$m=102400,t=9,p=8$${salt}$${tag!.slice(0, 22)}`,
      // authsrv's parameters with another tag length.
      `$argon2id$v=19$${params}$${salt}$${tag!.slice(0, 22)}`,
      `$argon2id$v=19$m=19456,t=2,p=2$${salt}$${tag}`,
      `$argon2id$v=19$m=194560,t=2,p=1$${salt}$${tag!.slice(1)}`,
      '',
      '$2b$12$abcdefghijklmnopqrstuuMDBj2qbEbY4Y.ZbJ9zyBfWjUVGY4g2',
    ]) {
      expect(needsRehash(other), other).toBe(true);
    }
  });

  it('answer false, without throwing, for malformed hashes', async () => {
    const good = await hashPassword('pw');
    const [, , , params, salt, tag] = good.split('$');
    for (const bad of [
      '',
      'pw',
      '$argon2i$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA',
      '$2b$12$abcdefghijklmnopqrstuuMDBj2qbEbY4Y.ZbJ9zyBfWjUVGY4g2',
      good.replace('v=19', 'v=16'),
      `$argon2id$v=19$${params}$${salt}`,
      `$argon2id$v=19$${params}$${salt}$${tag}$extra`,
      `$argon2id$v=19$${params}$${salt}$${tag!.slice(0, 10)}`,
      `$argon2id$v=19$${params}$$${tag}`,
      `$argon2id$v=19$${params}$!!!!$${tag}`,
      `$argon2id$v=19$m=0,t=2,p=1$${salt}$${tag}`,
      `$argon2id$v=19$m=19456,t=0,p=1$${salt}$${tag}`,
      `$argon2id$v=19$m=19456,t=2,p=0$${salt}$${tag}`,
      `$argon2id$v=19$m=99999999999,t=2,p=1$${salt}$${tag}`,
      `$argon2id$v=19$m=19456,t=99999999,p=1$${salt}$${tag}`,
      `$argon2id$v=19$m=19456,t=2,p=1$AA$${tag}`,
    ]) {
      await expect(verifyPassword('pw', bad), bad).resolves.toBe(false);
    }
  });

  it('keep one decoy hash for unknown users', async () => {
    const d = await decoyHash();
    expect(d).toMatch(PHC);
    expect(await decoyHash()).toBe(d);
    expect(await verifyPassword('', d)).toBe(false);
  });
});

describe('hash concurrency', () => {
  it('runs at most MAX_CONCURRENT_HASHES at once and finishes every one of a burst correctly', async () => {
    const small = { memoryKiB: 1024, passes: 1, parallelism: 1 };
    const stored = await hashPassword('pw', small);
    const pending = Array.from({ length: 12 }, (_, i) =>
      verifyPassword(i % 2 === 0 ? 'pw' : 'wrong', stored),
    );
    // Started synchronously: the first MAX_CONCURRENT_HASHES run, the others wait for a slot.
    expect(hashQueue()).toEqual({ running: MAX_CONCURRENT_HASHES, waiting: 12 - MAX_CONCURRENT_HASHES });
    const results = await Promise.all(pending);
    expect(results).toEqual(Array.from({ length: 12 }, (_, i) => i % 2 === 0));
    expect(hashQueue()).toEqual({ running: 0, waiting: 0 });
  });
});

describe('argon2id hashes of other hashers', () => {
  it("verifies passlib's (privacyIDEA's) hashes with a 16-byte tag, and no other password", async () => {
    // The fixture's administrator: argon2id of PI_PEPPER + 'test' (test/fixtures/privacyidea-3.11).
    const pepper = '3baa3f6f94ef1c1342bdc7aff2c6f8d726ebfb2083f8f740';
    const hash = '$argon2id$v=19$m=102400,t=9,p=8$iJHSOqcUAiBEaG3tfe8dAw$7l/qeNsUvTGCB5HE9Yl7rw';
    expect(await verifyPassword(`${pepper}test`, hash)).toBe(true);
    expect(await verifyPassword('test', hash)).toBe(false);
  });

  it('refuses tags shorter than 16 or longer than 64 bytes', async () => {
    const short = `$argon2id$v=19$m=1024,t=1,p=1$${'A'.repeat(22)}$${'A'.repeat(20)}`;
    const long = `$argon2id$v=19$m=1024,t=1,p=1$${'A'.repeat(22)}$${'A'.repeat(88)}`;
    expect(await verifyPassword('pw', short)).toBe(false);
    expect(await verifyPassword('pw', long)).toBe(false);
  });
});
