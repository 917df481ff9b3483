// Authenticated encryption of secrets at rest (token seeds, password-typed config): AES-256-GCM with a
// random 96-bit nonce. The stored text is versioned so the format can change without ambiguity.
import { createCipheriv, createDecipheriv, type KeyObject, randomBytes } from 'node:crypto';

const PREFIX = 'aesgcm1:';

/** `key`: 32 bytes, or their KeyObject (which spares Node checking and copying a Buffer each call). */
export function seal(key: Buffer | KeyObject, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
}

export function open(key: Buffer | KeyObject, sealed: string): string {
  if (!sealed.startsWith(PREFIX)) throw new Error('not an encrypted value');
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64');
  // A fixed 16-byte tag: a shortened tag would weaken the authentication (and Node deprecates it).
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12), { authTagLength: 16 });
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}
