// RFC 4226 HOTP for the load generator: every request of the HOTP scenarios carries a value the
// driver computed itself, so that each one really succeeds (or, for scenario 3, really fails).
import { createHmac } from 'node:crypto';

export function hotp(key: Buffer, counter: number, digits = 6): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const h = createHmac('sha1', key).update(msg).digest();
  const o = h[h.length - 1]! & 0xf;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}

/** A deterministic 20-byte key per token, so the driver needs only the index to compute OTPs. */
export function tokenKey(prefix: string, index: number): Buffer {
  return createHmac('sha1', 'authsrv-bench').update(`${prefix}:${index}`).digest();
}

/** The password of a pw token: derived the same way, 12 hex digits. */
export function staticPassword(prefix: string, index: number): string {
  return tokenKey(prefix, index).toString('hex').slice(0, 12);
}
