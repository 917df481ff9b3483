// Static-password tokens (pw, registration; reference 3.1, 4.5): the secret is a password whose
// length is the otplen, so the PIN comes first and the password after it.
import { randomInt } from 'node:crypto';
import { ParameterError } from '../core/errors.ts';
import { sameOtp } from './oath.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

/** Letters and digits without look-alikes (privacyIDEA's base58-like default). */
const ALPHABET = '123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';

export function randomPassword(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export abstract class PasswordTokenType extends TokenType {
  /** The detail key of the password in the /token/init answer. */
  protected abstract readonly detailKey: string;
  /** The length of a generated password. */
  protected abstract generatedLength(req: EnrollRequest): number;
  /** Whether the caller may choose the password (otpkey). */
  protected readonly acceptsOtpkey: boolean = true;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const given = this.acceptsOtpkey && req.params.genkey !== '1' ? req.params.otpkey : undefined;
    const password = given || randomPassword(this.generatedLength(req));
    if (password.length > 256) throw new ParameterError('The password is longer than 256 characters');
    return {
      key: Buffer.from(password, 'utf8'),
      otplen: password.length,
      info: {},
      detail: { [this.detailKey]: password },
    };
  }

  checkOtp(token: TokenState, otp: string): OtpMatch | null {
    return sameOtp(token.key().toString('utf8'), otp) ? { counter: 0, newCount: token.count } : null;
  }
}

export class PwType extends PasswordTokenType {
  readonly type = 'pw';
  readonly prefix = 'PW';
  readonly description = 'PW: A static password.';
  protected readonly detailKey = 'password';
  protected generatedLength(req: EnrollRequest): number {
    return Number(req.settings.get('pw.length') ?? 12) || 12;
  }
}

export class RegistrationType extends PasswordTokenType {
  readonly type = 'registration';
  readonly prefix = 'REG';
  readonly description =
    'Registration: A token that creates a registration code that can be used as a second factor once.';
  protected readonly detailKey = 'registrationcode';
  protected override readonly acceptsOtpkey = false;
  override readonly singleUse = true;
  protected generatedLength(req: EnrollRequest): number {
    return Number(req.settings.get('registration.length') ?? 24) || 24;
  }
}
