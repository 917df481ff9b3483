// The e-mail token (reference 3.1 `email`, 4.3): a PIN-only request always starts a challenge and
// mails the value through the SMTP server definition of the system setting `email.identifier`.
// The address is the tokeninfo `email`, or with `dynamic_email` the owner's address in the user
// store at the time of the challenge. Subject and body come from the authentication policies
// `emailsubject` (default "Your OTP") and `emailtext` (default "<otp>"), with tags; a body that is
// an HTML document is sent as text/html.
import { ParameterError } from '../errors.ts';
import { isTrue } from '../is-true.ts';
import { fillTags, MessageOtpType, type MessageTags } from './message-otp.ts';
import {
  ChallengeDeliveryError,
  type ChallengeOptions,
  type EnrollRequest,
  type Outbox,
  type TokenState,
  type TypeSettings,
} from './token-type.ts';

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
  protected readonly challengeTextAction = 'email_challenge_text';

  protected enrollInfo(req: EnrollRequest): Record<string, string> {
    if (isTrue(req.params.dynamic_email ?? '')) return { dynamic_email: 'True' };
    const email = (req.params.email ?? '').trim();
    if (email === '') throw ParameterError.missing('email');
    if (!ADDRESS.test(email) || email.length > 255)
      throw new ParameterError(`'${email}' is not an e-mail address`);
    return { email };
  }

  /** Where the mail goes: the owner's address for a dynamic token, else the enrolled one. */
  private recipient(token: TokenState, tags: MessageTags): string {
    const to = isTrue(token.info.dynamic_email ?? '') ? (tags.email ?? '') : (token.info.email ?? '');
    if (to === '')
      throw new ChallengeDeliveryError(
        this.notSentMessage,
        `the token ${token.serial} has no e-mail address`,
      );
    return to;
  }

  protected async deliver(token: TokenState, tags: MessageTags, opts: ChallengeOptions): Promise<void> {
    const to = this.recipient(token, tags);
    const identifier = opts.settings?.get('email.identifier') ?? '';
    if (identifier === '' || !opts.outbox)
      throw new ChallengeDeliveryError(
        this.notSentMessage,
        'the system setting email.identifier names no SMTP server',
      );
    const body = fillTags(opts.policy('emailtext') ?? '<otp>', tags);
    const subject = fillTags(opts.policy('emailsubject') ?? 'Your OTP', tags);
    try {
      await opts.outbox.mail(identifier, {
        to,
        subject,
        body,
        mimetype: HTML_DOCUMENT.test(body) ? 'html' : 'plain',
      });
    } catch (e) {
      throw new ChallengeDeliveryError(this.notSentMessage, (e as Error).message);
    }
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
