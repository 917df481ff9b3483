// privacyIDEA's SmtpSMSProvider: the message goes as a mail to an e-mail-to-SMS address
// (MAILTO, e.g. `{phone}@sms.example.com`) through an SMTP server definition (SMTPIDENTIFIER).
// SUBJECT (default `{phone}`) and BODY (default `{otp}`) take the tags `{phone}` (after REGEXP)
// and `{otp}` (the whole message, as privacyIDEA names it). The mail itself is sent by the
// channel core passes in the environment (SendEnvironment.mail), which knows the definitions.
import { ParameterError } from '../../errors.ts';
import { checkMangling, manglePhone, REGEXP_PARAMETER } from './common.ts';
import { type GatewaySettings, type SendEnvironment, type SmsProvider, SmsSendError } from './provider.ts';

const parameters = {
  SMTPIDENTIFIER: {
    required: true,
    description: 'Your SMTP configuration, that should be used to send the email.',
  },
  MAILTO: {
    required: true,
    description: 'The email address the SMS should be sent to. You can use the tags {phone} and {otp}.',
  },
  SUBJECT: { description: 'The optional subject of the email. Use tags {phone} and {otp}.' },
  BODY: { description: 'The optional body of the email. Use tags {phone} and {otp}.' },
  REGEXP: REGEXP_PARAMETER,
} as const;

/** Replaces privacyIDEA's two tags; any other brace stays as it is. */
function filled(text: string, tags: { phone: string; otp: string }): string {
  return text.replace(/\{(phone|otp)\}/g, (_all, key: 'phone' | 'otp') => tags[key]);
}

export const smtpProvider: SmsProvider = {
  module: 'privacyidea.lib.smsprovider.SmtpSMSProvider.SmtpSMSProvider',
  shortName: 'smtp',
  optionsAllowed: false,
  headersAllowed: false,
  parameters,

  check({ options }: GatewaySettings): void {
    if ((options.SMTPIDENTIFIER ?? '').trim() === '') throw ParameterError.missing('option.SMTPIDENTIFIER');
    if ((options.MAILTO ?? '').trim() === '') throw ParameterError.missing('option.MAILTO');
    checkMangling(options.REGEXP);
  },

  async send({ options }: GatewaySettings, phone: string, message: string, env: SendEnvironment) {
    if (!env.mail) throw new SmsSendError('no mail channel to send through');
    const tags = { phone: manglePhone(phone, options.REGEXP), otp: message };
    const identifier = options.SMTPIDENTIFIER ?? '';
    try {
      await env.mail(identifier, {
        to: filled(options.MAILTO ?? '', tags),
        subject: filled(options.SUBJECT || '{phone}', tags),
        body: filled(options.BODY || '{otp}', tags),
        mimetype: 'plain',
      });
    } catch (e) {
      throw new SmsSendError(
        `the mail to the SMS gateway could not be sent through ${identifier}: ${(e as Error).message}`,
      );
    }
  },
};
