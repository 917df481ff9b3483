// The SMTP SMS provider (privacyIDEA's SmtpSMSProvider) against a real SMTP server
// (test/helpers/smtp-sink.ts): the mail goes to MAILTO with {phone} (after REGEXP) and {otp}
// filled, subject and body by default `{phone}` and `{otp}`; the definition it names reaches the
// mail channel; a server down, or no channel, is an SmsSendError with the reason; bad options are
// refused when the gateway is saved.
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ParameterError } from '../../../src/errors.ts';
import { SmsSendError } from '../../../src/gateways/sms/provider.ts';
import { smtpProvider } from '../../../src/gateways/sms/smtp.ts';
import { type MailMessage, type SmtpServerSettings, sendMail } from '../../../src/gateways/smtp/index.ts';
import { type SmtpSink, startSmtpSink } from '../../helpers/smtp-sink.ts';

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => sink.close());

const relay = (): SmtpServerSettings => ({
  server: '127.0.0.1',
  port: sink.port,
  username: sink.user,
  password: sink.password,
  sender: 'sms@example.com',
  tls: true,
  timeout: 5,
  cacertificate: sink.cert,
});

/** The channel core passes in: the one definition `relay`, sent for real to the sink. */
const identifiers: string[] = [];
const env = {
  log: pino({ level: 'silent' }),
  scriptsDir: '/nonexistent',
  mail: async (identifier: string, mail: MailMessage) => {
    identifiers.push(identifier);
    if (identifier !== 'relay') throw new Error(`there is no SMTP server definition '${identifier}'`);
    await sendMail(relay(), mail);
  },
};
const gateway = (options: Record<string, string>) => ({
  options: { SMTPIDENTIFIER: 'relay', MAILTO: '{phone}@sms.example.com', ...options },
  headers: {},
});

describe('the SMTP SMS provider', () => {
  it('mails the message to MAILTO through SMTPIDENTIFIER, with {phone} and {otp} filled', async () => {
    await smtpProvider.send(gateway({ REGEXP: '/[+ ]//' }), '+49 170 123', 'Your code 123456', env);
    expect(await sink.nextMail()).toMatchObject({
      from: 'sms@example.com',
      to: ['49170123@sms.example.com'],
      subject: '49170123',
      body: 'Your code 123456',
    });
    await smtpProvider.send(
      gateway({ SUBJECT: 'SMS to {phone}', BODY: 'otp={otp} {other}', MAILTO: 'gw+{otp}@sms.example.com' }),
      '0170',
      '654321',
      env,
    );
    expect(await sink.nextMail()).toMatchObject({
      to: ['gw+654321@sms.example.com'],
      subject: 'SMS to 0170',
      body: 'otp=654321 {other}',
    });
    expect(identifiers.every((i) => i === 'relay')).toBe(true);
  });

  it('says why a message was not sent: server down, unknown definition, no mail channel', async () => {
    const failure = (settings = gateway({}), e: typeof env | Omit<typeof env, 'mail'> = env) =>
      smtpProvider.send(settings, '0170', '123456', e).then(
        () => 'sent',
        (err: Error) => {
          expect(err).toBeInstanceOf(SmsSendError);
          return err.message;
        },
      );
    await sink.stop();
    try {
      expect(await failure()).toMatch(
        /^the mail to the SMS gateway could not be sent through relay: .*refused/i,
      );
    } finally {
      await sink.start();
    }
    expect(await failure(gateway({ SMTPIDENTIFIER: 'nothere' }))).toMatch(
      /through nothere: there is no SMTP server definition 'nothere'/,
    );
    expect(await failure(gateway({}), { log: env.log, scriptsDir: env.scriptsDir })).toBe(
      'no mail channel to send through',
    );
  });

  it('refuses a gateway without SMTPIDENTIFIER or MAILTO, or with a malformed REGEXP', () => {
    expect(() => smtpProvider.check(gateway({}), env)).not.toThrow();
    expect(() => smtpProvider.check(gateway({ SMTPIDENTIFIER: '' }), env)).toThrow(ParameterError);
    expect(() => smtpProvider.check(gateway({ MAILTO: ' ' }), env)).toThrow(
      "Missing parameter: 'option.MAILTO'",
    );
    expect(() => smtpProvider.check(gateway({ REGEXP: 'x' }), env)).toThrow(/REGEXP must look like/);
  });
});
