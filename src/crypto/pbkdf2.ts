// PBKDF2 (RFC 8018) for the keys derived from a password elsewhere than in stored hashes: the
// two-step enrollment of HOTP/TOTP and the password-protected PSKC token files. node:crypto runs it
// on libuv's thread pool, never on the event loop, in one of the process's hash slots
// (hash-slots.ts); its iteration count, which a policy or an uploaded file sets, is bounded.
import { pbkdf2 } from 'node:crypto';
import { ParameterError } from '../errors.ts';
import { withHashSlot } from './hash-slots.ts';

/**
 * Ten times OWASP's recommendation for PBKDF2-HMAC-SHA1 (1 300 000) and far beyond what PSKC tools
 * and two-step clients use (1 000 to 100 000): several seconds of a thread, at most.
 */
export const MAX_PBKDF2_ITERATIONS = 10_000_000;

/** The key PBKDF2 derives with HMAC-`digest` (e.g. `sha1`); a ParameterError for a count out of bounds. */
export async function pbkdf2Key(
  password: string | Buffer,
  salt: Buffer,
  iterations: number,
  length: number,
  digest: string,
): Promise<Buffer> {
  if (!Number.isSafeInteger(iterations) || iterations < 1 || iterations > MAX_PBKDF2_ITERATIONS) {
    throw new ParameterError(
      `The PBKDF2 iteration count must be 1 to ${MAX_PBKDF2_ITERATIONS}, not ${iterations}`,
    );
  }
  return withHashSlot(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        pbkdf2(password, salt, iterations, length, digest, (err, key) => (err ? reject(err) : resolve(key))),
      ),
  );
}
