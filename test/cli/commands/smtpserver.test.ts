// `authsrv smtpserver list|set|delete|test`: the services and messages of /smtpserver/, --json, the
// password from standard input (never the command line) kept when left out, the test mail against a
// real SMTP server (test/helpers/smtp-sink.ts) with exit 1 and the reason on failure, and an audit
// row for every change.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { type SmtpSink, startSmtpSink } from '../../helpers/smtp-sink.ts';

let sink: SmtpSink;
beforeAll(async () => {
  sink = await startSmtpSink();
});
afterAll(async () => sink.close());

describe.each(cliDialects())('authsrv smtpserver on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));

  const list = async (): Promise<Json> => JSON.parse((await c.run(['smtpserver', 'list', '--json'])).stdout);
  const caFile = () => {
    const file = join(c.dataDir, 'smtp-ca.pem');
    writeFileSync(file, sink.cert);
    return file;
  };
  const fields = () => [
    ...['--server', '127.0.0.1', '--port', String(sink.port), '--username', sink.user],
    ...['--sender', 'otp@example.com', '--tls', '--timeout', '5', '--ca-file', caFile()],
  ];

  it('sets (password from stdin), lists censored, keeps the password, tests, deletes; audits each change', async () => {
    const created = await c.run(
      ['smtpserver', 'set', 'relay', ...fields(), '--password-stdin', '--json'],
      `${sink.password}\n`,
    );
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toEqual({ identifier: 'relay', created: true });
    expect(await list()).toEqual({
      relay: expect.objectContaining({
        server: '127.0.0.1',
        port: sink.port,
        password: '__CENSORED__',
        tls: true,
      }),
    });
    const table = await c.run(['smtpserver', 'list']);
    expect(table.stdout).toMatch(/relay +│ 127\.0\.0\.1/);
    expect(table.stdout).not.toContain(sink.password);
    // An update without the password keeps it.
    expect(await c.run(['smtpserver', 'set', 'relay', '--description', 'the relay'])).toEqual({
      code: 0,
      stdout: "SMTP server 'relay' updated.\n",
      stderr: '',
    });
    const sent = await c.run(['smtpserver', 'test', 'relay', '--recipient', 'alice@example.com', '--json']);
    expect(sent.code, sent.stderr).toBe(0);
    expect(JSON.parse(sent.stdout)).toMatchObject({ value: true });
    expect((await sink.nextMail()).to).toEqual(['alice@example.com']);

    // A failing test exits 1 with the reason.
    const refused = await c.run(
      ['smtpserver', 'test', 'relay', '--recipient', 'a@example.com', '--password-stdin'],
      'wrong\n',
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/authentication failed/);

    expect(JSON.parse((await c.run(['smtpserver', 'delete', 'relay', '--json'])).stdout)).toEqual({
      deleted: 'relay',
    });
    expect(await list()).toEqual({});
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI smtpserver set', 1, `${CLI_USER}@cli`, 'relay'],
      ['CLI smtpserver set', 1, `${CLI_USER}@cli`, 'relay'],
      ['CLI smtpserver delete', 1, `${CLI_USER}@cli`, 'relay'],
    ]);
  });

  it('refuses bad input and an unknown identifier with the messages of the API, writing nothing', async () => {
    expect(expectOneLineError(await c.run(['smtpserver', 'delete', 'nope']))).toBe(
      'authsrv: The SMTP server nope does not exist.',
    );
    expect(expectOneLineError(await c.run(['smtpserver', 'set', 'relay', '--port', '25']))).toBe(
      "authsrv: Missing parameter: 'server'",
    );
    expect(
      expectOneLineError(await c.run(['smtpserver', 'set', 'relay', ...fields(), '--port', 'x'])),
    ).toMatch(/port must be a whole number/);
    // No terminal to ask at: the password must be piped in.
    expect(
      expectOneLineError(await c.run(['smtpserver', 'set', 'relay', ...fields(), '--ask-password'])),
    ).toMatch(/--password-stdin/);
    expect(await list()).toEqual({});
  });
});
