// The SMS token (reference 3.1 `sms`, 4.3): the e-mail token's pattern over an SMS gateway. A
// PIN-only request always starts a challenge and sends the value to the tokeninfo `phone`, or with
// `dynamic_phone` to the owner's `mobile` in the user store at the time of the challenge. The
// gateway is the token's `sms.identifier` (chosen at enrollment among those the caller's
// `sms_gateways` policy lists), else the system setting `sms.identifier`. The text comes from the
// authentication policy `smstext` (default "<otp>"), with tags; a challenge is valid for
// `sms.providerTimeout` seconds (default 300), as in privacyIDEA.
import type { ScopedActions } from '../policy/index.ts';
import { fillTags, MessageOtpType, type MessageTags } from './message-otp.ts';
import type { ChallengeOptions, EnrollRequest, Outbox, TokenState, TypeSettings } from './token-type.ts';

/** Phone numbers as E.164 and local forms write them (the same rule as the SMS gateways'). */
const PHONE = /^[+0-9 ()\-/.]{1,64}$/;
/** The tokeninfo and enrollment parameter naming the token's own gateway. */
const GATEWAY_KEY = 'sms.identifier';

const GATEWAY_CHOICE = {
  sms_gateways: {
    type: 'str',
    description: 'The SMS gateways (identifiers separated by blanks) that may be chosen for a new SMS token.',
    group: 'sms',
  },
} as const;

export class SmsType extends MessageOtpType {
  readonly type = 'sms';
  readonly prefix = 'PISM';
  readonly description = 'SMS: Send a One Time Password to the users mobile phone.';
  override readonly challengeMessage = 'Enter the OTP from the SMS:';
  override readonly notSentMessage = 'The PIN was correct, but the SMS could not be sent!';
  override readonly policyActions: ScopedActions = { admin: GATEWAY_CHOICE, user: GATEWAY_CHOICE };
  override readonly parameterChoices = { [GATEWAY_KEY]: 'sms_gateways' };
  protected readonly settingsPrefix = 'sms';
  protected readonly validity = { setting: 'sms.providerTimeout', defaultSeconds: 300 };
  protected readonly definitionKind = 'SMS gateway';
  protected readonly challengeTextAction = 'sms_challenge_text';
  protected readonly address = {
    info: 'phone',
    dynamic: 'dynamic_phone',
    ownerAttribute: 'mobile',
    what: 'phone number',
  };

  protected isAddress(value: string): boolean {
    return PHONE.test(value);
  }

  /** The address, and the gateway the request chose (the token service checked the choice). */
  protected override enrollInfo(req: EnrollRequest): Record<string, string> {
    const gateway = (req.params[GATEWAY_KEY] ?? '').trim();
    return { ...super.enrollInfo(req), ...(gateway !== '' ? { [GATEWAY_KEY]: gateway } : {}) };
  }

  /** The token's own gateway, else the system's. */
  protected override definitionOf(token: TokenState, settings: TypeSettings | undefined): string {
    return token.info[GATEWAY_KEY] || super.definitionOf(token, settings);
  }

  protected async send(
    outbox: Outbox,
    via: string,
    to: string,
    tags: MessageTags,
    policy: ChallengeOptions['policy'],
  ): Promise<void> {
    await outbox.sms(via, to, fillTags(policy('smstext') ?? '<otp>', tags));
  }
}
