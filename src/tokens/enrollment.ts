// What the enrollment of the token types shares: whether the secret is the caller's (`otpkey`) or
// generated (`genkey` as privacyIDEA's is_true reads it, or no otpkey), and the entries of the
// enrollment detail that carry a QR code.
import { ParameterError, PolicyError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { qrDataUrl } from './qr.ts';
import type { EnrollRequest } from './token-type.ts';

type Params = Readonly<Record<string, string>>;

/** The otpkey the caller gives for the secret; undefined when the secret is to be generated. */
export function givenOtpkey(params: Params): string | undefined {
  return params.otpkey && !isTrue(params.genkey) ? params.otpkey : undefined;
}

/** The secret of an enrollment: `read` from the given otpkey, else `generate`d; and which it was. */
export function givenOrGenerated<T>(
  params: Params,
  read: (otpkey: string) => T,
  generate: () => T,
): { secret: T; generated: boolean } {
  const given = givenOtpkey(params);
  return given === undefined
    ? { secret: generate(), generated: true }
    : { secret: read(given), generated: false };
}

/** An entry of the /token/init detail: a value and its QR code (`img`, a PNG data URI). */
export interface QrEntry {
  description: string;
  value: string;
  img: string;
}

export function qrEntry(description: string, value: string): QrEntry {
  return { description, value, img: qrDataUrl(value) };
}

/** The `otpkey` entry: `seed://<secret>` (hex, or the text of an indexed secret). */
export function seedEntry(secret: string): QrEntry {
  return qrEntry('OTP seed', `seed://${secret}`);
}

/** The OTP length of a request: `otplen`, else the system's DefaultOtpLen, else 6; 6 or 8 only. */
export function otplenOf(req: EnrollRequest): number {
  const text = req.params.otplen || req.settings.get('DefaultOtpLen') || '6';
  const otplen = Number(text);
  if (otplen !== 6 && otplen !== 8) throw new ParameterError(`otplen must be 6 or 8, not '${text}'`);
  return otplen;
}

/**
 * A number of values to make (`papertoken_count`, `tantoken_count`): the enrollment policy `action`
 * wins over the request (privacyIDEA's pre-policy overwrites the parameter), then the first of
 * `params` given, then `fallback`. Outside 1 … max → ParameterError, or PolicyError where the
 * policy set it; `what` names the values in the message.
 */
export function countOf(
  req: EnrollRequest,
  action: string,
  params: readonly string[],
  limits: { fallback: number; max: number; what: string },
): number {
  const fromPolicy = req.policy?.(action);
  const text = fromPolicy ?? (params.map((k) => req.params[k]).find(Boolean) || String(limits.fallback));
  const count = /^\s*\+?\d{1,9}\s*$/.test(text) ? Number(text) : Number.NaN;
  if (Number.isInteger(count) && count >= 1 && count <= limits.max) return count;
  const message = `The number of ${limits.what} must be 1 to ${limits.max}, not '${text}'`;
  throw fromPolicy === undefined
    ? new ParameterError(message)
    : new PolicyError(`${message} (policy ${action})`);
}
