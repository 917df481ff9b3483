// The e-mail token (reference 3.1 `email`, 4.3): a PIN-only request always starts a challenge and
// mails the value through the SMTP server definition of the token's tokeninfo `email.identifier`
// (as privacyIDEA keeps it per token; tokens imported from it carry it), else of the system
// setting `email.identifier`.
// The address is the tokeninfo `email`, or with `dynamic_email` the owner's address in the user
// store at the time of the challenge. Subject and body come from the authentication policies
// `emailsubject` (default "Your OTP") and `emailtext` (default "<otp>"), with tags; a body that is
// an HTML document is sent as text/html.
import { ParameterError } from '../errors.ts';
import { fillTags, MessageOtpType, type MessageTags } from './message-otp.ts';
import type { ChallengeOptions, Outbox, TokenState, TypeSettings } from './token-type.ts';

/** Enough of an address to refuse a typo; the SMTP server has the last word. */
const ADDRESS = /^[^\s@]+@[^\s@]+$/;
const HTML_DOCUMENT = /^\s*<(!doctype\s+html|html)[\s>]/i;

export class EmailType extends MessageOtpType {
  readonly type = 'email';
  readonly prefix = 'PIEM';
  readonly description = 'EMail: Send a One Time Password to the users email address.';
  override readonly challengeMessage = 'Enter the OTP from the Email';
  override readonly notSentMessage = 'The PIN was correct, but the EMail could not be sent!';
  protected readonly settingsPrefix = 'email';
  protected readonly validity = { setting: 'email.validtime', defaultSeconds: 120 };
  protected readonly definitionKind = 'SMTP server';
  protected readonly challengeTextAction = 'email_challenge_text';
  protected readonly address = {
    info: 'email',
    dynamic: 'dynamic_email',
    ownerAttribute: 'email',
    what: 'e-mail address',
  };

  protected override definitionOf(token: TokenState, settings: TypeSettings | undefined): string {
    return token.info['email.identifier'] || super.definitionOf(token, settings);
  }

  protected isAddress(value: string): boolean {
    return ADDRESS.test(value) && value.length <= 255;
  }

  protected async send(
    outbox: Outbox,
    via: string,
    to: string,
    tags: MessageTags,
    policy: ChallengeOptions['policy'],
  ): Promise<void> {
    const body = fillTags(policy('emailtext') ?? '<otp>', tags);
    const subject = fillTags(policy('emailsubject') ?? 'Your OTP', tags);
    await outbox.mail(via, { to, subject, body, mimetype: HTML_DOCUMENT.test(body) ? 'html' : 'plain' });
  }

  /**
   * privacyIDEA's test of the e-mail configuration: a mail to `email.recipient` through the SMTP
   * server definition `email.identifier` (the request's, else the system setting).
   */
  override async testConfig(
    params: Readonly<Record<string, string>>,
    env: { settings: TypeSettings; outbox: Outbox },
  ): Promise<{ value: boolean; description: string }> {
    const to = (params['email.recipient'] ?? '').trim();
    if (to === '') throw ParameterError.missing('email.recipient');
    const identifier = params['email.identifier'] || env.settings.get('email.identifier') || '';
    if (identifier === '') throw ParameterError.missing('email.identifier');
    try {
      await env.outbox.mail(identifier, {
        to,
        subject: 'Your TEST OTP',
        body: 'This is a test.',
        mimetype: 'plain',
      });
      return { value: true, description: 'Successfully sent email. Please check your inbox.' };
    } catch (e) {
      return { value: false, description: `The test mail could not be sent: ${(e as Error).message}` };
    }
  }
}
