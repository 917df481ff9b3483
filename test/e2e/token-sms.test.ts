// The SMS token over HTTP (reference 3.1, 4.3, 8.2) against real peers: an HTTP SMS gateway
// (test/helpers/http-sink.ts) and the SMTP provider through a real SMTP server
// (test/helpers/smtp-sink.ts). The PIN alone starts a challenge and sends the value, read here from
// what the peer received and answered through /validate/check; smstext and sms_challenge_text with
// tags; dynamic_phone from the user store's mobile number; the gateway of the system setting
// sms.identifier or of the token, chosen among those the sms_gateways policy lists;
// sms.providerTimeout and sms.concurrent_challenges; a failed send with and without exception=1.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { deletePolicy, setPolicy } from '../../src/core/policy/index.ts';
import { saveSmtpServer } from '../../src/core/smtpserver/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type HttpSink, startHttpSink } from '../helpers/http-sink.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { initOk, useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const HTTP = 'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider';
const SMTP = 'privacyidea.lib.smsprovider.SmtpSMSProvider.SmtpSMSProvider';
const NOT_SENT = 'The PIN was correct, but the SMS could not be sent!';

let http: HttpSink;
let smtp: SmtpSink;
beforeAll(async () => {
  http = await startHttpSink();
  smtp = await startSmtpSink();
});
afterAll(async () => {
  await http.close();
  await smtp.close();
});

// GECOS: name, room, mobile, phone, e-mail (src/resolvers/passwd.ts).
const ALICE = pwUser(
  'alice',
  1001,
  'Alice Liddell,R1,+49 170 5550001,+49 30 5550002,alice@wonderland.example',
);

/** What the HTTP gateway received last: the path, the phone number and the text. */
function lastSms(): { path: string; to: string; text: string } {
  const r = http.requests.at(-1);
  if (!r) throw new Error('the HTTP gateway received nothing');
  const form = new URLSearchParams(r.body);
  return { path: r.url, to: form.get('to') ?? '', text: form.get('text') ?? '' };
}

describe.each(testDialects())('SMS tokens on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    { realms: { phone: [ALICE, pwUser('bob', 1002)] }, reset: ['tokens', 'policies'] },
    (t) => ({ s, op, admin } = t),
  );

  /** An HTTP gateway posting `to` and `text` to the sink's `path` (or to `options.URL`). */
  const httpGateway = async (name: string, path: string, options: Record<string, string> = {}) =>
    ok(
      await s.call(
        'POST',
        '/smsgateway',
        {
          name,
          module: HTTP,
          'option.URL': `${http.url}${path}`,
          'option.HTTP_METHOD': 'POST',
          'option.CHECK_SSL': 'no',
          'option.SEND_DATA_AS_JSON': 'no',
          'option.to': '{phone}',
          'option.text': '{otp}',
          ...Object.fromEntries(Object.entries(options).map(([k, v]) => [`option.${k}`, v])),
        },
        admin,
      ),
    );
  const setConfig = async (values: Record<string, string>) =>
    ok(await s.call('POST', '/system/setConfig', values, admin));

  beforeEach(async () => {
    http.answer = { status: 200, text: 'OK' };
    http.requests.length = 0;
    await httpGateway('gw1', '/gw1');
    await setConfig({ 'sms.identifier': 'gw1' });
  });
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('smsgateway_option').execute();
    await s.rt.store.db.deleteFrom('smsgateway').execute();
    await s.rt.store.db.deleteFrom('smtpserver').execute();
    for (const key of ['sms.identifier', 'sms.providerTimeout', 'sms.concurrent_challenges'])
      await s.call('DELETE', `/system/${key}`, {}, admin);
  });

  const enroll = async (params: Record<string, string>, token = admin) =>
    (await initOk(s, { type: 'sms', pin: 'smspin', user: 'alice', realm: 'phone', ...params }, token)).json
      .detail.serial as string;
  const check = (params: Record<string, string>) => s.call('POST', '/validate/check', params);
  /** The PIN alone: the challenge's detail. */
  const challenge = async () => {
    const r = await validateOk(s, { user: 'alice', realm: 'phone', pass: 'smspin' });
    expect(r.json.result.value).toBe(false);
    expect(r.json.result.authentication).toBe('CHALLENGE');
    return r.json.detail;
  };
  const answer = async (transactionId: string, otp: string) =>
    (await check({ user: 'alice', realm: 'phone', pass: otp, transaction_id: transactionId })).json.result
      .value as boolean;

  it('sends the value through the HTTP gateway of sms.identifier and accepts it as the answer, once', async () => {
    const serial = await enroll({ phone: '+49 151 0001' });
    expect(serial).toMatch(/^PISM/);
    const detail = await challenge();
    expect(detail.message).toBe('Enter the OTP from the SMS:');
    expect(detail.multi_challenge).toEqual([
      expect.objectContaining({ serial, type: 'sms', client_mode: 'interactive' }),
    ]);
    const sms = lastSms();
    expect(sms).toMatchObject({ path: '/gw1', to: '+49 151 0001' });
    expect(sms.text).toMatch(/^\d{6}$/);
    // No single-shot login with PIN and value.
    expect(
      (await check({ user: 'alice', realm: 'phone', pass: `smspin${sms.text}` })).json.result.value,
    ).toBe(false);
    expect(await answer(detail.transaction_id, sms.text)).toBe(true);
    expect(await answer(detail.transaction_id, sms.text)).toBe(false);
  });

  it('fills the text from smstext and the message from sms_challenge_text', async () => {
    const serial = await enroll({ phone: '+49 151 0001' });
    await setPolicy(op, 'smstext', {
      scope: 'authentication',
      action: {
        smstext: 'Hi {givenname}, {otp} is your code for {serial}',
        sms_challenge_text: 'Check your phone',
      },
    });
    const detail = await challenge();
    expect(detail.message).toBe('Check your phone');
    const otp = new RegExp(`^Hi Alice, (\\d{6}) is your code for ${serial}$`).exec(lastSms().text)?.[1];
    expect(otp).toBeDefined();
    expect(await answer(detail.transaction_id, otp!)).toBe(true);
  });

  it('dynamic_phone sends to the mobile number of the user store', async () => {
    await enroll({ dynamic_phone: '1' });
    const detail = await challenge();
    const sms = lastSms();
    expect(sms.to).toBe('+49 170 5550001');
    expect(await answer(detail.transaction_id, sms.text)).toBe(true);
  });

  it('the SMTP provider mails the value to the SMS gateway address through an SMTP server definition', async () => {
    await saveSmtpServer(op, 'relay', {
      server: '127.0.0.1',
      port: String(smtp.port),
      username: smtp.user,
      password: smtp.password,
      sender: 'sms@example.com',
      tls: 'True',
      timeout: '5',
      cacertificate: smtp.cert,
    });
    ok(
      await s.call(
        'POST',
        '/smsgateway',
        {
          name: 'mailgw',
          module: SMTP,
          'option.SMTPIDENTIFIER': 'relay',
          'option.MAILTO': '{phone}@sms.example.com',
          'option.SUBJECT': 'SMS for {phone}',
          'option.REGEXP': '/[+ ]//',
        },
        admin,
      ),
    );
    await setConfig({ 'sms.identifier': 'mailgw' });
    await enroll({ phone: '+49 151 0001' });
    const detail = await challenge();
    const mail = await smtp.nextMail();
    expect(mail).toMatchObject({
      from: 'sms@example.com',
      to: ['491510001@sms.example.com'],
      subject: 'SMS for 491510001',
    });
    expect(mail.body).toMatch(/^\d{6}$/);
    expect(await answer(detail.transaction_id, mail.body)).toBe(true);

    // The SMTP server down: the SMS is not sent.
    await smtp.stop();
    try {
      const r = await validateOk(s, { user: 'alice', realm: 'phone', pass: 'smspin' });
      expect(r.json.result.value).toBe(false);
      expect(r.json.detail.message).toBe(NOT_SENT);
    } finally {
      await smtp.start();
    }
  });

  it('the token keeps the gateway it was enrolled with, chosen among those sms_gateways lists', async () => {
    await httpGateway('gw2', '/gw2');
    await httpGateway('gw3', '/gw3');
    // An administrator without admin policies may choose any gateway.
    await enroll({ phone: '+49 151 0003', serial: 'PISM-ANY', 'sms.identifier': 'gw3' });
    await setPolicy(op, 'admin-sms', {
      scope: 'admin',
      action: { enrollSMS: true, enrollpin: true, sms_gateways: 'gw2 gw1' },
    });
    const refused = await s.call(
      'POST',
      '/token/init',
      {
        type: 'sms',
        pin: 'smspin',
        user: 'alice',
        realm: 'phone',
        phone: '1',
        'sms.identifier': 'gw3',
        serial: 'PISM-NO',
      },
      admin,
    );
    expectServiceError(refused, 303, 'The requested sms.identifier is not allowed to be used.');
    expect(
      await s.rt.store.db.selectFrom('token').select('serial').where('serial', '=', 'PISM-NO').execute(),
    ).toEqual([]);
    const serial = await enroll({ phone: '+49 151 0002', 'sms.identifier': 'gw2' });
    await deletePolicy(op, 'admin-sms');
    await s.call('POST', '/token/disable', { serial: 'PISM-ANY' }, admin);
    const detail = await challenge();
    expect(detail.multi_challenge).toEqual([expect.objectContaining({ serial })]);
    const sms = lastSms();
    expect(sms).toMatchObject({ path: '/gw2', to: '+49 151 0002' });
    expect(await answer(detail.transaction_id, sms.text)).toBe(true);
  });

  it('voids an older challenge unless sms.concurrent_challenges; sms.providerTimeout is the validity', async () => {
    const serial = await enroll({ phone: '+49 151 0001' });
    const validity = async (transactionId: string) => {
      const row = await s.rt.store.db
        .selectFrom('challenge')
        .selectAll()
        .where('transaction_id', '=', transactionId)
        .executeTakeFirstOrThrow();
      return Date.parse(row.expiration) - Date.parse(row.timestamp);
    };
    const first = await challenge();
    const firstOtp = lastSms().text;
    expect(await validity(first.transaction_id)).toBe(300_000);
    await setConfig({ 'sms.providerTimeout': '90' });
    const second = await challenge();
    const secondOtp = lastSms().text;
    expect(await validity(second.transaction_id)).toBe(90_000);
    expect(await answer(first.transaction_id, firstOtp)).toBe(false);
    expect(await answer(second.transaction_id, secondOtp)).toBe(true);

    await setConfig({ 'sms.concurrent_challenges': 'True' });
    const a = await challenge();
    const aOtp = lastSms().text;
    const b = await challenge();
    const bOtp = lastSms().text;
    const stored = await s.rt.store.db
      .selectFrom('challenge')
      .select('data')
      .where('serial', '=', serial)
      .where('transaction_id', '=', a.transaction_id)
      .executeTakeFirstOrThrow();
    expect(stored.data).not.toContain(aOtp);
    expect(await answer(a.transaction_id, aOtp)).toBe(true);
    expect(await answer(b.transaction_id, bOtp)).toBe(true);
  });

  it('says the SMS could not be sent (HTTP 500 with exception=1): gateway failing, down, unknown', async () => {
    const serial = await enroll({ phone: '+49 151 0001' });
    const notSent = async () => {
      const r = await validateOk(s, { user: 'alice', realm: 'phone', pass: 'smspin' });
      expect(r.json.result.value).toBe(false);
      expect(r.json.detail.message).toBe(NOT_SENT);
      expect(r.json.detail.multi_challenge).toEqual([]);
      const e = await check({ user: 'alice', realm: 'phone', pass: 'smspin', exception: '1' });
      expect(e.status).toBe(500);
      expect(e.json.result.status).toBe(false);
      expect(e.json.result.error.message).toBe(`ERR-500: ${NOT_SENT}`);
    };
    http.answer = { status: 503, text: 'gateway overloaded' };
    await notSent();
    // A gateway nobody listens on.
    await httpGateway('gw1', '', { URL: 'http://127.0.0.1:9/x' });
    await notSent();
    await setConfig({ 'sms.identifier': 'nothere' });
    await notSent();
    await s.call('DELETE', '/system/sms.identifier', {}, admin);
    await notSent();
    expect(
      await s.rt.store.db.selectFrom('challenge').selectAll().where('serial', '=', serial).execute(),
    ).toEqual([]);
  });

  it('a dynamic_phone owner without a mobile number gets the same answer; no challenge is made', async () => {
    const serial = await enroll({ dynamic_phone: '1', user: 'bob' });
    const r = await validateOk(s, { user: 'bob', realm: 'phone', pass: 'smspin' });
    expect(r.json.result.value).toBe(false);
    expect(r.json.detail.message).toBe(NOT_SENT);
    expect(http.requests).toEqual([]);
    expect(
      await s.rt.store.db.selectFrom('challenge').selectAll().where('serial', '=', serial).execute(),
    ).toEqual([]);
  });

  it('a hanging gateway holds only its own request: another login is answered meanwhile', async () => {
    await enroll({ phone: '+49 151 0001' });
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'spass', pin: 'bobpin', user: 'bob', realm: 'phone' },
        admin,
      ),
    );
    await httpGateway('gw1', '/gw1', { TIMEOUT: '3' });
    http.answer = { status: 200, text: 'OK', hang: true };
    let smsAnswered = false;
    const hanging = check({ user: 'alice', realm: 'phone', pass: 'smspin' }).then((r) => {
      smsAnswered = true;
      return r;
    });
    // Once the gateway holds the request, the other login goes through.
    while (http.requests.length === 0) await new Promise((r) => setTimeout(r, 20));
    const other = await validateOk(s, { user: 'bob', realm: 'phone', pass: 'bobpin' });
    expect(other.json.result.value).toBe(true);
    expect(smsAnswered).toBe(false);
    expect((await hanging).json.detail.message).toBe(NOT_SENT);
  });

  it('POST /system/test/sms answers Not implemented, as privacyIDEA does', async () => {
    const r = await s.call('POST', '/system/test/sms', {}, admin);
    expect(ok(r)).toBe(false);
    expect(r.json.detail.message).toBe('Not implemented');
  });
});
