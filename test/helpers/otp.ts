// An RFC 4226 HOTP written for the tests, independent of src/tokens, so that the server's values
// are checked against a second implementation (oathtool is the third).
import { createHmac } from 'node:crypto';

export function hotp(hexKey: string, counter: number, digits = 6, hashlib = 'sha1'): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const h = createHmac(hashlib, Buffer.from(hexKey, 'hex')).update(msg).digest();
  const o = h[h.length - 1]! & 0xf;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}

/** RFC 4226 Appendix D: the key, ASCII "12345678901234567890" (hex below). */
export const RFC4226_KEY = Buffer.from('12345678901234567890', 'ascii');
export const RFC4226_KEY_HEX = RFC4226_KEY.toString('hex');
/** RFC 4226 Appendix D: the 6-digit HOTP values for counters 0–9. */
export const RFC4226_HOTP: readonly string[] = [
  '755224',
  '287082',
  '359152',
  '969429',
  '338314',
  '254676',
  '287922',
  '162583',
  '399871',
  '520489',
];
