// Decoys of stored hashes: the same scheme and work factor, a random salt and checksum, never the
// password, and one hash of work to check, like the stored hash.
import { describe, expect, it } from 'vitest';
import { makeCryptHash, shaCrypt, verifyCryptHash } from '../../src/crypto/crypt-hashes.ts';
import { decoyLike } from '../../src/crypto/decoy-hash.ts';
import { hashesStarted } from '../../src/crypto/hash-slots.ts';
import { hashPassword } from '../../src/crypto/password-hash.ts';

/** The hashes started while `run` ran. */
async function counted(run: () => Promise<unknown>): Promise<number> {
  const before = hashesStarted();
  await run();
  return hashesStarted() - before;
}

describe('decoyLike', () => {
  it('imitates every expensive format with its cost, and never verifies', async () => {
    const stored = [
      await makeCryptHash('sha512-crypt', 'pw'),
      await shaCrypt('pw', '$5$rounds=12000$abcdefgh'),
      await makeCryptHash('bcrypt', 'pw'),
      await makeCryptHash('phpass', 'pw'),
      await hashPassword('pw', { memoryKiB: 1024, passes: 1, parallelism: 1 }),
      `{CRYPT}${await makeCryptHash('sha256-crypt', 'pw')}`,
    ];
    for (const hash of stored) {
      const decoy = decoyLike(hash);
      expect(decoy, hash).toBeDefined();
      expect(decoy!.length, hash).toBe(hash.length);
      expect(decoy, hash).not.toBe(hash);
      // Scheme and work factor kept: everything up to the salt is the same.
      const prefix =
        /^(\{CRYPT\})?(\$[56]\$(rounds=\d+\$)?|\$2b\$\d\d\$|\$P\$.|\$argon2id\$[^$]*\$[^$]*\$)/.exec(
          hash,
        )![0];
      expect(decoy!.startsWith(prefix), hash).toBe(true);
      expect(await verifyCryptHash(hash, 'pw'), hash).toBe(true);
      // As much work as the real hash: one hash job each, and no match.
      expect(await counted(async () => expect(await verifyCryptHash(decoy!, 'pw'), hash).toBe(false))).toBe(
        1,
      );
      expect(await counted(() => verifyCryptHash(hash, 'other'))).toBe(1);
    }
  });

  it('gives two different decoys of one hash', () => {
    const hash = `$6$rounds=5000$saltsalt$${'a'.repeat(86)}`;
    expect(decoyLike(hash)).not.toBe(decoyLike(hash));
  });

  it('has nothing to imitate for cheap digests and values that are no hash', async () => {
    for (const h of [await makeCryptHash('SSHA256', 'pw'), 'a'.repeat(64), 'x', '*', '!', '', '$1$abc$def']) {
      expect(decoyLike(h), h).toBeUndefined();
    }
  });
});
