// What HOTP and TOTP share (reference 3.3): the seed (otpkey hex, Base32 with checksum, or
// generated), otplen 6/8, hashlib, and the enrollment detail with the seed, the otpauth:// URI of
// authenticator apps and the oathtoken URL, each with a QR code as a PNG data URI.
import { createHash, randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { base32Decode, base32Encode } from './base32.ts';
import { type Hashlib, hotpValue, isHashlib } from './oath.ts';
import { type Enrollment, type EnrollRequest, type TokenState, TokenType } from './token-type.ts';
import { twoStepInit, twoStepKey } from './two-step.ts';

const KEY_SIZE: Record<Hashlib, number> = { sha1: 20, sha256: 32, sha512: 64 };

export function hashlibOf(token: TokenState, settings?: { get(k: string): string | undefined }): Hashlib {
  const v = token.info.hashlib ?? settings?.get('hotp.hashlib') ?? 'sha1';
  return isHashlib(v) ? v : 'sha1';
}

/** `otpkeyformat=base32check`: Base32 of the key followed by the first 4 bytes of its SHA-1. */
function decodeBase32Check(text: string): Buffer {
  const all = base32Decode(text);
  if (all.length < 5) throw new ParameterError('The otpkey in base32check format is too short.');
  const key = all.subarray(0, all.length - 4);
  const check = createHash('sha1').update(key).digest().subarray(0, 4);
  if (!check.equals(all.subarray(all.length - 4)))
    throw new ParameterError('Malformed base32check data: Incorrect checksum');
  return key;
}

/** Python's urllib quote (safe `/`): what privacyIDEA applies to the label and issuer. */
function pyQuote(text: string): string {
  return encodeURIComponent(text)
    .replace(/%2F/g, '/')
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The `tokenlabel` / `tokenissuer` placeholders: `<s>`, `<u>`, `<r>`, `{serial}`, `{user}`, `{realm}`. */
function fillIn(text: string, req: EnrollRequest): string {
  const user = req.user?.login ?? '';
  const realm = req.user?.realm ?? '';
  return text
    .replace(/<s>|\{serial\}/g, req.serial)
    .replace(/<u>|\{user\}/g, user)
    .replace(/<r>|\{realm\}/g, realm);
}

async function withQr(description: string, value: string): Promise<Record<string, string>> {
  return { description, value, img: await QRCode.toDataURL(value) };
}

export abstract class OathTokenType extends TokenType {
  /** Extra otpauth parameters after `algorithm` (TOTP: period). */
  protected abstract uriExtras(info: Record<string, string>): [string, string][];
  /** Type-specific tokeninfo at enrollment. */
  protected abstract enrollInfo(req: EnrollRequest): Record<string, string>;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const p = req.params;
    const hashlib = (p.hashlib || req.settings.get(`${this.type}.hashlib`) || 'sha1').toLowerCase();
    if (!isHashlib(hashlib))
      throw new ParameterError(`Unsupported hashlib '${hashlib}': use sha1, sha256 or sha512`);
    const otplenText = p.otplen || req.settings.get('DefaultOtpLen') || '6';
    const otplen = Number(otplenText);
    if (otplen !== 6 && otplen !== 8) throw new ParameterError(`otplen must be 6 or 8, not '${otplenText}'`);
    let key: Buffer;
    const genkey = isTrue(p.genkey);
    const size = p.keysize ? Number(p.keysize) : KEY_SIZE[hashlib];
    const two = req.twoStep;
    const generated = two ? two.step === 'init' : !(p.otpkey && !genkey);
    if (generated && (!Number.isInteger(size) || size < 10 || size > 128))
      throw new ParameterError('keysize must be 10 to 128 bytes');
    const first = two?.step === 'init' ? twoStepInit(two.sizes, size) : undefined;
    if (two) key = twoStepKey(two, p.otpkey);
    else if (p.otpkey && !genkey) {
      if ((p.otpkeyformat ?? '').toLowerCase() === 'base32check') key = decodeBase32Check(p.otpkey);
      else if (/^([0-9a-fA-F]{2})+$/.test(p.otpkey)) key = Buffer.from(p.otpkey, 'hex');
      else throw new ParameterError('The otpkey must be hexadecimal (or set otpkeyformat=base32check)');
    } else {
      key = randomBytes(size);
    }
    const info = { hashlib, ...this.enrollInfo(req), ...first?.info };
    const secret = base32Encode(key);
    // The label is cut so that the URI stays short enough for QR codes (privacyIDEA's budget).
    const budget = 180 - `otpauth://${this.type}/?secret=${secret}&counter=1`.length;
    const label = pyQuote(fillIn(p.tokenlabel || '<s>', req).slice(0, Math.max(budget, 0)));
    const issuer = fillIn(p.tokenissuer || 'privacyIDEA', req);
    const query: [string, string][] = [['secret', secret]];
    if (this.type === 'hotp') query.push(['counter', '1']);
    if (hashlib !== 'sha1') query.push(['algorithm', hashlib.toUpperCase()]);
    query.push(...this.uriExtras(info), ...(first?.uri ?? []));
    query.push(
      ['digits', String(otplen)],
      ['creator', 'privacyidea'],
      ['issuer', issuer],
      ['serial', req.serial],
    );
    const otpauth = `otpauth://${this.type}/${label}?${query.map(([k, v]) => `${k}=${k === 'issuer' ? pyQuote(v) : encodeURIComponent(v)}`).join('&')}`;
    const oathurl = `oathtoken:///addToken?name=${encodeURIComponent(req.serial)}&lockdown=true&key=${key.toString('hex')}`;
    return {
      key,
      otplen,
      info,
      detail: {
        otpkey: { ...(await withQr('OTP seed', `seed://${key.toString('hex')}`)), value_b32: secret },
        googleurl: await withQr('URL for google Authenticator', otpauth),
        oathurl: await withQr('URL for OATH token', oathurl),
        ...first?.detail,
      },
      ...(first ? { rolloutState: first.rolloutState } : {}),
    };
  }

  /** The value of a counter for this token. */
  protected value(token: TokenState, counter: number): string {
    return hotpValue(token.key(), counter, token.otplen, hashlibOf(token));
  }
}
