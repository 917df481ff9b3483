// What the token types share that send their one-time value in a message (e-mail now, SMS next;
// reference 3.1, 4.3): an HOTP seed, a PIN-only request that always starts a challenge, and a
// value spent per challenge. The challenge moves the counter on by one and sends the value of the
// new counter, so that a newer challenge voids the older ones — unless `<prefix>.concurrent_challenges`
// is set, when each challenge keeps the counter of its own value (never the value itself) and stays
// answerable until it expires. A kind says where and how the value goes (`deliver`); the texts,
// the tags and the failure message follow one pattern here.
import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { givenOrGenerated, otplenOf } from './enrollment.ts';
import { findCounter, hotpValue } from './oath.ts';
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

/** privacyIDEA's validity of these challenges when the kind's setting is unset (seconds). */
const DEFAULT_VALIDITY = 120;
const SEED_BYTES = 20;

/** The values a message's tags are replaced with. */
export type MessageTags = Readonly<Record<string, string>>;

/**
 * Replaces `{tag}` (privacyIDEA's format tags) and the legacy `<otp>`, `<serial>` … in a text;
 * unknown tags stay as they are.
 */
export function fillTags(text: string, tags: MessageTags): string {
  return text
    .replace(/\{(\w+)\}/g, (all, key: string) => tags[key] ?? all)
    .replace(/<(otp|serial|user|realm)>/g, (all, key: string) => tags[key] ?? all);
}

export abstract class MessageOtpType extends TokenType {
  override readonly challengeAlways = true;
  /** The prefix of the kind's system settings: `<prefix>.validtime`, `<prefix>.concurrent_challenges`. */
  protected abstract readonly settingsPrefix: string;
  /** The authentication policy action of the challenge message (`email_challenge_text`). */
  protected abstract readonly challengeTextAction: string;
  /** What the client is told when the message could not be sent. */
  abstract readonly notSentMessage: string;

  /** The kind's tokeninfo of an enrollment (the address, or that it is read from the user store). */
  protected abstract enrollInfo(req: EnrollRequest): Record<string, string>;

  /**
   * Sends `otp` to the token's owner; throws a ChallengeDeliveryError with notSentMessage when it
   * cannot. `tags` are those of the texts, `{otp}` included.
   */
  protected abstract deliver(token: TokenState, tags: MessageTags, opts: ChallengeOptions): Promise<void>;

  /** The seed: `otpkey` (hex) or generated; nothing of it is shown, the value always comes by message. */
  async enroll(req: EnrollRequest): Promise<Enrollment> {
    const { secret } = givenOrGenerated(
      req.params,
      (otpkey) => {
        if (!/^([0-9a-fA-F]{2})+$/.test(otpkey)) throw new ParameterError('The otpkey must be hex');
        return Buffer.from(otpkey, 'hex');
      },
      () => randomOf(req.random).bytes(SEED_BYTES),
    );
    return { key: secret, otplen: otplenOf(req), info: this.enrollInfo(req), detail: {} };
  }

  /** No single-shot authentication (mode C): only the answer to a challenge counts. */
  checkOtp(): OtpMatch | null {
    return null;
  }

  /** The next counter is spent by this challenge; its value goes out in deliverChallenge. */
  override challenge(token: TokenState, opts: ChallengeOptions): ChallengeSpec {
    const newCount = token.count + 1;
    const concurrent = isTrue(opts.settings?.get(`${this.settingsPrefix}.concurrent_challenges`) ?? '');
    const text = opts.policy(this.challengeTextAction);
    const validity = Number(opts.settings?.get(`${this.settingsPrefix}.validtime`));
    return {
      newCount,
      data: concurrent ? String(newCount) : '',
      ...(text !== undefined ? { message: text.replace(/\\,/g, ',') } : {}),
      validity: Number.isInteger(validity) && validity > 0 ? validity : DEFAULT_VALIDITY,
    };
  }

  override async deliverChallenge(
    token: TokenState,
    spec: ChallengeSpec,
    opts: ChallengeOptions,
  ): Promise<void> {
    const otp = this.valueAt(token, spec.newCount ?? token.count);
    const owner = (await opts.owner?.()) ?? {};
    const tags: MessageTags = {
      ...owner,
      user: owner.username ?? '',
      otp,
      serial: token.serial,
      tokentype: token.type,
      challenge: '',
    };
    await this.deliver(token, tags, opts);
  }

  /**
   * The answer: the value of the challenge's own counter (concurrent challenges), else one of the
   * counters from the token's on (only the last challenge's value is still ahead).
   */
  override checkResponse(token: TokenState, response: string, data: string): OtpMatch | null {
    if (response.length !== token.otplen || !/^\d+$/.test(response)) return null;
    const own = /^\d+$/.test(data) ? Number(data) : undefined;
    const from = own ?? token.count;
    const c = findCounter(
      token.key(),
      response,
      from,
      own === undefined ? token.countWindow : 1,
      token.otplen,
      'sha1',
    );
    return c < 0 ? null : { counter: c, newCount: Math.max(token.count, c + 1) };
  }

  override previousOtp(token: TokenState): string | undefined {
    return token.count > 0 ? this.valueAt(token, token.count - 1) : undefined;
  }

  private valueAt(token: TokenState, counter: number): string {
    return hotpValue(token.key(), counter, token.otplen);
  }
}
