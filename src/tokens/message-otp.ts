// What the token types share that send their one-time value in a message (e-mail and SMS;
// reference 3.1, 4.3): an HOTP seed, an address given at enrollment or read from the owner's entry
// in the user store at each challenge (`dynamic_…`), a PIN-only request that always starts a
// challenge, and a value spent per challenge. The challenge moves the counter on by one and sends
// the value of the new counter, so that a newer challenge voids the older ones — unless
// `<prefix>.concurrent_challenges` is set, when each challenge keeps the counter of its own value
// (never the value itself) and stays answerable until it expires. A kind says what its address
// is and how a message goes out (`send`, through a channel of the outbox); the texts, the tags,
// the definition to send through and the failure message follow one pattern here.
import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { givenOrGenerated, otplenOf } from './enrollment.ts';
import { findCounter, hotpValue } from './oath.ts';
import { hexSeed, type PrivacyideaConversion, type PrivacyideaStoredToken } from './privacyidea.ts';
import { randomOf } from './random.ts';
import {
  ChallengeDeliveryError,
  type ChallengeOptions,
  type ChallengeSpec,
  type Enrollment,
  type EnrollRequest,
  type OtpMatch,
  type Outbox,
  type TokenState,
  TokenType,
  type TypeSettings,
} from './token-type.ts';

const SEED_BYTES = 20;

/**
 * Where a kind's messages go: the tokeninfo key of the enrolled address (`email`, `phone`), the
 * enrollment flag that reads it from the user store instead (`dynamic_email`), the owner's
 * attribute read then (`email`, `mobile`), and what an address is, in words for errors.
 */
export interface AddressKeys {
  info: string;
  dynamic: string;
  ownerAttribute: string;
  what: string;
}

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
  /**
   * The prefix of the kind's system settings: `<prefix>.identifier` (the definition to send
   * through), `<prefix>.concurrent_challenges`.
   */
  protected abstract readonly settingsPrefix: string;
  /** The system setting of the challenge validity in seconds, and privacyIDEA's default of it. */
  protected abstract readonly validity: { setting: string; defaultSeconds: number };
  /** What the kind's definitions are, in words for the log (`SMTP server`, `SMS gateway`). */
  protected abstract readonly definitionKind: string;
  /** The authentication policy action of the challenge message (`email_challenge_text`). */
  protected abstract readonly challengeTextAction: string;
  protected abstract readonly address: AddressKeys;
  /** What the client is told when the message could not be sent. */
  abstract readonly notSentMessage: string;

  /** Whether `value` can be an address of the kind (the gateway has the last word). */
  protected abstract isAddress(value: string): boolean;

  /**
   * Sends the message with `tags` (`{otp}` included) to `to` through the definition `via`;
   * rejects with the reason when it is not sent.
   */
  protected abstract send(
    outbox: Outbox,
    via: string,
    to: string,
    tags: MessageTags,
    policy: ChallengeOptions['policy'],
  ): Promise<void>;

  /** The tokeninfo of an enrollment: the address, or that it is read from the user store. */
  protected enrollInfo(req: EnrollRequest): Record<string, string> {
    const { info, dynamic, what } = this.address;
    if (isTrue(req.params[dynamic] ?? '')) return { [dynamic]: 'True' };
    const value = (req.params[info] ?? '').trim();
    if (value === '') throw ParameterError.missing(info);
    if (!this.isAddress(value)) throw new ParameterError(`'${value}' is not a valid ${what}`);
    return { [info]: value };
  }

  /** The definition the token sends through: the system setting `<prefix>.identifier`. */
  protected definitionOf(_token: TokenState, settings: TypeSettings | undefined): string {
    return settings?.get(`${this.settingsPrefix}.identifier`) ?? '';
  }

  /** Where the message goes: the owner's address for a dynamic token, else the enrolled one. */
  private recipient(token: TokenState, tags: MessageTags): string {
    const { info, dynamic, ownerAttribute, what } = this.address;
    const to = isTrue(token.info[dynamic] ?? '') ? (tags[ownerAttribute] ?? '') : (token.info[info] ?? '');
    if (to === '')
      throw new ChallengeDeliveryError(this.notSentMessage, `the token ${token.serial} has no ${what}`);
    return to;
  }

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
    const validity = Number(opts.settings?.get(this.validity.setting));
    return {
      newCount,
      data: concurrent ? String(newCount) : '',
      ...(text !== undefined ? { message: text.replace(/\\,/g, ',') } : {}),
      validity: Number.isInteger(validity) && validity > 0 ? validity : this.validity.defaultSeconds,
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
    const to = this.recipient(token, tags);
    const via = this.definitionOf(token, opts.settings);
    if (via === '' || !opts.outbox)
      throw new ChallengeDeliveryError(
        this.notSentMessage,
        `the system setting ${this.settingsPrefix}.identifier names no ${this.definitionKind}`,
      );
    try {
      await this.send(opts.outbox, via, to, tags, opts.policy);
    } catch (e) {
      throw new ChallengeDeliveryError(this.notSentMessage, (e as Error).message);
    }
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

  /** privacyIDEA stores the seed as hex text. */
  override fromPrivacyidea(stored: PrivacyideaStoredToken): PrivacyideaConversion {
    return hexSeed(stored);
  }
}
