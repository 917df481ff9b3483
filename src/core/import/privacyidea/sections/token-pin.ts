// The OTP PIN of a privacyIDEA token as authsrv stores it. privacyIDEA's argon2id hashes (passlib,
// m=102400,t=9,p=8, no pepper) are kept as written: authsrv verifies PHC strings of any
// parameters (and re-hashes them at the first right PIN). Encrypted PINs (`@@iv:ct`, the
// encrypt_pin policy) are decrypted and hashed: nothing of authsrv needs a PIN back in clear, and
// an imported encrypt_pin policy seals the PINs set from then on. Other forms (legacy salted SHA-256 with pin_seed,
// passlib pbkdf2-sha512) authsrv cannot verify: the token is reported.
import { pinHash } from '../../../token/index.ts';
import type { PiKeys } from '../keys.ts';

/** authsrv's pin_hash, or `{ reason }` when the PIN cannot be carried over. */
export async function importedPin(keys: PiKeys, stored: string): Promise<string | { reason: string }> {
  if (stored === '') return '';
  if (stored.startsWith('@@')) {
    try {
      return await pinHash(keys.encryptedPin(stored));
    } catch (e) {
      return { reason: `its encrypted PIN does not decrypt: ${(e as Error).message}` };
    }
  }
  if (stored.startsWith('$argon2id$')) return stored;
  const scheme = /^\$([a-z0-9-]+)\$/.exec(stored)?.[1];
  return {
    reason: scheme
      ? `its PIN is a ${scheme} hash, which authsrv does not verify (set a new PIN after the import)`
      : 'its PIN is a legacy salted SHA-256 hash (pin_seed), which authsrv does not verify',
  };
}
