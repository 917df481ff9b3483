// Day password (reference 3.1, 4.5): TOTP values with a long time step (`1d`, `12h`, `3600`), checked
// only at the current step and — unlike TOTP — usable any number of times within it.
import { ParameterError } from '../errors.ts';
import { sameOtp } from './oath.ts';
import { OathTokenType } from './oath-type.ts';
import type { EnrollRequest, OtpMatch, TokenState } from './token-type.ts';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** A duration in seconds: plain seconds, or a number with the unit s, m, h, d or w. */
export function parseDuration(text: string): number {
  const m = /^\s*(\d+)\s*([smhdw]?)\s*$/i.exec(text);
  const n = m ? Number(m[1]) * UNIT_SECONDS[(m[2] || 's').toLowerCase()]! : Number.NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new ParameterError(`Invalid timeStep '${text}': use seconds or a duration like 1d, 12h, 30m`);
  return n;
}

export class DaypasswordType extends OathTokenType {
  readonly type = 'daypassword';
  readonly prefix = 'DYPW';
  readonly description =
    'DayPassword: A time-based token with a variable timestep and the possibility to use the OTP more than once.';

  protected uriExtras(info: Record<string, string>): [string, string][] {
    return [['period', info.timeStep ?? '86400']];
  }

  protected enrollInfo(req: EnrollRequest): Record<string, string> {
    const given = req.params.timeStep || req.settings.get('daypassword.timeStep') || '1d';
    return { timeStep: String(parseDuration(given)) };
  }

  private step(token: TokenState): number {
    const n = Number(token.info.timeStep);
    return Number.isSafeInteger(n) && n > 0 ? n : 86400;
  }

  checkOtp(token: TokenState, otp: string, now: Date): OtpMatch | null {
    if (otp.length !== token.otplen || !/^\d+$/.test(otp)) return null;
    const c = Math.floor(now.getTime() / 1000 / this.step(token));
    return sameOtp(this.value(token, c), otp) ? { counter: c, newCount: c } : null;
  }
}
