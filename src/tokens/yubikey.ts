// Yubikey in Yubico OTP (AES) mode, checked offline (reference 3.1, 3.5): the OTP is the public id
// followed by 32 modhex characters, a 16-byte block encrypted with the token's AES-128 key. The
// block carries the private uid, the usage and session counters and a CRC; the counters only
// grow, so a value older than the last accepted one is a replay.
import { createDecipheriv } from 'node:crypto';
import { ParameterError } from '../errors.ts';
import { givenOrGenerated, seedEntry } from './enrollment.ts';
import { hexSeed, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import { randomOf } from './random.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

export const MODHEX = 'cbdefghijklnrtuv';

/** The hex digits a modhex string stands for, or undefined when it is not modhex. */
export function modhexToHex(text: string): string | undefined {
  let hex = '';
  for (const ch of text.toLowerCase()) {
    const i = MODHEX.indexOf(ch);
    if (i < 0) return undefined;
    hex += i.toString(16);
  }
  return hex;
}

/** The bytes of a modhex string, or undefined when it is not modhex of whole bytes. */
export function modhexDecode(text: string): Buffer | undefined {
  if (text.length % 2 !== 0) return undefined;
  const hex = modhexToHex(text);
  return hex === undefined ? undefined : Buffer.from(hex, 'hex');
}

export function modhexEncode(data: Buffer): string {
  let out = '';
  for (const ch of data.toString('hex')) out += MODHEX[Number.parseInt(ch, 16)];
  return out;
}

/** CRC-16 of ISO 13239 as the Yubikey computes it; over a block with its CRC it is 0xf0b8. */
export function yubicoCrc(data: Buffer): number {
  let crc = 0xffff;
  for (const b of data) {
    crc ^= b;
    for (let i = 0; i < 8; i++) {
      const bit = crc & 1;
      crc >>= 1;
      if (bit) crc ^= 0x8408;
    }
  }
  return crc;
}

export const CRC_RESIDUAL = 0xf0b8;

/** The fields of a decrypted Yubico OTP block. */
export interface YubicoBlock {
  /** The private uid, 12 hex characters. */
  uid: string;
  /** (usage counter << 8) | session use: grows with every OTP. */
  counter: number;
}

/** Decrypts and verifies the 32 modhex characters of an OTP; undefined when it is not valid. */
export function decodeYubicoOtp(key: Buffer, otp32: string): YubicoBlock | undefined {
  const cipher = modhexDecode(otp32);
  if (cipher?.length !== 16 || key.length !== 16) return undefined;
  const d = createDecipheriv('aes-128-ecb', key, null);
  d.setAutoPadding(false);
  const block = Buffer.concat([d.update(cipher), d.final()]);
  if (yubicoCrc(block) !== CRC_RESIDUAL) return undefined;
  const usage = block.readUInt16LE(6);
  const session = block[11] as number;
  return { uid: block.subarray(0, 6).toString('hex'), counter: usage * 256 + session };
}

/** The key of Yubico OTP mode: AES-128. */
const AES_KEY_BYTES = 16;

const HEX = /^([0-9a-fA-F]{2})+$/;

/** A given AES key: 32 hex characters. */
function readAesKey(otpkey: string): Buffer {
  if (!HEX.test(otpkey) || otpkey.length !== AES_KEY_BYTES * 2)
    throw new ParameterError('The otpkey of a yubikey must be an AES-128 key of 32 hex characters');
  return Buffer.from(otpkey, 'hex');
}

function param(p: Readonly<Record<string, string>>, ...names: string[]): string | undefined {
  for (const n of names) if (p[n]) return p[n];
  return undefined;
}

export class YubikeyType extends TokenType {
  readonly type = 'yubikey';
  readonly prefix = 'UBAM';
  readonly description = 'Yubikey AES mode: One Time Passwords with Yubikey.';
  override readonly pinAlwaysFirst = true;
  override readonly importable = true;

  /**
   * `otpkey` (the AES key, 32 hex characters) or `genkey`; `otplen` = 32 + the public id length
   * (default 44). Optional `yubikey.prefix` (public id, modhex) and `yubikey.tokenid` (private
   * uid, 12 hex characters); both are otherwise learned on first use, as privacyIDEA does.
   */
  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const p = req.params;
    const { secret: key, generated } = givenOrGenerated(p, readAesKey, () =>
      randomOf(req.random).bytes(AES_KEY_BYTES),
    );
    const info: Record<string, string> = {};
    const publicId = param(p, 'yubikey.prefix', 'public_id');
    if (publicId !== undefined) {
      if (!modhexDecode(publicId)) throw new ParameterError('The public id of a yubikey must be modhex');
      info['yubikey.prefix'] = publicId.toLowerCase();
    }
    const uid = param(p, 'yubikey.tokenid', 'private_uid');
    if (uid !== undefined) {
      if (!/^[0-9a-fA-F]{12}$/.test(uid))
        throw new ParameterError('The private uid of a yubikey must be 12 hex characters');
      info['yubikey.tokenid'] = uid.toLowerCase();
    }
    const otplenText = p.otplen || String(32 + (publicId?.length ?? 12));
    const otplen = Number(otplenText);
    if (!Number.isInteger(otplen) || otplen < 32 || otplen > 64)
      throw new ParameterError(
        `otplen of a yubikey must be 32 + the length of the public id, not '${otplenText}'`,
      );
    if (publicId !== undefined && otplen !== 32 + publicId.length)
      throw new ParameterError('otplen of a yubikey must be 32 + the length of the public id');
    const detail = generated ? { otpkey: seedEntry(key.toString('hex')) } : {};
    return { key, otplen, info, detail };
  }

  /**
   * As privacyIDEA: the stored count is the last accepted counter + 1, so a counter below it is
   * refused. The private uid and the public id must be those of the token (learned on first use).
   */
  checkOtp(token: TokenState, otp: string): OtpMatch | null {
    if (otp.length !== token.otplen || otp.length < 32) return null;
    const prefix = otp.slice(0, -32).toLowerCase();
    if (prefix !== '' && !modhexDecode(prefix)) return null;
    const block = decodeYubicoOtp(token.key(), otp.slice(-32));
    if (!block) return null;
    const knownUid = token.info['yubikey.tokenid'];
    if (knownUid !== undefined && knownUid.toLowerCase() !== block.uid) return null;
    const knownPrefix = token.info['yubikey.prefix'];
    if (knownPrefix !== undefined && knownPrefix.toLowerCase() !== prefix) return null;
    if (block.counter < token.count) return null;
    const info: Record<string, string> = {};
    if (knownUid === undefined) info['yubikey.tokenid'] = block.uid;
    if (knownPrefix === undefined && prefix !== '') info['yubikey.prefix'] = prefix;
    return {
      counter: block.counter,
      newCount: block.counter + 1,
      ...(Object.keys(info).length > 0 ? { info } : {}),
    };
  }

  /**
   * privacyIDEA stores the AES key as hex text, the public id and private uid it learned as
   * tokeninfo yubikey.prefix and yubikey.tokenid, and the count as this type does.
   */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    return hexSeed(stored, AES_KEY_BYTES);
  }
}
