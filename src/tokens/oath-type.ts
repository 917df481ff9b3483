// What HOTP and TOTP share (reference 3.3): the seed (otpkey hex, Base32 with checksum, or
// generated), otplen 6/8, hashlib, and the enrollment detail with the seed, the otpauth:// URI of
// authenticator apps and the oathtoken URL, each with a QR code as a PNG data URI.
import { createHash, createHmac } from 'node:crypto';
import { ParameterError } from '../errors.ts';
import type { ActionDef, ScopedActions } from '../policy/index.ts';
import { base32Decode, base32Encode } from './base32.ts';
import { givenOtpkey, otplenOf, qrEntry, seedEntry } from './enrollment.ts';
import { HASHLIBS, type Hashlib, hotpValue, isHashlib } from './oath.ts';
import { hexSeed, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import { randomOf } from './random.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type TokenFileEntry,
  type TokenState,
  TokenType,
} from './token-type.ts';
import { twoStepActions, twoStepInit, twoStepKey } from './two-step.ts';

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

/**
 * The policy actions of an OATH type whose enrollment defaults the caller's policies set
 * (`<type>_hashlib`, `<type>_otplen`, and `extra`), with two-step enrollment.
 */
export function oathPolicyActions(
  type: string,
  extra: Readonly<Record<string, ActionDef>> = {},
): ScopedActions {
  const defaults: Record<string, ActionDef> = {
    [`${type}_hashlib`]: {
      type: 'str',
      description: `Default hash algorithm of ${type} tokens.`,
      group: type,
      values: HASHLIBS,
    },
    [`${type}_otplen`]: {
      type: 'int',
      description: `Default OTP length of ${type} tokens.`,
      group: type,
      values: ['6', '8'],
    },
    ...extra,
  };
  const twoStep = twoStepActions(type);
  const caller = { ...defaults, ...twoStep.caller };
  return { admin: caller, user: caller, enrollment: twoStep.enrollment };
}

/** The tokeninfo of an imported token: its hashlib (sha1 where the file names none), or why not. */
export function importedHashlib(entry: TokenFileEntry): { hashlib: string } | string {
  const hashlib = (entry.hashlib ?? 'sha1').toLowerCase();
  return isHashlib(hashlib) ? { hashlib } : `unsupported hashlib '${entry.hashlib}'`;
}

/** The seed of a given otpkey: hex, or Base32 with a checksum (`otpkeyformat=base32check`). */
function readOtpkey(otpkey: string, format: string | undefined): Buffer {
  if ((format ?? '').toLowerCase() === 'base32check') return decodeBase32Check(otpkey);
  if (/^([0-9a-fA-F]{2})+$/.test(otpkey)) return Buffer.from(otpkey, 'hex');
  throw new ParameterError('The otpkey must be hexadecimal (or set otpkeyformat=base32check)');
}

export abstract class OathTokenType extends TokenType {
  /** The otpauth parameters right after the secret (HOTP: its counter); default none. */
  protected uriCounter(): [string, string][] {
    return [];
  }
  /** Extra otpauth parameters after `algorithm` (TOTP: period). */
  protected abstract uriExtras(info: Record<string, string>): [string, string][];
  /** Type-specific tokeninfo at enrollment. */
  protected abstract enrollInfo(req: EnrollRequest): Record<string, string>;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const p = req.params;
    const hashlib = (p.hashlib || req.settings.get(`${this.type}.hashlib`) || 'sha1').toLowerCase();
    if (!isHashlib(hashlib))
      throw new ParameterError(`Unsupported hashlib '${hashlib}': use sha1, sha256 or sha512`);
    const otplen = otplenOf(req);
    const size = p.keysize ? Number(p.keysize) : KEY_SIZE[hashlib];
    const two = req.twoStep;
    const given = givenOtpkey(p);
    const generated = two ? two.step === 'init' : given === undefined;
    if (generated && (!Number.isInteger(size) || size < 10 || size > 128))
      throw new ParameterError('keysize must be 10 to 128 bytes');
    const first = two?.step === 'init' ? twoStepInit(two.sizes, size) : undefined;
    const random = randomOf(req.random);
    let key: Buffer;
    if (two) key = await twoStepKey(two, p.otpkey, random);
    else key = given === undefined ? random.bytes(size) : readOtpkey(given, p.otpkeyformat);
    const info = { hashlib, ...this.enrollInfo(req), ...first?.info };
    const secret = base32Encode(key);
    const otpauth = this.otpauthUri(req, { secret, hashlib, otplen, info, extra: first?.uri ?? [] });
    const oathurl = `oathtoken:///addToken?name=${encodeURIComponent(req.serial)}&lockdown=true&key=${key.toString('hex')}`;
    return {
      key,
      otplen,
      info,
      detail: {
        otpkey: { ...seedEntry(key.toString('hex')), value_b32: secret },
        googleurl: qrEntry('URL for google Authenticator', otpauth),
        oathurl: qrEntry('URL for OATH token', oathurl),
        ...first?.detail,
      },
      ...(first ? { rolloutState: first.rolloutState } : {}),
    };
  }

  /** The otpauth:// URI of authenticator apps. */
  private otpauthUri(
    req: EnrollRequest,
    u: {
      secret: string;
      hashlib: string;
      otplen: number;
      info: Record<string, string>;
      extra: [string, string][];
    },
  ): string {
    const p = req.params;
    // The label is cut so that the URI stays short enough for QR codes (privacyIDEA's budget).
    const budget = 180 - `otpauth://${this.type}/?secret=${u.secret}&counter=1`.length;
    const label = pyQuote(fillIn(p.tokenlabel || '<s>', req).slice(0, Math.max(budget, 0)));
    const issuer = fillIn(p.tokenissuer || 'privacyIDEA', req);
    const query: [string, string][] = [['secret', u.secret]];
    query.push(...this.uriCounter());
    if (u.hashlib !== 'sha1') query.push(['algorithm', u.hashlib.toUpperCase()]);
    query.push(...this.uriExtras(u.info), ...u.extra);
    query.push(
      ['digits', String(u.otplen)],
      ['creator', 'privacyidea'],
      ['issuer', issuer],
      ['serial', req.serial],
    );
    return `otpauth://${this.type}/${label}?${query.map(([k, v]) => `${k}=${k === 'issuer' ? pyQuote(v) : encodeURIComponent(v)}`).join('&')}`;
  }

  /** HMAC of the challenge with the seed and the token's hash algorithm, not truncated. */
  override hmacResponse(token: TokenState, challenge: Buffer): Buffer {
    return createHmac(hashlibOf(token), token.key()).update(challenge).digest();
  }

  /** The value of a counter for this token. */
  protected value(token: TokenState, counter: number): string {
    return hotpValue(token.key(), counter, token.otplen, hashlibOf(token));
  }

  /** privacyIDEA stores the seed as hex text. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    return hexSeed(stored);
  }
}
