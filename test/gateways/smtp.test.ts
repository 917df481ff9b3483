// sendMail (src/gateways/smtp/index.ts) against a real SMTP server (test/helpers/smtp-sink.ts): STARTTLS
// with AUTH, an HTML body, and each failure named by its reason; failureOf's reading of errors
// that the peer cannot produce on demand.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  failureOf,
  SmtpSendError,
  type SmtpServerSettings,
  sendMail,
} from '../../src/gateways/smtp/index.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => sink.close());

const settings = (extra: Partial<SmtpServerSettings> = {}): SmtpServerSettings => ({
  server: '127.0.0.1',
  port: sink.port,
  username: sink.user,
  password: sink.password,
  sender: 'otp@example.com',
  tls: true,
  timeout: 5,
  cacertificate: sink.cert,
  ...extra,
});
const mail = {
  to: 'bob@example.com',
  subject: 'Grüße',
  body: '<html><b>123456</b></html>',
  mimetype: 'html' as const,
};

describe('sendMail', () => {
  it('sends over STARTTLS with AUTH; the peer receives subject, body and MIME type', async () => {
    await sendMail(settings(), mail);
    const received = await sink.nextMail();
    expect(received).toMatchObject({ from: 'otp@example.com', to: ['bob@example.com'], subject: 'Grüße' });
    expect(received.contentType).toMatch(/^text\/html/);
    expect(received.body).toBe('<html><b>123456</b></html>');
  });

  it('names the reason of each failure', async () => {
    const reason = (s: SmtpServerSettings) =>
      sendMail(s, mail).then(
        () => 'sent',
        (e: SmtpSendError) => e.reason,
      );
    expect(await reason(settings({ password: 'wrong' }))).toBe('authentication failed');
    expect(await reason(settings({ cacertificate: '' }))).toBe('TLS failure');
    sink.stall = true;
    try {
      expect(await reason(settings({ timeout: 1 }))).toBe('timeout');
    } finally {
      sink.stall = false;
    }
    await sink.stop();
    try {
      expect(await reason(settings())).toBe('connection refused');
    } finally {
      await sink.start();
    }
  });
});

describe('failureOf', () => {
  it('reads nodemailer errors as reasons', () => {
    expect(failureOf(Object.assign(new Error('550 no such user'), { responseCode: 550 })).reason).toBe(
      'rejected',
    );
    expect(failureOf(Object.assign(new Error('x'), { code: 'EAUTH' })).reason).toBe('authentication failed');
    expect(failureOf(new Error('something else')).reason).toBe('failed');
    const own = new SmtpSendError('timeout', 'late');
    expect(failureOf(own)).toBe(own);
  });
});
