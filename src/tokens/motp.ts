// mOTP (reference 3.1, 4.5): the value is the first 6 hex characters of
// md5(<floor(epoch / 10)> <secret as lower-case hex text> <mOTP PIN>), tried within ±timeWindow
// seconds (default 180, i.e. ±18 steps of 10 s); a step at or before the last accepted one is refused.
//
// The mOTP PIN is a secret needed in clear, so it is sealed together with the secret. Layout of the
// sealed key (UTF-8 text): `<16 lower-case hex characters of the secret>:<mOTP PIN>` — the secret
// never contains ':', so the first ':' separates them.
import { createHash } from 'node:crypto';
import { ParameterError } from '../errors.ts';
import { givenOrGenerated, qrEntry, seedEntry } from './enrollment.ts';
import { sameOtp } from './oath.ts';
import { carriedInfo, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import { randomOf } from './random.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

const OTPLEN = 6;
const STEP_SECONDS = 10;

/** The mOTP value of a 10-second step. */
export function motpValue(step: number, secretHex: string, pin: string): string {
  return createHash('md5').update(`${step}${secretHex}${pin}`, 'utf8').digest('hex').slice(0, OTPLEN);
}

/** The sealed key of a secret and an mOTP PIN (see the layout above). */
export function motpKey(secretHex: string, pin: string): Buffer {
  return Buffer.from(`${secretHex.toLowerCase()}:${pin}`, 'utf8');
}

/** A given secret: 16 hex characters. */
function readSecret(otpkey: string): string {
  if (!/^[0-9a-fA-F]{16}$/.test(otpkey))
    throw new ParameterError('The otpkey of an mOTP token must be 16 hexadecimal characters');
  return otpkey.toLowerCase();
}

function splitKey(key: Buffer): { secret: string; pin: string } | undefined {
  const text = key.toString('utf8');
  const at = text.indexOf(':');
  return at < 0 ? undefined : { secret: text.slice(0, at), pin: text.slice(at + 1) };
}

export class MotpType extends TokenType {
  readonly type = 'motp';
  readonly prefix = 'PIMO';
  readonly description = 'mOTP: Classical mobile One Time Passwords.';

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const p = req.params;
    const pin = p.motppin;
    if (!pin) throw ParameterError.missing('motppin');
    const { secret } = givenOrGenerated(p, readSecret, () => randomOf(req.random).bytes(8).toString('hex'));
    const window = p.timeWindow || req.settings.get('motp.timeWindow') || '180';
    if (!/^\d+$/.test(window) || Number(window) < STEP_SECONDS)
      throw new ParameterError(`Invalid timeWindow '${window}': seconds, at least ${STEP_SECONDS}`);
    const url = `motp://privacyidea:${encodeURIComponent(req.serial)}?secret=${secret}`;
    return {
      key: motpKey(secret, pin),
      otplen: OTPLEN,
      info: { timeWindow: window },
      detail: { otpkey: seedEntry(secret), motpurl: qrEntry('URL for MOTP token', url) },
    };
  }

  checkOtp(token: TokenState, otp: string, now: Date): OtpMatch | null {
    const k = splitKey(token.key());
    if (!k || otp.length !== OTPLEN) return null;
    const given = otp.toLowerCase();
    const window = Number(token.info.timeWindow);
    const w = Math.floor((Number.isFinite(window) && window > 0 ? window : 180) / STEP_SECONDS);
    const current = Math.floor(now.getTime() / 1000 / STEP_SECONDS);
    let found = -1;
    // Every candidate is computed, so the time does not tell where (or whether) the value matched.
    for (let s = current - w; s <= current + w; s++) {
      if (sameOtp(motpValue(s, k.secret, k.pin), given) && found < 0) found = s;
    }
    if (found < 0 || found <= token.count) return null;
    return { counter: found, newCount: found };
  }

  /** privacyIDEA keeps the secret's text in key_enc and the mOTP PIN in user_pin: sealed together. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    if (stored.userPin === undefined) return { reason: 'it has no mOTP PIN (user_pin)' };
    if (!/^[0-9a-fA-F]+$/.test(stored.plaintext)) return { reason: 'its mOTP secret is not hex text' };
    return {
      key: motpKey(stored.plaintext, stored.userPin),
      info: carriedInfo(stored.info),
      keepsUserPin: true,
    };
  }
}
