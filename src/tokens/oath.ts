// RFC 4226 HOTP values (and so RFC 6238 TOTP, whose counter is a time step), with HMAC-SHA1,
// -SHA256 or -SHA512. Node's HMAC is used directly: otplib refuses seeds shorter than 16 bytes,
// which privacyIDEA accepts and which imported hardware tokens carry.
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';

export const HASHLIBS = ['sha1', 'sha256', 'sha512'] as const;
export type Hashlib = (typeof HASHLIBS)[number];

export function isHashlib(v: string): v is Hashlib {
  return (HASHLIBS as readonly string[]).includes(v);
}

/**
 * The HOTP value of a counter: dynamic truncation, zero-padded to `digits`. A caller computing
 * several values of one key passes it as a KeyObject: Node checks and copies a Buffer key on every
 * createHmac (about 8 µs, four times the HMAC itself).
 */
export function hotpValue(
  key: Buffer | KeyObject,
  counter: number,
  digits: number,
  hashlib: Hashlib = 'sha1',
): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(hashlib, key).update(msg).digest();
  const offset = (mac[mac.length - 1] as number) & 0x0f;
  const code = (mac.readUInt32BE(offset) & 0x7fffffff) % 10 ** digits;
  return String(code).padStart(digits, '0');
}

/** Compares two OTP values in constant time for equal lengths. */
export function sameOtp(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The first counter in [from, from + count) whose value equals `otp`, or -1. */
/**
 * How many spent counters (HOTP: the last 20 logins) or time steps (TOTP: the 10 minutes up to the
 * last accepted value) a value is recognised as spent again (a replay, which does not count toward
 * the fail limit). Each costs an HMAC on a failed check (about 3 µs); a guess matches one of them
 * once in 50 000 six-digit tries, and then only spares the fail counter.
 */
export const REPLAY_LOOKBACK = 20;

export function findCounter(
  key: Buffer,
  otp: string,
  from: number,
  count: number,
  digits: number,
  hashlib: Hashlib,
): number {
  let found = -1;
  const secret = createSecretKey(key);
  // Every candidate is computed, so the time does not tell where (or whether) the value matched.
  for (let c = Math.max(0, from); c < from + count; c++) {
    if (sameOtp(hotpValue(secret, c, digits, hashlib), otp) && found < 0) found = c;
  }
  return found;
}
