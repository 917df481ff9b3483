// SMTP server definitions over HTTP (reference 8.3, spec "SMTP server endpoints") against a real
// SMTP server (test/helpers/smtp-sink.ts): create/update, the censored listing, __CENSORED__ keeping
// the password (for the same destination only), delete, bad input, the rights smtpserver_read and
// smtpserver_write, one audit row per request, and send_test_email with STARTTLS, implicit TLS and
// every failure it names (connection refused, timeout, authentication failed, TLS failure) — never
// an HTTP 500.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { CENSORED } from '../../src/core/system/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

let sink: SmtpSink;
let smtps: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
  smtps = await startSmtpSink({ implicitTls: true, port: 465 });
});
afterAll(async () => {
  await sink.close();
  await smtps.close();
});

describe.each(testDialects())('SMTP servers on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { reset: ['policies', 'audit'] }, (t) => ({ s, op, admin } = t));
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('smtpserver').execute();
    sink.stall = false;
  });

  const rows = () => s.rt.store.db.selectFrom('smtpserver').selectAll().orderBy('identifier').execute();
  const auditRows = (action: string) =>
    s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .where('action', '=', action)
      .orderBy('id')
      .execute();
  const definition = (extra: Record<string, string> = {}) => ({
    server: '127.0.0.1',
    port: String(sink.port),
    username: sink.user,
    password: sink.password,
    sender: 'authsrv@example.com',
    tls: 'True',
    timeout: '5',
    cacertificate: sink.cert,
    description: 'the relay',
    ...extra,
  });
  const sendTest = (params: Record<string, string>) =>
    s.call('POST', '/smtpserver/send_test_email', { recipient: 'alice@example.com', ...params }, admin);

  it('creates, lists (password censored), updates, keeps the password and deletes', async () => {
    expect(ok(await s.call('GET', '/smtpserver/', {}, admin))).toEqual({});
    expect(ok(await s.call('POST', '/smtpserver/relay', definition(), admin))).toBe(true);
    const listed = ok(await s.call('GET', '/smtpserver/', {}, admin));
    expect(listed).toEqual({
      relay: {
        server: '127.0.0.1',
        port: sink.port,
        username: 'mailer',
        password: CENSORED,
        sender: 'authsrv@example.com',
        tls: true,
        timeout: 5,
        description: 'the relay',
        cacertificate: sink.cert,
      },
    });
    expect(ok(await s.call('GET', '/smtpserver/relay', {}, admin))).toEqual(listed);
    expect(ok(await s.call('GET', '/smtpserver/other', {}, admin))).toEqual({});
    // Sealed at rest.
    const [row] = await rows();
    expect(row!.password).not.toContain(sink.password);
    expect(s.rt.hsm.decrypt(row!.password)).toBe(sink.password);

    // The listing sent back as it is keeps the password, and so does an update without it.
    const back = { ...listed.relay, port: String(sink.port), tls: 'True', timeout: '5', description: 'x' };
    expect(ok(await s.call('POST', '/smtpserver/relay', back, admin))).toBe(true);
    expect(ok(await s.call('POST', '/smtpserver/relay', { description: 'the relay again' }, admin))).toBe(
      true,
    );
    expect(s.rt.hsm.decrypt((await rows())[0]!.password)).toBe(sink.password);
    expect(ok(await sendTest({ identifier: 'relay', password: CENSORED }))).toBe(true);
    expect((await sink.nextMail()).to).toEqual(['alice@example.com']);

    // The kept password never goes to another server.
    expectServiceError(
      await s.call('POST', '/smtpserver/relay', { server: 'evil.example.com', password: CENSORED }, admin),
      905,
      /password.*server/,
    );
    expectServiceError(await sendTest({ identifier: 'relay', server: 'localhost' }), 905, /password/);
    expect((await rows())[0]!.server).toBe('127.0.0.1');

    expect(ok(await s.call('DELETE', '/smtpserver/relay', {}, admin))).toBe(true);
    expect(await rows()).toEqual([]);
    expect(await auditRows('POST /smtpserver/<identifier>')).toEqual([
      { action: 'POST /smtpserver/<identifier>', success: 1, info: 'relay' },
      { action: 'POST /smtpserver/<identifier>', success: 1, info: 'relay' },
      { action: 'POST /smtpserver/<identifier>', success: 1, info: 'relay' },
      { action: 'POST /smtpserver/<identifier>', success: 0, info: 'relay' },
    ]);
    expect(await auditRows('DELETE /smtpserver/<identifier>')).toHaveLength(1);
    expect(await auditRows('POST /smtpserver/send_test_email')).toHaveLength(2);
  });

  it('refuses an unknown identifier and bad input, writing nothing', async () => {
    expectServiceError(
      await s.call('DELETE', '/smtpserver/nothere', {}, admin),
      601,
      'The SMTP server nothere does not exist.',
    );
    expectServiceError(await s.call('POST', '/smtpserver/relay', { port: '25' }, admin), 905, /server/);
    const bads: Record<string, string>[] = [
      { port: '0' },
      { port: '70000' },
      { port: 'x' },
      { timeout: '0' },
      { timeout: '1000' },
      { tls: 'maybe' },
      { server: 'a b' },
      { cacertificate: 'not a certificate' },
      { description: 'd'.repeat(2001) },
    ];
    for (const bad of bads) {
      expectServiceError(await s.call('POST', '/smtpserver/relay', definition(bad), admin), 905);
    }
    expectServiceError(await s.call('POST', '/smtpserver/bad%20name', definition(), admin), 905);
    expectServiceError(
      await s.call('POST', '/smtpserver/relay', { server: 'h', password: CENSORED }, admin),
      905,
      /no value is stored/,
    );
    expectServiceError(await sendTest({ server: '127.0.0.1', recipient: '' }), 905, /recipient/);
    expect(await rows()).toEqual([]);
    const refused = await auditRows('POST /smtpserver/<identifier>');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((r) => r.success === 0)).toBe(true);
  });

  it('sends the test mail with STARTTLS and AUTH, and with implicit TLS on port 465', async () => {
    expect(ok(await sendTest(definition()))).toBe(true);
    const mail = await sink.nextMail();
    expect(mail).toMatchObject({ from: 'authsrv@example.com', to: ['alice@example.com'] });
    expect(mail.subject).toBe('Your TEST email from authsrv');
    const implicit = { port: '465', tls: 'False', cacertificate: smtps.cert };
    const r = await sendTest(definition(implicit));
    expect(r.json.result.value).toBe(true);
    expect((await smtps.nextMail()).to).toEqual(['alice@example.com']);
  });

  it('answers false with the reason when the mail cannot be sent, never HTTP 500', async () => {
    const failure = async (params: Record<string, string>) => {
      const r = await sendTest(params);
      expect(r.status).toBe(200);
      expect(r.json.result.status).toBe(true);
      expect(r.json.result.value).toBe(false);
      return r.json.detail.message as string;
    };
    expect(await failure(definition({ password: 'wrong' }))).toMatch(/authentication failed/);
    // The server's certificate is not trusted without its CA: STARTTLS fails.
    expect(await failure(definition({ cacertificate: '' }))).toMatch(/TLS failure/);
    sink.stall = true;
    expect(await failure(definition({ timeout: '1' }))).toMatch(/timeout/);
    sink.stall = false;
    await sink.stop();
    try {
      expect(await failure(definition())).toMatch(/connection refused/);
    } finally {
      await sink.start();
    }
    expect(ok(await sendTest(definition()))).toBe(true);
    await sink.nextMail();
  });

  it('needs an administrator with smtpserver_read and smtpserver_write', async () => {
    ok(await s.call('POST', '/smtpserver/relay', definition(), admin));
    expect((await s.call('GET', '/smtpserver/')).status).toBe(401);
    expect((await s.call('POST', '/smtpserver/x', definition())).status).toBe(401);
    expect((await s.call('POST', '/smtpserver/send_test_email', definition())).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('GET', '/smtpserver/', {}, admin),
      303,
      'Admin actions are defined, but the action smtpserver_read is not allowed!',
    );
    expectServiceError(await s.call('POST', '/smtpserver/x', definition(), admin), 303);
    expectServiceError(await sendTest(definition()), 303);
    expectServiceError(await s.call('DELETE', '/smtpserver/relay', {}, admin), 303);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'smtpserver_read' });
    expect(Object.keys(ok(await s.call('GET', '/smtpserver/', {}, admin)))).toEqual(['relay']);
    expectServiceError(await s.call('DELETE', '/smtpserver/relay', {}, admin), 303);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'smtpserver_read, smtpserver_write' });
    expect(ok(await s.call('DELETE', '/smtpserver/relay', {}, admin))).toBe(true);
  });
});
