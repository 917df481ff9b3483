// Static-password tokens (pw, registration; reference 3.1, 4.5): the secret is a password whose
// length is the otplen, so the PIN comes first and the password after it.
import { ParameterError, PolicyError } from '../errors.ts';
import { intAction, randomPin, type ScopedActions, strAction } from '../policy/index.ts';
import { givenOtpkey } from './enrollment.ts';
import { sameOtp } from './oath.ts';
import { type PrivacyideaConversion, type PrivacyideaStoredToken, textSecret } from './privacyidea.ts';
import { randomOf, type TypeRandom } from './random.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

/** Letters and digits without look-alikes (privacyIDEA's base58-like default). */
const ALPHABET = '123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ';

export function randomPassword(length: number, random?: TypeRandom): string {
  const draw = randomOf(random);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[draw.int(ALPHABET.length)];
  return out;
}

/** The enrollment-scope actions `<prefix>.length` and `<prefix>.contents` of a password type. */
function passwordActions(prefix: string, what: string): ScopedActions {
  return {
    enrollment: {
      [`${prefix}.length`]: intAction(`Length of ${what}.`, 'token'),
      [`${prefix}.contents`]: strAction(`Characters of ${what}.`, 'token'),
    },
  };
}

/**
 * A password from the enrollment policies `<prefix>.length` and `<prefix>.contents` (pw,
 * registration; reference 5.5), as privacyIDEA's init_token_length_contents sets them: the policy
 * value, else the type's default (no system config, no request parameter). The contents use the
 * format of otp_pin_contents (`cns`, `+…`, `-…`, `[…]`; src/core/pin-policy.ts); without a contents
 * policy the password is letters and digits without look-alikes. A length that is no positive
 * integer, or contents privacyIDEA does not read → PolicyError 303.
 */
async function policyPassword(req: EnrollRequest, prefix: string, defaultLength: number): Promise<string> {
  const lengthText = req.policy?.(`${prefix}.length`);
  let length = defaultLength;
  if (lengthText !== undefined) {
    length = /^\s*\+?\d{1,9}\s*$/.test(lengthText) ? Number(lengthText) : 0;
    if (length < 1)
      throw new PolicyError(`The policy ${prefix}.length must be a positive integer, not '${lengthText}'`);
  }
  const contents = req.policy?.(`${prefix}.contents`);
  if (!contents) return randomPassword(length, req.random);
  const random = randomOf(req.random);
  return randomPin(length, contents, (max) => random.int(max));
}

export abstract class PasswordTokenType extends TokenType {
  /** The detail key of the password in the /token/init answer. */
  protected abstract readonly detailKey: string;
  /** A generated password. */
  protected abstract generatedPassword(req: EnrollRequest): Promise<string>;
  /** Whether the caller may choose the password (otpkey). */
  protected readonly acceptsOtpkey: boolean = true;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const given = this.acceptsOtpkey ? givenOtpkey(req.params) : undefined;
    const password = given ?? (await this.generatedPassword(req));
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

  /** privacyIDEA stores the password itself (applspec too, its service in tokeninfo). */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    return textSecret(stored);
  }
}

export class PwType extends PasswordTokenType {
  readonly type = 'pw';
  readonly prefix = 'PW';
  readonly description = 'PW: A static password.';
  protected readonly detailKey = 'password';
  override readonly policyActions = passwordActions('pw', 'a generated password token');
  override readonly enrollmentActions = ['pw.length', 'pw.contents'];
  /** PSKC files can hold static passwords (privacyIDEA imports them as pw tokens). */
  override readonly importable = true;
  /** pw.length (default 12) and pw.contents of the enrollment policy. */
  protected generatedPassword(req: EnrollRequest): Promise<string> {
    return policyPassword(req, 'pw', 12);
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
  override readonly policyActions = passwordActions('registration', 'a registration code');
  override readonly enrollmentActions = ['registration.length', 'registration.contents'];
  /** registration.length (default 24) and registration.contents of the enrollment policy. */
  protected generatedPassword(req: EnrollRequest): Promise<string> {
    return policyPassword(req, 'registration', 24);
  }
}
