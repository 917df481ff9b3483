// Event handling over HTTP (reference 7.1, spec "Event handling endpoints"): definitions saved,
// replaced, listed, enabled, disabled and deleted; bad input refused with nothing stored; the
// modules' positions, actions and conditions; the events the endpoints fire; rights and audit
// rows; and the firing itself: pre and post, in ordering, under conditions, each run with its own
// audit row, a failing handler never breaking the request; the Logging and WebHook modules.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { eventCounterValues } from '../../src/core/event/index.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { saveSmtpServer } from '../../src/core/smtpserver/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { type SmtpSink, startSmtpSink } from '../helpers/smtp-sink.ts';
import { deleteAllPolicies, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

/** What a real HTTP listener received: one entry per request, the whole body. */
interface Received {
  contentType: string | undefined;
  body: string;
}

function listen(): Promise<{ server: Server; url: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ contentType: req.headers['content-type'], body: Buffer.concat(chunks).toString() });
      res.end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received }),
    ),
  );
}

describe.each(testDialects())('event handling on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  /** The log lines of the server, parsed. */
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });

  useTokenServer(
    dialect,
    {
      logger,
      realms: { realm1: [pwUser('alice', 1001, 'Alice Liddell,,,,alice@wonderland.example')] },
      reset: ['policies', 'tokens', 'audit'],
    },
    (t) => ({ s, op, admin } = t),
  );
  afterEach(async () => {
    // Runs before the fixture's reset: a test's admin policies must not stand in the way.
    await deleteAllPolicies(op);
    for (const d of ok(await s.call('GET', '/event/', {}, admin)) as { id: number }[]) {
      ok(await s.call('DELETE', `/event/${d.id}`, {}, admin));
    }
    lines.length = 0;
  });

  const logging = (fields: Record<string, string>) => ({
    name: 'log it',
    event: 'token_init',
    handlermodule: 'Logging',
    action: 'logging',
    'option.message': 'event {action} for {serial} ({tokentype})',
    ...fields,
  });
  const save = async (fields: Record<string, string>) =>
    ok(await s.call('POST', '/event', fields, admin)) as number;
  const messages = () => lines.filter((l) => l.logger !== undefined).map((l) => l.msg);
  const auditRows = (prefix: string) =>
    s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info', 'action_detail', 'administrator', 'serial'])
      .where('action', 'like', `${prefix}%`)
      .orderBy('id')
      .execute();

  it('saves, lists, replaces, disables, enables and deletes definitions', async () => {
    expect(ok(await s.call('GET', '/event/', {}, admin))).toEqual([]);
    const id = await save(
      logging({
        event: 'token_init, token_assign',
        ordering: '3',
        position: 'pre',
        conditions: JSON.stringify({ tokentype: 'hotp', realm: 'realm1' }),
        'option.level': 'WARNING',
      }),
    );
    const first = {
      id,
      name: 'log it',
      active: true,
      event: ['token_init', 'token_assign'],
      handlermodule: 'Logging',
      action: 'logging',
      position: 'pre',
      ordering: 3,
      options: { message: 'event {action} for {serial} ({tokentype})', level: 'WARNING' },
      conditions: { tokentype: 'hotp', realm: 'realm1' },
      condition: '',
    };
    expect(ok(await s.call('GET', '/event/', {}, admin))).toEqual([first]);
    expect(ok(await s.call('GET', `/event/${id}`, {}, admin))).toEqual([first]);
    expect(ok(await s.call('GET', `/event/${id + 1000}`, {}, admin))).toEqual([]);
    // An update replaces options and conditions whole; position and ordering take their defaults.
    expect(
      await save(
        logging({ id: String(id), name: 'renamed', conditions: JSON.stringify({ serial: '^OATH' }) }),
      ),
    ).toBe(id);
    expect(ok(await s.call('GET', `/event/${id}`, {}, admin))).toEqual([
      {
        ...first,
        name: 'renamed',
        event: ['token_init'],
        position: 'post',
        ordering: 0,
        options: { message: 'event {action} for {serial} ({tokentype})' },
        conditions: { serial: '^OATH' },
      },
    ]);
    expect(ok(await s.call('POST', `/event/disable/${id}`, {}, admin))).toBe(id);
    expect(ok(await s.call('GET', `/event/${id}`, {}, admin))[0].active).toBe(false);
    expect(ok(await s.call('POST', `/event/enable/${id}`, {}, admin))).toBe(id);
    expect(ok(await s.call('GET', `/event/${id}`, {}, admin))[0].active).toBe(true);
    expect(ok(await s.call('DELETE', `/event/${id}`, {}, admin))).toBe(id);
    expect(ok(await s.call('GET', '/event/', {}, admin))).toEqual([]);
    expectServiceError(await s.call('DELETE', `/event/${id}`, {}, admin), 601);
    expectServiceError(await s.call('POST', `/event/enable/${id}`, {}, admin), 601);
    expectServiceError(await s.call('POST', '/event', logging({ id: String(id) }), admin), 601);
    // One audit row per request.
    const rows = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'info', 'success'])
      .where('action', 'like', '%/event%')
      .orderBy('id')
      .execute();
    expect(rows.filter((r) => r.action === 'POST /event')).toEqual([
      { action: 'POST /event', info: 'log it', success: 1 },
      { action: 'POST /event', info: 'renamed', success: 1 },
      { action: 'POST /event', info: 'log it', success: 0 },
    ]);
    expect(rows.filter((r) => r.action === 'DELETE /event/<eventid>')).toHaveLength(2);
    expect(rows.filter((r) => r.action === 'GET /event/<eventid>')).toHaveLength(5);
  });

  it('refuses unknown modules, actions, positions, options and malformed conditions, storing nothing', async () => {
    expectServiceError(
      await s.call('POST', '/event', logging({ handlermodule: 'Nope' }), admin),
      905,
      'Unknown handler module: Nope',
    );
    expectServiceError(
      await s.call('POST', '/event', logging({ action: 'shout' }), admin),
      905,
      /no action shout/,
    );
    expectServiceError(
      await s.call('POST', '/event', logging({ position: 'during' }), admin),
      905,
      /no position/,
    );
    expectServiceError(
      await s.call('POST', '/event', logging({ 'option.colour': 'red' }), admin),
      905,
      /no option/,
    );
    expectServiceError(
      await s.call('POST', '/event', logging({ conditions: '{nope' }), admin),
      905,
      /JSON object/,
    );
    expectServiceError(
      await s.call('POST', '/event', logging({ conditions: '[1]' }), admin),
      905,
      /JSON object/,
    );
    expectServiceError(
      await s.call('POST', '/event', logging({ conditions: '{"moonphase":"full"}' }), admin),
      905,
      'Unknown condition: moonphase',
    );
    expectServiceError(await s.call('POST', '/event', logging({ event: ' , ' }), admin), 905);
    expectServiceError(await s.call('POST', '/event', logging({ ordering: 'first' }), admin), 905);
    expectServiceError(
      await s.call(
        'POST',
        '/event',
        { name: 'hook', event: 'token_init', handlermodule: 'WebHook', action: 'post_webhook' },
        admin,
      ),
      905,
      /needs the option URL/,
    );
    // Options fit their TEXT column, each and together.
    expectServiceError(
      await s.call('POST', '/event', logging({ 'option.message': 'm'.repeat(10_001) }), admin),
      905,
    );
    expectServiceError(
      await s.call(
        'POST',
        '/event',
        logging({ 'option.message': 'm'.repeat(6000), 'option.name': 'n'.repeat(6000) }),
        admin,
      ),
      905,
      /options/,
    );
    const { name: _n, ...nameless } = logging({});
    expectServiceError(await s.call('POST', '/event', nameless, admin), 905, "Missing parameter: 'name'");
    expect(await s.rt.store.db.selectFrom('eventhandler').selectAll().execute()).toEqual([]);
  });

  it('describes the modules and the events the endpoints fire', async () => {
    expect(ok(await s.call('GET', '/event/handlermodules', {}, admin))).toEqual([
      'UserNotification',
      'Token',
      'Script',
      'Counter',
      'RequestMangler',
      'ResponseMangler',
      'Logging',
      'CustomUserAttributes',
      'WebHook',
    ]);
    expect(ok(await s.call('GET', '/event/positions/WebHook', {}, admin))).toEqual(['post', 'pre']);
    expect(ok(await s.call('GET', '/event/actions/Logging', {}, admin))).toEqual({
      logging: {
        name: expect.objectContaining({ type: 'str' }),
        level: expect.objectContaining({
          type: 'str',
          value: ['DEBUG', 'INFO', 'WARNING', 'ERROR', 'CRITICAL'],
        }),
        message: expect.objectContaining({ type: 'text' }),
      },
    });
    expect(ok(await s.call('GET', '/event/actions/WebHook', {}, admin)).post_webhook.URL).toMatchObject({
      required: true,
    });
    const conditions = ok(await s.call('GET', '/event/conditions/Logging', {}, admin));
    expect(Object.keys(conditions)).toEqual(
      expect.arrayContaining(['realm', 'tokentype', 'serial', 'result_value', 'token_locked', 'client_ip']),
    );
    expectServiceError(
      await s.call('GET', '/event/actions/Nope', {}, admin),
      905,
      'Unknown handler module: Nope',
    );
    const available: string[] = ok(await s.call('GET', '/event/available', {}, admin));
    expect(available).toEqual([...available].sort());
    expect(available).toEqual(
      expect.arrayContaining([
        'auth',
        'validate_check',
        'token_init',
        'token_delete',
        'user_list',
        'serviceid_add',
      ]),
    );
  });

  it('checks the rights eventhandling_read and eventhandling_write', async () => {
    await setPolicy(op, 'adm', { scope: 'admin', action: 'eventhandling_read' });
    expect(ok(await s.call('GET', '/event/', {}, admin))).toEqual([]);
    expectServiceError(await s.call('POST', '/event', logging({}), admin), 303);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(await s.call('GET', '/event/handlermodules', {}, admin), 303);
    expect(await s.rt.store.db.selectFrom('eventhandler').selectAll().execute()).toEqual([]);
  });

  it('fires pre and post in ordering, under conditions, with an audit row per run', async () => {
    const late = await save(logging({ name: 'late', ordering: '5', 'option.message': 'late {serial}' }));
    await save(logging({ name: 'early', ordering: '1', 'option.message': 'early {serial} by {admin}' }));
    await save(logging({ name: 'before', position: 'pre', 'option.message': 'pre {serial}' }));
    await save(logging({ name: 'totp only', conditions: JSON.stringify({ tokentype: 'totp' }) }));
    const off = await save(logging({ name: 'off', 'option.message': 'never' }));
    ok(await s.call('POST', `/event/disable/${off}`, {}, admin));
    ok(await s.call('POST', '/token/init', { type: 'hotp', genkey: '1', serial: 'EV1' }, admin));
    expect(messages()).toEqual(['pre EV1', 'early EV1 by admin', 'late EV1']);
    expect(lines.find((l) => l.msg === 'late EV1')).toMatchObject({ logger: 'pi-eventlogger', level: 30 });
    expect(await auditRows('PRE-EVENT')).toEqual([
      {
        action: 'PRE-EVENT token_init>>Logging:logging',
        success: 1,
        info: 'before',
        action_detail: JSON.stringify({ message: 'pre {serial}' }),
        administrator: 'admin',
        serial: 'EV1',
      },
    ]);
    expect((await auditRows('POST-EVENT')).map((r) => [r.action, r.info, r.success])).toEqual([
      ['POST-EVENT token_init>>Logging:logging', 'early', 1],
      ['POST-EVENT token_init>>Logging:logging', 'late', 1],
    ]);
    // The request's own row is there as well.
    expect(await auditRows('POST /token/init')).toHaveLength(1);

    // Another event does not fire these; a changed definition is seen at once.
    lines.length = 0;
    ok(await s.call('GET', '/token/', {}, admin));
    expect(messages()).toEqual([]);
    await save(logging({ id: String(late), name: 'late', event: 'token_list', 'option.message': 'listed' }));
    ok(await s.call('GET', '/token/', {}, admin));
    expect(messages()).toEqual(['listed']);
  });

  it('checks conditions on the token, the user and the result', async () => {
    await save(
      logging({
        name: 'failed check',
        event: 'validate_check',
        'option.message': 'failed {serial} of {username}@{realm}',
        conditions: JSON.stringify({ result_value: 'False', realm: 'realm1', token_has_owner: 'True' }),
      }),
    );
    await save(
      logging({
        name: 'pre sees no result',
        event: 'validate_check',
        position: 'pre',
        conditions: JSON.stringify({ result_value: 'False' }),
      }),
    );
    await save(
      logging({
        name: 'rejected',
        event: 'validate_check',
        'option.message': 'auth {serial}',
        conditions: JSON.stringify({
          result_authentication: 'REJECT',
          serial: '^EV2$',
          client_ip: '127.0.0.1',
        }),
      }),
    );
    await save(
      logging({
        name: 'other network',
        event: 'validate_check',
        conditions: JSON.stringify({ client_ip: '10.0.0.0/8' }),
      }),
    );
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'spass', pin: 'secret', serial: 'EV2', user: 'alice', realm: 'realm1' },
        admin,
      ),
    );
    expect(
      ok(await s.call('POST', '/validate/check', { user: 'alice', realm: 'realm1', pass: 'secret' })),
    ).toBe(true);
    expect(messages()).toEqual([]);
    expect(ok(await s.call('POST', '/validate/check', { serial: 'EV2', pass: 'wrong' }))).toBe(false);
    expect(messages()).toEqual(['failed EV2 of alice@realm1', 'auth EV2']);
  });

  describe('Token', () => {
    const tokenAction = (action: string, options: Record<string, string> = {}, event = 'token_setpin') => ({
      name: action,
      event,
      handlermodule: 'Token',
      action,
      ...Object.fromEntries(Object.entries(options).map(([k, v]) => [`option.${k}`, v])),
    });
    const row = (serial: string) =>
      s.rt.store.db
        .selectFrom('token')
        .select(['active', 'description', 'maxfail', 'count_window'])
        .where('serial', '=', serial)
        .executeTakeFirst();
    const info = async (serial: string) =>
      ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0]?.info as Record<string, string>;
    const setpin = async (serial: string) =>
      ok(await s.call('POST', '/token/setpin', { serial, otppin: '1234' }, admin));

    beforeAll(async () => {
      // realm2 for the realm actions.
      await s.call('POST', '/realm/realm2', { resolvers: 'realm1-res' }, admin);
    });

    it('disables, enables, deletes and unassigns the token of the request', async () => {
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'spass', serial: 'TK1', user: 'alice', realm: 'realm1' },
          admin,
        ),
      );
      const off = await save(tokenAction('disable'));
      await setpin('TK1');
      expect((await row('TK1'))?.active).toBe(0);
      ok(await s.call('DELETE', `/event/${off}`, {}, admin));
      const on = await save(tokenAction('enable'));
      await setpin('TK1');
      expect((await row('TK1'))?.active).toBe(1);
      ok(await s.call('DELETE', `/event/${on}`, {}, admin));
      const unassign = await save(tokenAction('unassign'));
      await setpin('TK1');
      expect(ok(await s.call('GET', '/token/', { serial: 'TK1' }, admin)).tokens[0].username).toBe('');
      ok(await s.call('DELETE', `/event/${unassign}`, {}, admin));
      await save(tokenAction('delete'));
      await setpin('TK1');
      expect(await row('TK1')).toBeUndefined();
      expect((await auditRows('POST-EVENT')).map((r) => [r.action, r.success, r.serial])).toEqual([
        ['POST-EVENT token_setpin>>Token:disable', 1, 'TK1'],
        ['POST-EVENT token_setpin>>Token:enable', 1, 'TK1'],
        ['POST-EVENT token_setpin>>Token:unassign', 1, 'TK1'],
        ['POST-EVENT token_setpin>>Token:delete', 1, 'TK1'],
      ]);
    });

    it('sets description, validity, max failcount, count window, tokeninfo and realms', async () => {
      ok(await s.call('POST', '/token/init', { type: 'hotp', genkey: '1', serial: 'TK2' }, admin));
      await save(tokenAction('set description', { description: 'set by {action}' }));
      await save(
        tokenAction('set validity', {
          'valid from': '2026-01-01T00:00+0000',
          'valid till': '2030-01-01T00:00+0000',
        }),
      );
      await save(tokenAction('set max failcount', { 'max failcount': '7' }));
      await save(tokenAction('set countwindow', { 'count window': '25' }));
      await save(tokenAction('set tokeninfo', { key: 'seen', value: 'yes' }));
      await save(tokenAction('set tokenrealm', { realm: 'realm1' }));
      await save(tokenAction('set tokenrealm', { realm: 'realm2' }));
      await setpin('TK2');
      expect(await row('TK2')).toEqual({
        active: 1,
        description: 'set by {action}',
        maxfail: 7,
        count_window: 25,
      });
      const token = ok(await s.call('GET', '/token/', { serial: 'TK2' }, admin)).tokens[0];
      expect(token.realms).toEqual(['realm1', 'realm2']);
      expect(token.info).toMatchObject({
        seen: 'yes',
        validity_period_start: '2026-01-01T00:00+0000',
        validity_period_end: '2030-01-01T00:00+0000',
      });
      for (const d of ok(await s.call('GET', '/event/', {}, admin)) as { id: number }[]) {
        ok(await s.call('DELETE', `/event/${d.id}`, {}, admin));
      }
      await save(tokenAction('delete tokeninfo', { key: 'seen' }));
      await save(tokenAction('set tokenrealm', { realm: 'realm2', only_realm: 'True' }));
      await setpin('TK2');
      expect((await info('TK2')).seen).toBeUndefined();
      expect(ok(await s.call('GET', '/token/', { serial: 'TK2' }, admin)).tokens[0].realms).toEqual([
        'realm2',
      ]);
    });

    it('fails, audited, when the request names no token', async () => {
      await save(tokenAction('disable', {}, 'token_list'));
      ok(await s.call('GET', '/token/', {}, admin));
      expect((await auditRows('POST-EVENT')).map((r) => [r.action, r.success])).toEqual([
        ['POST-EVENT token_list>>Token:disable', 0],
      ]);
    });
  });

  describe('Counter', () => {
    const counter = (action: string, name: string, extra: Record<string, string> = {}) => ({
      name: action,
      event: 'token_list',
      handlermodule: 'Counter',
      action,
      'option.counter_name': name,
      ...extra,
    });
    afterEach(async () => {
      await s.rt.store.db.deleteFrom('eventcounter').execute();
    });

    it('counts concurrent requests without losing a step', async () => {
      await save(counter('increase_counter', 'lists'));
      await Promise.all(Array.from({ length: 12 }, () => s.call('GET', '/token/', {}, admin).then(ok)));
      expect(await eventCounterValues(s.rt)).toEqual({ lists: 12 });
    });

    it('decreases (not below 0 unless allowed) and resets', async () => {
      const down = await save(counter('decrease_counter', 'c'));
      ok(await s.call('GET', '/token/', {}, admin));
      expect(await eventCounterValues(s.rt)).toEqual({ c: 0 });
      await save(
        counter('decrease_counter', 'c', { id: String(down), 'option.allow_negative_values': 'True' }),
      );
      ok(await s.call('GET', '/token/', {}, admin));
      ok(await s.call('GET', '/token/', {}, admin));
      expect(await eventCounterValues(s.rt)).toEqual({ c: -2 });
      ok(await s.call('DELETE', `/event/${down}`, {}, admin));
      await save(counter('reset_counter', 'c'));
      ok(await s.call('GET', '/token/', {}, admin));
      expect(await eventCounterValues(s.rt)).toEqual({ c: 0 });
    });
  });

  describe('UserNotification', () => {
    let sink: SmtpSink;
    beforeAll(async () => {
      sink = await startSmtpSink();
      await saveSmtpServer(op, 'relay', {
        server: '127.0.0.1',
        port: String(sink.port),
        username: sink.user,
        password: sink.password,
        sender: 'events@example.com',
        tls: 'True',
        timeout: '5',
        cacertificate: sink.cert,
      });
    });
    afterAll(async () => {
      await s.rt.store.db.deleteFrom('smtpserver').execute();
      await sink.close();
    });

    it('mails the token owner through an SMTP definition, tags replaced', async () => {
      await save({
        name: 'tell the owner',
        event: 'token_init',
        handlermodule: 'UserNotification',
        action: 'sendmail',
        'option.emailconfig': 'relay',
        'option.To': 'tokenowner',
        'option.subject': 'New token {serial}',
        'option.body': 'Hello {user}, {admin} enrolled a {tokentype} token for you.',
      });
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'hotp', genkey: '1', serial: 'UN1', user: 'alice', realm: 'realm1' },
          admin,
        ),
      );
      const mail = await sink.nextMail();
      expect(mail).toMatchObject({
        to: ['alice@wonderland.example'],
        subject: 'New token UN1',
        body: 'Hello alice, admin enrolled a hotp token for you.',
      });
      expect((await auditRows('POST-EVENT'))[0]).toMatchObject({
        action: 'POST-EVENT token_init>>UserNotification:sendmail',
        success: 1,
      });
    });

    it('fails, audited, for a token without an owner, and with an unknown SMTP definition', async () => {
      await save({
        name: 'owner',
        event: 'token_init',
        handlermodule: 'UserNotification',
        action: 'sendmail',
        'option.emailconfig': 'relay',
        'option.To': 'tokenowner',
      });
      await save({
        name: 'nowhere',
        event: 'token_init',
        handlermodule: 'UserNotification',
        action: 'sendmail',
        'option.emailconfig': 'nosuch',
        'option.To': 'email',
        'option.To email': 'ops@example.com',
      });
      ok(await s.call('POST', '/token/init', { type: 'hotp', genkey: '1', serial: 'UN2' }, admin));
      expect((await auditRows('POST-EVENT')).map((r) => [r.info, r.success])).toEqual([
        ['owner', 0],
        ['nowhere', 0],
      ]);
      expect(sink.mails.filter((m) => m.subject.includes('UN2'))).toEqual([]);
    });
  });

  describe('WebHook', () => {
    let hook: Awaited<ReturnType<typeof listen>>;
    beforeAll(async () => {
      hook = await listen();
    });
    afterAll(() => new Promise<void>((resolve) => hook.server.close(() => resolve())));
    afterEach(() => {
      hook.received.length = 0;
    });

    const webhook = (options: Record<string, string>) => ({
      name: 'hook',
      event: 'token_init',
      handlermodule: 'WebHook',
      action: 'post_webhook',
      'option.URL': hook.url,
      ...options,
    });

    it('posts the whole data as JSON, tags replaced', async () => {
      const data = {
        serial: '{serial}',
        type: '{tokentype}',
        nested: { by: '{admin}', n: 3 },
        big: 'x'.repeat(5000),
      };
      await save(
        webhook({
          'option.content_type': 'application/json',
          'option.replace': 'True',
          'option.data': JSON.stringify(data),
        }),
      );
      ok(await s.call('POST', '/token/init', { type: 'hotp', genkey: '1', serial: 'WH1' }, admin));
      expect(hook.received).toEqual([
        {
          contentType: 'application/json',
          body: JSON.stringify({ ...data, serial: 'WH1', type: 'hotp', nested: { by: 'admin', n: 3 } }),
        },
      ]);
      expect((await auditRows('POST-EVENT'))[0]).toMatchObject({
        action: 'POST-EVENT token_init>>WebHook:post_webhook',
        success: 1,
      });
    });

    it('posts a form, and leaves tags alone when replace is false', async () => {
      await save(
        webhook({
          'option.content_type': 'urlencoded',
          'option.replace': 'False',
          'option.data': JSON.stringify({ serial: '{serial}', note: 'a b&c' }),
        }),
      );
      ok(await s.call('POST', '/token/init', { type: 'hotp', genkey: '1', serial: 'WH2' }, admin));
      expect(hook.received).toEqual([
        { contentType: 'application/x-www-form-urlencoded', body: 'serial=%7Bserial%7D&note=a+b%26c' },
      ]);
    });

    it('a failing hook is logged and audited, and never breaks the request', async () => {
      const closed = await listen();
      await new Promise<void>((resolve) => closed.server.close(() => resolve()));
      await save(
        webhook({
          'option.URL': closed.url,
          'option.content_type': 'application/json',
          'option.replace': 'False',
          'option.data': '{"a":1}',
        }),
      );
      await save(
        webhook({
          name: 'bad json',
          'option.content_type': 'json',
          'option.replace': 'True',
          'option.data': '{',
        }),
      );
      const value = ok(
        await s.call('POST', '/token/init', { type: 'hotp', genkey: '1', serial: 'WH3' }, admin),
      );
      expect(value).toBe(true);
      expect((await auditRows('POST-EVENT')).map((r) => [r.info, r.success])).toEqual([
        ['hook', 0],
        ['bad json', 0],
      ]);
      expect(lines.filter((l) => l.msg === 'event handler failed')).toHaveLength(2);
      expect(
        await s.rt.store.db.selectFrom('token').select('serial').where('serial', '=', 'WH3').execute(),
      ).toHaveLength(1);
    });
  });
});
