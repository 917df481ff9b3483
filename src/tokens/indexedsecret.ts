// Indexed secret (reference 3.1): a challenge-response token that asks for characters at random
// positions of a secret the user knows. Sending the PIN always starts a challenge whose row keeps
// the positions asked; there is no single-shot authentication (the OTP check never matches).
import { ParameterError } from '../errors.ts';
import { givenOrGenerated, seedEntry } from './enrollment.ts';
import { sameOtp } from './oath.ts';
import { type PrivacyideaConversion, type PrivacyideaStoredToken, textSecret } from './privacyidea.ts';
import { randomOf } from './random.ts';
import {
  type ChallengeOptions,
  type ChallengeSpec,
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type TokenState,
  TokenType,
} from './token-type.ts';

export const DEFAULT_CHALLENGE_TEXT = 'Please enter the positions {0!s} from your secret.';
const DEFAULT_POSITION_COUNT = 2;
const MAX_POSITION_COUNT = 32;

/** The characters (code points, as Python indexes a str) of the secret. */
function secretOf(token: TokenState): string[] {
  return [...token.key().toString('utf8')];
}

export class IndexedSecretType extends TokenType {
  readonly type = 'indexedsecret';
  readonly prefix = 'PIIX';
  readonly description = 'IndexedSecret: Request certain positions of a shared secret from the user.';
  override readonly challengeAlways = true;

  /** `otpkey` is the secret as text; without it (or with `genkey`) 40 hex characters are made. */
  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const { secret, generated } = givenOrGenerated(
      req.params,
      (otpkey) => otpkey,
      () => randomOf(req.random).bytes(20).toString('hex'),
    );
    if ([...secret].length > 1024) throw new ParameterError('The secret is longer than 1024 characters');
    const detail = generated ? { otpkey: seedEntry(secret) } : {};
    return { key: Buffer.from(secret, 'utf8'), info: {}, detail };
  }

  /**
   * `indexedsecret_count` (authentication policy, default 2) random 1-based positions, repeats
   * possible as in privacyIDEA; the message is `indexedsecret_challenge_text` (a `\,` is a comma)
   * or the default, with `{0!s}` (or `{0}`) replaced by the positions.
   */
  override challenge(token: TokenState, opts: ChallengeOptions): ChallengeSpec {
    const length = secretOf(token).length;
    // privacyIDEA refuses the challenge with a ValidateError; no positions can be asked here.
    if (length === 0) return { message: 'The indexedsecret token has an empty secret.', data: '' };
    const countText = opts.policy('indexedsecret_count');
    const n = countText === undefined ? DEFAULT_POSITION_COUNT : Number.parseInt(countText, 10);
    const count = Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_POSITION_COUNT) : DEFAULT_POSITION_COUNT;
    const random = randomOf(opts.random);
    const positions = Array.from({ length: count }, () => random.int(1, length + 1));
    const list = positions.join(',');
    const text = (opts.policy('indexedsecret_challenge_text') ?? DEFAULT_CHALLENGE_TEXT).replace(/\\,/g, ',');
    return {
      message: text.replace(/\{0(!s)?\}/g, list),
      data: list,
      extra: { attributes: { random_positions: positions } },
    };
  }

  /** The answer must be the characters at the asked positions, in order. */
  override checkResponse(token: TokenState, response: string, data: string): OtpMatch | null {
    if (!/^\d+(,\d+)*$/.test(data)) return null;
    const positions = data.split(',').map(Number);
    const secret = secretOf(token);
    if (positions.some((i) => i < 1 || i > secret.length)) return null;
    if ([...response].length !== positions.length) return null;
    const expected = positions.map((i) => secret[i - 1]).join('');
    return sameOtp(expected, response) ? { counter: 0, newCount: token.count } : null;
  }

  /** No single-shot authentication: only the answer to a challenge counts. */
  checkOtp(): OtpMatch | null {
    return null;
  }

  /** privacyIDEA stores the secret itself. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    return textSecret(stored);
  }
}
