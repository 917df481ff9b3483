// SMS gateways over HTTP (reference 8.2, spec "SMS gateway endpoints"), on every dialect: the
// providers, create/update/list (secrets sealed in the database and __CENSORED__ in answers,
// __CENSORED__ sent back keeping them, but not for another destination), deleting options,
// headers and gateways, clear errors that change nothing, the rights smsgateway_read/_write and
// one audit row per request.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { sendSms } from '../../src/core/smsgateway/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type HttpSink, startHttpSink } from '../helpers/http-sink.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const HTTP = 'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider';
const SMPP = 'privacyidea.lib.smsprovider.SmppSMSProvider.SmppSMSProvider';
const SCRIPT = 'privacyidea.lib.smsprovider.ScriptSMSProvider.ScriptSMSProvider';
const SMTP = 'privacyidea.lib.smsprovider.SmtpSMSProvider.SmtpSMSProvider';

describe.each(testDialects())('SMS gateways on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  let sink: HttpSink;

  useTokenServer(dialect, { reset: ['policies', 'audit'] }, (t) => ({ s, op, admin } = t));
  beforeAll(async () => {
    sink = await startHttpSink();
  });
  afterAll(async () => sink.close());
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('smsgateway_option').execute();
    await s.rt.store.db.deleteFrom('smsgateway').execute();
    sink.requests.length = 0;
  });

  const httpGateway = (extra: Record<string, string> = {}) => ({
    name: 'sms1',
    module: HTTP,
    description: 'the HTTP gateway',
    'option.URL': `${sink.url}/send`,
    'option.HTTP_METHOD': 'POST',
    'option.CHECK_SSL': 'no',
    'option.SEND_DATA_AS_JSON': 'no',
    'option.USERNAME': 'smsuser',
    'option.PASSWORD': 'gw-pass-1',
    'option.text': '{otp}',
    'option.to': '{phone}',
    'header.X-Api-Secret': 'hdr-secret-1',
    'header.X-Tenant': 'acme',
    ...extra,
  });
  const tables = async () => ({
    gateways: await s.rt.store.db
      .selectFrom('smsgateway')
      .select(['name', 'providermodule', 'description'])
      .execute(),
    options: await s.rt.store.db
      .selectFrom('smsgateway_option')
      .select(['type', 'key', 'value', 'sealed'])
      .orderBy('type')
      .orderBy('key')
      .execute(),
  });
  const auditRows = () =>
    s.rt.store.db.selectFrom('audit').select(['action', 'success', 'info']).orderBy('id').execute();

  it('lists every provider with its parameters', async () => {
    const providers = ok(await s.call('GET', '/smsgateway/providers', {}, admin));
    expect(Object.keys(providers).sort()).toEqual([HTTP, SCRIPT, SMPP, SMTP]);
    expect(providers[SMTP]).toMatchObject({ options_allowed: false, headers_allowed: false });
    expect(Object.keys(providers[SMTP].parameters).sort()).toEqual([
      'BODY',
      'MAILTO',
      'REGEXP',
      'SMTPIDENTIFIER',
      'SUBJECT',
    ]);
    expect(providers[SMTP].parameters.MAILTO.required).toBe(true);
    expect(providers[HTTP]).toMatchObject({ options_allowed: true, headers_allowed: true });
    expect(providers[HTTP].parameters.URL).toEqual({
      required: true,
      description: 'The base URL of the HTTP gateway',
    });
    expect(providers[HTTP].parameters.HTTP_METHOD.values).toEqual(['GET', 'POST']);
    expect(providers[HTTP].parameters.PASSWORD).toEqual({
      description: 'The password for basic authentication.',
    });
    expect(providers[SMPP]).toMatchObject({ options_allowed: false, headers_allowed: false });
    // The envelope's keys are sorted, as privacyIDEA's JSON.
    expect(Object.keys(providers[SMPP].parameters)).toEqual(
      [
        'SMSC_HOST',
        'SMSC_PORT',
        'SYSTEM_ID',
        'PASSWORD',
        'S_ADDR_TON',
        'S_ADDR_NPI',
        'S_ADDR',
        'D_ADDR_TON',
        'D_ADDR_NPI',
        'REGEXP',
        'TIMEOUT',
      ].sort(),
    );
    expect(providers[SCRIPT].parameters.background).toMatchObject({
      required: true,
      values: ['background', 'wait'],
    });
  });

  it('creates, lists, updates and sends through a gateway, its secrets sealed and censored', async () => {
    const id = ok(await s.call('POST', '/smsgateway', httpGateway(), admin));
    expect(id).toEqual(expect.any(Number));
    const stored = await tables();
    expect(stored.gateways).toEqual([
      { name: 'sms1', providermodule: HTTP, description: 'the HTTP gateway' },
    ]);
    const password = stored.options.find((o) => o.key === 'PASSWORD')!;
    const header = stored.options.find((o) => o.key === 'X-Api-Secret')!;
    expect(Number(password.sealed)).toBe(1);
    expect(password.value).not.toContain('gw-pass-1');
    expect(header.value).not.toContain('hdr-secret-1');
    expect(Number(stored.options.find((o) => o.key === 'URL')!.sealed)).toBe(0);

    const view = {
      id,
      name: 'sms1',
      providermodule: HTTP,
      description: 'the HTTP gateway',
      options: {
        CHECK_SSL: 'no',
        HTTP_METHOD: 'POST',
        PASSWORD: '__CENSORED__',
        SEND_DATA_AS_JSON: 'no',
        URL: `${sink.url}/send`,
        USERNAME: 'smsuser',
        text: '{otp}',
        to: '{phone}',
      },
      headers: { 'X-Api-Secret': '__CENSORED__', 'X-Tenant': 'acme' },
    };
    expect(ok(await s.call('GET', '/smsgateway/', {}, admin))).toEqual([view]);
    expect(ok(await s.call('GET', `/smsgateway/${id}`, {}, admin))).toEqual([view]);
    expect(ok(await s.call('GET', '/smsgateway/sms1', {}, admin))).toEqual([view]);
    expect(ok(await s.call('GET', '/smsgateway/999999', {}, admin))).toEqual([]);

    // Sending __CENSORED__ back keeps the secrets; what the POST leaves out is removed (privacyIDEA).
    const update = httpGateway({ 'option.PASSWORD': '__CENSORED__', 'header.X-Api-Secret': '__CENSORED__' });
    delete (update as Record<string, string>)['header.X-Tenant'];
    expect(ok(await s.call('POST', '/smsgateway', update, admin))).toBe(id);
    const after = ok(await s.call('GET', '/smsgateway/', {}, admin))[0];
    expect(after.headers).toEqual({ 'X-Api-Secret': '__CENSORED__' });

    expect(await sendSms(s.rt, 'sms1', '+49 151 1', 'Code 123456')).toEqual({ success: true });
    const r = sink.requests[0]!;
    expect(Object.fromEntries(new URLSearchParams(r.body))).toEqual({ text: 'Code 123456', to: '+49 151 1' });
    expect(r.headers.authorization).toBe(`Basic ${Buffer.from('smsuser:gw-pass-1').toString('base64')}`);
    expect(r.headers['x-api-secret']).toBe('hdr-secret-1');
    expect(await sendSms(s.rt, 'nothere', '1', 'm')).toEqual({
      success: false,
      reason: 'there is no SMS gateway nothere',
    });
  });

  it('refuses a kept secret for another destination, and takes a secret given again', async () => {
    ok(await s.call('POST', '/smsgateway', httpGateway(), admin));
    const before = await tables();
    const changes: Record<string, string>[] = [
      { 'option.URL': 'http://127.0.0.1:1/steal' },
      { 'option.USERNAME': 'other' },
      { module: 'http', 'option.URL': 'http://127.0.0.1:1/steal' },
    ];
    for (const change of changes) {
      expectServiceError(
        await s.call(
          'POST',
          '/smsgateway',
          httpGateway({ 'option.PASSWORD': '__CENSORED__', 'header.X-Api-Secret': 'new-hdr', ...change }),
          admin,
        ),
        905,
        /^ERR905: option\.PASSWORD must be given again: option\.(URL|USERNAME) differs from the stored settings/,
      );
    }
    expect(await tables()).toEqual(before);
    ok(
      await s.call(
        'POST',
        '/smsgateway',
        httpGateway({ 'option.URL': `${sink.url}/other`, 'option.PASSWORD': 'gw-pass-2' }),
        admin,
      ),
    );
    expect(await sendSms(s.rt, 'sms1', '1', 'm')).toEqual({ success: true });
    expect(sink.requests[0]!.url).toBe('/other');
    expect(sink.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('smsuser:gw-pass-2').toString('base64')}`,
    );
  });

  it('refuses bad definitions with a clear error, storing nothing', async () => {
    const refused: [Record<string, string>, RegExp | string][] = [
      [
        { name: 'x', module: 'privacyidea.lib.smsprovider.Nothing.Nothing' },
        /^Unknown SMS provider module 'privacyidea\.lib\.smsprovider\.Nothing\.Nothing': use one of /,
      ],
      [
        { name: 'x', module: SMTP, 'option.MAILTO': '{phone}@sms.example' },
        "Missing parameter: 'option.SMTPIDENTIFIER'",
      ],
      [{ ...httpGateway(), 'option.URL': '' }, "Missing parameter: 'option.URL'"],
      [
        { ...httpGateway(), 'option.HTTP_METHOD': 'PUT' },
        "option.HTTP_METHOD must be one of GET, POST, not 'PUT'",
      ],
      [
        { ...httpGateway(), 'option.TIMEOUT': '0' },
        'TIMEOUT must be a number of seconds above 0 and at most 300',
      ],
      [
        { ...httpGateway(), 'option.URL': 'file:///etc/passwd' },
        "URL must be an http:// or https:// URL, not 'file:…'",
      ],
      [
        { ...httpGateway(), 'option.PASSWORD': '__CENSORED__' },
        'option.PASSWORD is __CENSORED__ but no value is stored',
      ],
      [
        { name: 'x', module: SMPP, 'option.SMSC_HOST': 'h', 'option.SMSC_PORT': '2775', 'option.URL': 'u' },
        /^Unknown option 'URL' for .*SmppSMSProvider: use SMSC_HOST, /,
      ],
      [
        { name: 'x', module: SCRIPT, 'option.script': 'a.sh', 'option.background': 'wait', 'header.X': '1' },
        /takes no headers$/,
      ],
      [
        { name: 'x', module: SCRIPT, 'option.script': '../../bin/sh', 'option.background': 'wait' },
        /must name a file inside the script directory/,
      ],
      [{ name: 'a/b', module: HTTP }, "Invalid SMS gateway name 'a/b': no '/', NUL or surrounding blanks"],
      [{ module: HTTP }, "Missing parameter: 'name'"],
      [{ name: 'x' }, "Missing parameter: 'module'"],
    ];
    for (const [params, message] of refused) {
      const r = await s.call('POST', '/smsgateway', params, admin);
      expectServiceError(r, 905, typeof message === 'string' ? message : undefined);
      if (typeof message !== 'string')
        expect(r.json.result.error.message.replace(/^ERR905: /, '')).toMatch(message);
    }
    expect(await tables()).toEqual({ gateways: [], options: [] });
    // A short provider name is accepted and stored as privacyIDEA's module.
    ok(
      await s.call(
        'POST',
        '/smsgateway',
        { name: 'x', module: 'smpp', 'option.SMSC_HOST': 'h', 'option.SMSC_PORT': '2775' },
        admin,
      ),
    );
    expect((await tables()).gateways).toEqual([{ name: 'x', providermodule: SMPP, description: '' }]);
  });

  it('creates a gateway once when several requests create it at the same time', async () => {
    const ids = await Promise.all(
      Array.from({ length: 5 }, async () => ok(await s.call('POST', '/smsgateway', httpGateway(), admin))),
    );
    expect(new Set(ids).size).toBe(1);
    expect((await tables()).gateways).toHaveLength(1);
    expect((await tables()).options).toHaveLength(10);
  });

  it('deletes options, headers and gateways', async () => {
    const id = ok(await s.call('POST', '/smsgateway', httpGateway(), admin));
    expect(ok(await s.call('DELETE', `/smsgateway/option/${id}/text`, {}, admin))).toBe(1);
    expect(ok(await s.call('DELETE', `/smsgateway/option/${id}/header.X-Tenant`, {}, admin))).toBe(1);
    expect(ok(await s.call('DELETE', `/smsgateway/option/${id}/nothere`, {}, admin))).toBe(0);
    const view = ok(await s.call('GET', `/smsgateway/${id}`, {}, admin))[0];
    expect(view.options.text).toBeUndefined();
    expect(view.headers).toEqual({ 'X-Api-Secret': '__CENSORED__' });
    expectServiceError(
      await s.call('DELETE', `/smsgateway/option/${id}/URL`, {}, admin),
      905,
      `The option URL is required by ${HTTP} and cannot be deleted`,
    );
    expectServiceError(
      await s.call('DELETE', '/smsgateway/option/999999/text', {}, admin),
      601,
      'The requested SMSGateway could not be found.',
    );
    expectServiceError(
      await s.call('DELETE', '/smsgateway/nothere', {}, admin),
      601,
      'The requested SMSGateway could not be found.',
    );
    expect(ok(await s.call('DELETE', '/smsgateway/sms1', {}, admin))).toBe(id);
    expect(await tables()).toEqual({ gateways: [], options: [] });
  });

  it('needs the rights smsgateway_read and smsgateway_write and writes one audit row per request', async () => {
    ok(await s.call('POST', '/smsgateway', httpGateway(), admin));
    expect((await s.call('GET', '/smsgateway/')).status).toBe(401);
    expect((await s.call('POST', '/smsgateway', httpGateway())).status).toBe(401);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'smsgateway_read' });
    expect(ok(await s.call('GET', '/smsgateway/', {}, admin))).toHaveLength(1);
    expect(ok(await s.call('GET', '/smsgateway/providers', {}, admin))).toHaveProperty([HTTP]);
    expectServiceError(
      await s.call('POST', '/smsgateway', httpGateway({ 'option.URL': `${sink.url}/x` }), admin),
      303,
      'Admin actions are defined, but the action smsgateway_write is not allowed!',
    );
    expectServiceError(await s.call('DELETE', '/smsgateway/sms1', {}, admin), 303);
    await setPolicy(op, 'adm', { scope: 'admin', action: 'smsgateway_write' });
    expectServiceError(await s.call('GET', '/smsgateway/', {}, admin), 303);
    expect(ok(await s.call('DELETE', '/smsgateway/sms1', {}, admin))).toEqual(expect.any(Number));
    const rows = await auditRows();
    expect(rows.map((r) => [r.action, r.success, r.info])).toEqual([
      ['POST /smsgateway/', 1, 'sms1'],
      ['GET /smsgateway/', 0, 'Authentication failure. Missing Authorization header.'],
      ['POST /smsgateway/', 0, 'Authentication failure. Missing Authorization header.'],
      ['GET /smsgateway/', 1, ''],
      ['GET /smsgateway/providers', 1, ''],
      ['POST /smsgateway/', 0, 'Admin actions are defined, but the action smsgateway_write is not allowed!'],
      [
        'DELETE /smsgateway/<identifier>',
        0,
        'Admin actions are defined, but the action smsgateway_write is not allowed!',
      ],
      ['GET /smsgateway/', 0, 'Admin actions are defined, but the action smsgateway_read is not allowed!'],
      ['DELETE /smsgateway/<identifier>', 1, 'sms1'],
    ]);
  });
});
