// Yubico OTPs as a Yubikey in Yubico OTP (AES) mode makes them, for the tests.
import { createCipheriv, randomBytes } from 'node:crypto';
import { modhexEncode, yubicoCrc } from '../../src/tokens/yubikey.ts';

export interface OtpFields {
  uid: string;
  usage: number;
  session: number;
  timestamp?: number;
  /** Breaks the CRC. */
  badCrc?: boolean;
}

/**
 * A Yubico OTP as a Yubikey makes it: uid (6 bytes), usage counter (2, LE), timestamp (3, LE),
 * session use (1), random (2), then the one's complement of the CRC-16 of those 14 bytes (2, LE);
 * AES-128-ECB encrypted, modhex encoded, after the public id.
 */
export function buildOtp(key: Buffer, publicId: string, f: OtpFields): string {
  const block = Buffer.alloc(16);
  Buffer.from(f.uid, 'hex').copy(block, 0);
  block.writeUInt16LE(f.usage, 6);
  block.writeUIntLE(f.timestamp ?? 0x123456, 8, 3);
  block.writeUInt8(f.session, 11);
  randomBytes(2).copy(block, 12);
  block.writeUInt16LE(~yubicoCrc(block.subarray(0, 14)) & 0xffff, 14);
  if (f.badCrc) block[3] = (block[3] as number) ^ 0x01;
  const c = createCipheriv('aes-128-ecb', key, null);
  c.setAutoPadding(false);
  return publicId + modhexEncode(Buffer.concat([c.update(block), c.final()]));
}
