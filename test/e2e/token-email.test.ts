// The e-mail token over HTTP (reference 3.1, 4.3, 8.1) against a real SMTP server
// (test/helpers/smtp-sink.ts): the PIN alone starts a challenge and mails the value, read here from
// the received mail and answered through /validate/check; the policies emailsubject, emailtext and
// email_challenge_text with their tags; dynamic_email; email.validtime and
// email.concurrent_challenges; the failures (listener down, wrong password, timeout, untrusted
// certificate) with and without exception=1; /validate/triggerchallenge; /system/test/email.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { saveSmtpServer } from '../../src/core/smtpserver/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { initOk, useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => sink.close());

const ALICE = pwUser('alice', 1001, 'Alice Liddell,,,,alice@wonderland.example');

describe.each(testDialects())('e-mail tokens on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    { realms: { mail: [ALICE, pwUser('bob', 1002)] }, reset: ['tokens', 'policies'] },
    (t) => ({ s, op, admin } = t),
  );

  const relay = (extra: Record<string, string> = {}) =>
    saveSmtpServer(op, 'relay', {
      server: '127.0.0.1',
      port: String(sink.port),
      username: sink.user,
      password: sink.password,
      sender: 'otp@example.com',
      tls: 'True',
      timeout: '5',
      cacertificate: sink.cert,
      ...extra,
    });
  const setConfig = async (values: Record<string, string>) =>
    ok(await s.call('POST', '/system/setConfig', values, admin));

  beforeEach(async () => {
    await relay();
    await setConfig({ 'email.identifier': 'relay' });
  });
  afterEach(async () => {
    sink.stall = false;
    await s.rt.store.db.deleteFrom('smtpserver').execute();
    for (const key of ['email.identifier', 'email.validtime', 'email.concurrent_challenges'])
      await s.call('DELETE', `/system/${key}`, {}, admin);
  });

  const enroll = async (params: Record<string, string>) =>
    (await initOk(s, { type: 'email', pin: 'mailpin', user: 'alice', realm: 'mail', ...params }, admin)).json
      .detail.serial as string;
  const check = (params: Record<string, string>) => s.call('POST', '/validate/check', params);
  /** The PIN alone: the challenge, and the mail it sent. */
  const challenge = async (params: Record<string, string> = {}) => {
    const r = await validateOk(s, { user: 'alice', realm: 'mail', pass: 'mailpin', ...params });
    expect(r.json.result.value).toBe(false);
    expect(r.json.result.authentication).toBe('CHALLENGE');
    return { detail: r.json.detail, mail: await sink.nextMail() };
  };
  const answer = async (transactionId: string, otp: string) =>
    (await check({ user: 'alice', realm: 'mail', pass: otp, transaction_id: transactionId })).json.result
      .value as boolean;

  it('mails the value on a PIN-only request and accepts it as the answer, once', async () => {
    const serial = await enroll({ email: 'alice@example.com' });
    expect(serial).toMatch(/^PIEM/);
    const { detail, mail } = await challenge();
    expect(detail.message).toBe('Enter the OTP from the Email');
    expect(detail.multi_challenge).toEqual([
      expect.objectContaining({ serial, type: 'email', client_mode: 'interactive' }),
    ]);
    expect(mail).toMatchObject({ from: 'otp@example.com', to: ['alice@example.com'], subject: 'Your OTP' });
    expect(mail.contentType).toMatch(/^text\/plain/);
    expect(mail.body).toMatch(/^\d{6}$/);
    // No single-shot login with PIN and value.
    expect(
      (await check({ user: 'alice', realm: 'mail', pass: `mailpin${mail.body}` })).json.result.value,
    ).toBe(false);
    expect(await answer(detail.transaction_id, mail.body)).toBe(true);
    expect(await answer(detail.transaction_id, mail.body)).toBe(false);
  });

  it('fills subject and body from emailsubject and emailtext, and the message from email_challenge_text', async () => {
    const serial = await enroll({ email: 'alice@example.com' });
    await setPolicy(op, 'mailtext', {
      scope: 'authentication',
      action: {
        emailsubject: 'Code for {user} ({serial})',
        emailtext: 'Hello {givenname}: {otp}',
        email_challenge_text: 'Look in your mailbox',
      },
    });
    const { detail, mail } = await challenge();
    expect(detail.message).toBe('Look in your mailbox');
    expect(mail.subject).toBe(`Code for alice (${serial})`);
    const otp = /^Hello Alice: (\d{6})$/.exec(mail.body)?.[1];
    expect(otp).toBeDefined();
    expect(await answer(detail.transaction_id, otp!)).toBe(true);

    await setPolicy(op, 'mailtext', {
      scope: 'authentication',
      action: { emailtext: '<html><body><b>{otp}</b></body></html>' },
    });
    const html = await challenge();
    expect(html.mail.contentType).toMatch(/^text\/html/);
    const code = /<b>(\d{6})<\/b>/.exec(html.mail.body)?.[1];
    expect(await answer(html.detail.transaction_id, code!)).toBe(true);
  });

  it('dynamic_email mails the address of the user store', async () => {
    await enroll({ dynamic_email: '1' });
    const { detail, mail } = await challenge();
    expect(mail.to).toEqual(['alice@wonderland.example']);
    expect(await answer(detail.transaction_id, mail.body)).toBe(true);
  });

  it('voids an older challenge unless email.concurrent_challenges; email.validtime is the validity', async () => {
    const serial = await enroll({ email: 'alice@example.com' });
    await setConfig({ 'email.validtime': '300' });
    const first = await challenge();
    const second = await challenge();
    expect(first.mail.body).not.toBe(second.mail.body);
    expect(await answer(first.detail.transaction_id, first.mail.body)).toBe(false);
    expect(await answer(second.detail.transaction_id, second.mail.body)).toBe(true);
    const rows = await s.rt.store.db
      .selectFrom('challenge')
      .selectAll()
      .where('serial', '=', serial)
      .execute();
    for (const row of rows) expect(Date.parse(row.expiration) - Date.parse(row.timestamp)).toBe(300_000);

    await setConfig({ 'email.concurrent_challenges': 'True' });
    const a = await challenge();
    const b = await challenge();
    // The challenge keeps the counter of its value, never the value.
    const stored = await s.rt.store.db
      .selectFrom('challenge')
      .select('data')
      .where('transaction_id', '=', a.detail.transaction_id)
      .executeTakeFirstOrThrow();
    expect(stored.data).not.toContain(a.mail.body);
    expect(await answer(a.detail.transaction_id, a.mail.body)).toBe(true);
    expect(await answer(b.detail.transaction_id, b.mail.body)).toBe(true);
    expect(await answer(a.detail.transaction_id, a.mail.body)).toBe(false);
  });

  it('says the mail could not be sent (HTTP 500 with exception=1): listener down, wrong password, timeout, TLS', async () => {
    const serial = await enroll({ email: 'alice@example.com' });
    const received = sink.mails.length;
    const notSent = async () => {
      const r = await validateOk(s, { user: 'alice', realm: 'mail', pass: 'mailpin' });
      expect(r.json.result.value).toBe(false);
      expect(r.json.detail.message).toBe('The PIN was correct, but the EMail could not be sent!');
      expect(r.json.detail.multi_challenge).toEqual([]);
      const e = await check({ user: 'alice', realm: 'mail', pass: 'mailpin', exception: '1' });
      expect(e.status).toBe(500);
      expect(e.json.result.status).toBe(false);
      expect(e.json.result.error.message).toMatch(/EMail could not be sent/);
    };
    await sink.stop();
    try {
      await notSent();
    } finally {
      await sink.start();
    }
    await relay({ password: 'wrong' });
    await notSent();
    await relay({ password: sink.password, cacertificate: '' });
    await notSent();
    await relay({ cacertificate: sink.cert, timeout: '1' });
    sink.stall = true;
    await notSent();
    sink.stall = false;
    await setConfig({ 'email.identifier': 'nothere' });
    await notSent();
    expect(
      await s.rt.store.db.selectFrom('challenge').selectAll().where('serial', '=', serial).execute(),
    ).toEqual([]);
    expect(sink.mails.length).toBe(received);
    // Working again, the token works again.
    await setConfig({ 'email.identifier': 'relay' });
    await relay({ timeout: '5' });
    const { detail, mail } = await challenge();
    expect(await answer(detail.transaction_id, mail.body)).toBe(true);
  });

  it('a hanging mail server holds only its own request: another login is answered meanwhile', async () => {
    await enroll({ email: 'alice@example.com' });
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'spass', pin: 'bobpin', user: 'bob', realm: 'mail' },
        admin,
      ),
    );
    await relay({ timeout: '3' });
    sink.stall = true;
    const before = sink.connections;
    let mailAnswered = false;
    const hanging = check({ user: 'alice', realm: 'mail', pass: 'mailpin' }).then((r) => {
      mailAnswered = true;
      return r;
    });
    // Once the mail's connection waits for the greeting, the other login goes through.
    while (sink.connections === before) await new Promise((r) => setTimeout(r, 20));
    const other = await validateOk(s, { user: 'bob', realm: 'mail', pass: 'bobpin' });
    expect(other.json.result.value).toBe(true);
    expect(mailAnswered).toBe(false);
    const r = await hanging;
    expect(r.json.detail.message).toBe('The PIN was correct, but the EMail could not be sent!');
  });

  it('triggerchallenge mails the value too', async () => {
    const serial = await enroll({ email: 'alice@example.com' });
    const r = await s.call('POST', '/validate/triggerchallenge', { serial }, admin);
    expect(ok(r)).toBe(1);
    const mail = await sink.nextMail();
    expect(await answer(r.json.detail.transaction_id, mail.body)).toBe(true);
  });

  it('POST /system/test/email sends a test mail; failures and other types answer false', async () => {
    const r = await s.call('POST', '/system/test/email', { 'email.recipient': 'root@example.com' }, admin);
    expect(ok(r)).toBe(true);
    expect(r.json.detail.message).toBe('Successfully sent email. Please check your inbox.');
    expect(await sink.nextMail()).toMatchObject({ to: ['root@example.com'], subject: 'Your TEST OTP' });
    const failed = await s.call(
      'POST',
      '/system/test/email',
      { 'email.recipient': 'root@example.com', 'email.identifier': 'nothere' },
      admin,
    );
    expect(failed.status).toBe(200);
    expect(failed.json.result.value).toBe(false);
    expect(failed.json.detail.message).toMatch(/nothere/);
    expect(ok(await s.call('POST', '/system/test/hotp', {}, admin))).toBe(false);
    expect((await s.call('POST', '/system/test/email', {}, admin)).json.result.status).toBe(false);
  });
});
