// A token type that exists only in the tests, to show that adding a type is one file plus one
// registry line: test/core/token-plugin.test.ts registers it in a test registry, and the token
// service enrolls, verifies, resynchronizes, finds and imports it, and the policy definitions carry
// its actions, with nothing else changed. Its values are the HOTP values of its counter.
import { intAction, strAction } from '../../src/policy/index.ts';
import { givenOrGenerated, seedEntry } from '../../src/tokens/enrollment.ts';
import { findCounter } from '../../src/tokens/oath.ts';
import { randomOf } from '../../src/tokens/random.ts';
import {
  type Enrollment,
  type EnrollRequest,
  type ImportedToken,
  type OtpMatch,
  type TokenFileEntry,
  type TokenState,
  TokenType,
} from '../../src/tokens/token-type.ts';

const CALLER_ACTIONS = { toy_otplen: intAction('Default OTP length of toy tokens.', 'toy') };

export class ToyType extends TokenType {
  readonly type = 'toy';
  readonly prefix = 'TOY';
  readonly description = 'Toy: a token type of the tests.';
  override readonly policyActions = {
    admin: CALLER_ACTIONS,
    user: CALLER_ACTIONS,
    enrollment: { toy_greeting: strAction('Greeting in the enrollment detail of toy tokens.', 'toy') },
  };
  override readonly parameterDefaults = { otplen: 'toy_otplen' };
  override readonly enrollmentActions = ['toy_greeting'];
  override readonly verifiableEnrollment = true;
  override readonly otpSearchable = true;
  override readonly importable = true;

  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const { secret: key, generated } = givenOrGenerated(
      req.params,
      (hex) => Buffer.from(hex, 'hex'),
      () => randomOf(req.random).bytes(20),
    );
    return {
      key,
      otplen: Number(req.params.otplen || '6'),
      info: { toy: 'enrolled' },
      detail: {
        greeting: req.policy?.('toy_greeting') ?? 'hello',
        ...(generated ? { otpkey: seedEntry(key.toString('hex')) } : {}),
      },
    };
  }

  checkOtp(token: TokenState, otp: string): OtpMatch | null {
    return this.match(token, otp, token.count, token.countWindow);
  }

  override resync(token: TokenState, otp1: string, otp2: string): OtpMatch | null {
    const c = this.find(token, otp1, token.count, token.syncWindow);
    return c >= 0 && this.find(token, otp2, c + 1, 1) === c + 1 ? { counter: c + 1, newCount: c + 2 } : null;
  }

  override searchOtp(token: TokenState, otp: string, window: number): OtpMatch | null {
    return this.match(token, otp, token.count, window);
  }

  override importedToken(entry: TokenFileEntry): ImportedToken {
    return { info: { toy: 'imported' }, count: entry.counter ?? 0 };
  }

  private find(token: TokenState, otp: string, from: number, count: number): number {
    return findCounter(token.key(), otp, from, count, token.otplen, 'sha1');
  }

  private match(token: TokenState, otp: string, from: number, count: number): OtpMatch | null {
    const c = this.find(token, otp, from, count);
    return c < 0 ? null : { counter: c, newCount: c + 1 };
  }
}
