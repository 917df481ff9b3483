// `authsrv smsgateway list|set|delete|providers|test` as a child process: gateways made and changed
// (secrets only from stdin, kept when not named), messages sent to a real HTTP listener, a failed
// send's reason and exit status, --json everywhere, and an audit row for every change and test.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { type HttpSink, startHttpSink } from '../../helpers/http-sink.ts';

const HTTP = 'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider';

describe.each(cliDialects())('authsrv smsgateway on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  let sink: HttpSink;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));
  beforeAll(async () => {
    sink = await startHttpSink();
  });
  afterAll(async () => sink.close());
  beforeEach(() => {
    sink.requests.length = 0;
    sink.answer = { status: 200, text: 'OK' };
  });

  const json = async (args: string[], input?: string): Promise<Json> => {
    const r = await c.run([...args, '--json'], input);
    if (r.code !== 0 && !args.includes('test')) throw new Error(`${args.join(' ')}: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };

  it('lists the providers', async () => {
    const providers = await json(['smsgateway', 'providers']);
    expect(Object.keys(providers)).toEqual([
      HTTP,
      'privacyidea.lib.smsprovider.SmtpSMSProvider.SmtpSMSProvider',
      'privacyidea.lib.smsprovider.SmppSMSProvider.SmppSMSProvider',
      'privacyidea.lib.smsprovider.ScriptSMSProvider.ScriptSMSProvider',
    ]);
    const table = await c.run(['smsgateway', 'providers']);
    expect(table.stdout).toMatch(/URL\*/);
    expect(table.stdout).toMatch(/SMSC_HOST\*/);
    expect(table.stdout).toMatch(/SMTPIDENTIFIER\*/);
  });

  it('sets, lists, tests and deletes a gateway; secrets from stdin only; audits each', async () => {
    const set = [
      'smsgateway',
      'set',
      'gw1',
      '--module',
      'http',
      '--description',
      'HTTP gateway',
      `URL=${sink.url}/send`,
      'HTTP_METHOD=POST',
      'CHECK_SSL=yes',
      'SEND_DATA_AS_JSON=no',
      'USERNAME=smsuser',
      'PASSWORD=-',
      'text={otp}',
      'to={phone}',
      'header.X-Tenant=acme',
      '--password-stdin',
    ];
    expect(await json(set, 'cli-pass-1\n')).toEqual({ id: expect.any(Number), name: 'gw1', created: true });
    const [listed] = await json(['smsgateway', 'list', 'gw1']);
    expect(listed).toMatchObject({
      name: 'gw1',
      providermodule: HTTP,
      description: 'HTTP gateway',
      options: { PASSWORD: '__CENSORED__', URL: `${sink.url}/send`, text: '{otp}' },
      headers: { 'X-Tenant': 'acme' },
    });

    expect(await json(['smsgateway', 'test', 'gw1', '+49 151 1', '--message', 'Code 123'])).toEqual({
      success: true,
    });
    expect(Object.fromEntries(new URLSearchParams(sink.requests[0]!.body))).toEqual({
      text: 'Code 123',
      to: '+49 151 1',
    });
    expect(sink.requests[0]!.headers.authorization).toBe(
      `Basic ${Buffer.from('smsuser:cli-pass-1').toString('base64')}`,
    );

    // What set does not name is kept (the password too); KEY= removes one.
    const changed = await c.run(['smsgateway', 'set', 'gw1', 'TIMEOUT=2', 'header.X-Tenant=']);
    expect(changed).toEqual({
      code: 0,
      stdout: `SMS gateway 'gw1' updated (id ${listed.id}).\n`,
      stderr: '',
    });
    const [after] = await json(['smsgateway', 'list']);
    expect(after.options).toMatchObject({ PASSWORD: '__CENSORED__', TIMEOUT: '2' });
    expect(after.headers).toEqual({});
    expect(await json(['smsgateway', 'test', 'gw1', '1'])).toEqual({ success: true });
    expect(new URLSearchParams(sink.requests[1]!.body).get('text')).toBe(
      'This is a test message from authsrv.',
    );

    sink.answer = { status: 503, text: 'busy' };
    const failed = await c.run(['smsgateway', 'test', 'gw1', '1']);
    // The CLI's logger (level warn, on stderr) also logs the failure, as a server would.
    expect([failed.code, failed.stdout]).toEqual([1, 'Not sent: the gateway answered HTTP 503\n']);
    expect(failed.stderr).toContain('SMS not sent');

    expect(expectOneLineError(await c.run(['smsgateway', 'set', 'gw1', 'PASSWORD=inline']))).toBe(
      'authsrv: PASSWORD is a secret: give it as PASSWORD=- or --secret PASSWORD and type it at the prompt or pipe it in with --password-stdin',
    );
    expect(expectOneLineError(await c.run(['smsgateway', 'set', 'gw2', 'URL=http://x/']))).toBe(
      "authsrv: Missing parameter: 'module'",
    );
    expect(await json(['smsgateway', 'delete', 'gw1'])).toEqual({ deleted: 'gw1', id: listed.id });
    expect(expectOneLineError(await c.run(['smsgateway', 'delete', 'gw1']))).toBe(
      'authsrv: The requested SMSGateway could not be found.',
    );
    expect(expectOneLineError(await c.run(['smsgateway', 'list', 'gw1']))).toBe(
      'authsrv: There is no SMS gateway gw1',
    );

    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI smsgateway set', 1, `${CLI_USER}@cli`, 'gw1 http'],
      ['CLI smsgateway test', 1, `${CLI_USER}@cli`, 'gw1 +49 151 1'],
      ['CLI smsgateway set', 1, `${CLI_USER}@cli`, 'gw1'],
      ['CLI smsgateway test', 1, `${CLI_USER}@cli`, 'gw1 1'],
      ['CLI smsgateway test', 0, `${CLI_USER}@cli`, 'gw1 1 the gateway answered HTTP 503'],
      ['CLI smsgateway set', 0, `${CLI_USER}@cli`, "gw2 Missing parameter: 'module'"],
      ['CLI smsgateway delete', 1, `${CLI_USER}@cli`, 'gw1'],
      ['CLI smsgateway delete', 0, `${CLI_USER}@cli`, 'gw1 The requested SMSGateway could not be found.'],
    ]);
  });
});
