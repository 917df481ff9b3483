// Paper token (reference 3.1, 4.5): an HOTP token whose next values are printed at enrollment.
// Enrollment and checks are HotpType's (its enrollment detail keeps the otpauth://hotp/ URI, as
// privacyIDEA's does); this type only adds the printed values. It delegates instead of extending
// HotpType because HotpType's `type` is the literal 'hotp'.
import { intAction } from '../policy/index.ts';
import { countOf } from './enrollment.ts';
import { HotpType } from './hotp.ts';
import { hotpValue, isHashlib } from './oath.ts';
import { hexSeed, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

const COUNT = { fallback: 100, max: 1000, what: 'OTP values' };

export class PaperType extends TokenType {
  readonly type = 'paper';
  readonly prefix = 'PPR';
  readonly description = 'PPR: One Time Passwords printed on a sheet of paper.';
  readonly #hotp = new HotpType();
  override readonly policyActions = {
    enrollment: { papertoken_count: intAction('Number of OTP values printed on a paper token.', 'token') },
  };
  override readonly enrollmentActions = ['papertoken_count'];

  /**
   * As hotp (a seed is generated unless `otpkey` is given), plus `otps` in the detail: the values
   * of counters 0 … N−1 (counter → value), N from the enrollment policy `papertoken_count` (which
   * wins over the request, as privacyIDEA's pre-policy overwrites the parameter), else the
   * parameter `papertoken_count` or `papercount`, 100 by default.
   */
  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const count = countOf(req, 'papertoken_count', ['papertoken_count', 'papercount'], COUNT);
    const enrollment = await this.#hotp.enroll(req);
    const key = enrollment.key as Buffer;
    const otplen = enrollment.otplen ?? 6;
    const hashlib = enrollment.info.hashlib ?? 'sha1';
    const otps: Record<string, string> = {};
    for (let c = 0; c < count; c++)
      otps[String(c)] = hotpValue(key, c, otplen, isHashlib(hashlib) ? hashlib : 'sha1');
    return { ...enrollment, detail: { ...enrollment.detail, otps } };
  }

  checkOtp(token: TokenState, otp: string): OtpMatch | null {
    return this.#hotp.checkOtp(token, otp);
  }

  /** Values within the sync window, for resync (reference 4.5). */
  findInSyncWindow(token: TokenState, otp: string): number {
    return this.#hotp.findInSyncWindow(token, otp);
  }

  override previousOtp(token: TokenState): string | undefined {
    return this.#hotp.previousOtp(token);
  }

  override usedOtp(token: TokenState, otp: string): boolean {
    return this.#hotp.usedOtp(token, otp);
  }

  /** privacyIDEA stores the seed as hex text. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    return hexSeed(stored);
  }
}
