// Simple pass (reference 3.1): the whole password is the PIN; there is no OTP part.
import { noSecret, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import { type Enrollment, type OtpMatch, TokenType } from './token-type.ts';

export class SpassType extends TokenType {
  readonly type = 'spass';
  readonly prefix = 'PISP';
  readonly description = 'SPass: Simple Pass token. Static passwords.';
  override readonly hasOtp = false;
  override readonly challengeCapable = false;

  async enroll(): Promise<Enrollment> {
    return { otplen: 6, info: {}, detail: {} };
  }

  checkOtp(_token: unknown, otp: string): OtpMatch | null {
    return otp === '' ? { counter: 0, newCount: 0 } : null;
  }

  /** No secret: privacyIDEA's random key is never used. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    return noSecret(stored);
  }
}
