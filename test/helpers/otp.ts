// An RFC 4226 HOTP written for the tests, independent of src/tokens, so that the server's values
// are checked against a second implementation (oathtool is the third).
import { createHmac } from 'node:crypto';

export function hotp(hexKey: string, counter: number, digits = 6): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const h = createHmac('sha1', Buffer.from(hexKey, 'hex')).update(msg).digest();
  const o = h[h.length - 1]! & 0xf;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}
