// How long a password may be. Every password, PIN and pass value the server hashes, verifies or
// hands to a user store is at most MAX_PASSWORD_LENGTH characters: the services refuse a longer
// request value with a ParameterError naming it (core's LIMITS.password), and the hashes here
// refuse what still comes through, since SHA-crypt's cost grows with the square of the length.
import { ParameterError } from '../errors.ts';

/**
 * 4096 characters: passlib's default maximum (PasswordSizeError) and the limit Django set in 2013,
 * both against this very denial of service. It is far beyond any typed or generated password, and
 * beyond a pass value of PIN and OTP even with the longest stored secrets (a `pw` token's password,
 * an indexed secret: at most 1024 characters, LIMITS.otpkey) behind a PIN that is a user-store
 * password. One SHA-crypt check of such a password takes about a tenth of a second, on a hash worker.
 */
export const MAX_PASSWORD_LENGTH = 4096;

/** The most UTF-8 bytes a password of MAX_PASSWORD_LENGTH characters takes. */
const MAX_PASSWORD_BYTES = 4 * MAX_PASSWORD_LENGTH;

/** True when `password` is longer than any password the services accept, counted in UTF-8 bytes. */
export function overlongPassword(password: string): boolean {
  // Up to MAX_PASSWORD_LENGTH UTF-16 units are at most 3 bytes each: no need to count.
  return password.length > MAX_PASSWORD_LENGTH && Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES;
}

/** Throws when `password` is too long to be hashed (see overlongPassword). */
export function refuseOverlongPassword(password: string): void {
  if (overlongPassword(password)) {
    throw new ParameterError(`A password may have at most ${MAX_PASSWORD_LENGTH} characters`);
  }
}
