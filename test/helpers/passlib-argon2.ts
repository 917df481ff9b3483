// argon2id PHC strings as passlib writes them for privacyIDEA's PINs (a 16-byte tag), made here with
// Node's argon2 apart from src/crypto, for the tests of PIN hashes of other parameters than authsrv's.
import { argon2Sync, randomBytes } from 'node:crypto';

/**
 * A passlib-style hash of `pin` with parameters that differ from authsrv's but cost less than
 * privacyIDEA's m=102400,t=9,p=8, to keep the tests fast (the rule is only "other parameters").
 */
export function passlibArgon2(pin: string): string {
  const salt = randomBytes(16);
  const tag = argon2Sync('argon2id', {
    message: pin,
    nonce: salt,
    memory: 65536,
    passes: 3,
    parallelism: 4,
    tagLength: 16,
  });
  const b64 = (b: Buffer) => b.toString('base64').replace(/=+$/, '');
  return `$argon2id$v=19$m=65536,t=3,p=4$${b64(salt)}$${b64(tag)}`;
}
