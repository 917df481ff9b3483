import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { htmlText, renderRst } from '../../helpers/docutils.ts';

describe.each(cliDialects())('authsrv config on %s', (dialect) => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await cliEnv(dialect);
  });
  afterEach(async () => c?.close());

  async function stored(name: string) {
    const rt = await c.runtime();
    return rt.store.db.selectFrom('config').selectAll().where('name', '=', name).executeTakeFirst();
  }

  it('sets, gets, lists and deletes entries, auditing each change', async () => {
    expect(
      await c.run(['config', 'set', 'email.port', '25', '--type', 'int', '--description', 'SMTP port']),
    ).toEqual({
      code: 0,
      stdout: 'email.port: insert\n',
      stderr: '',
    });
    expect((await c.run(['config', 'set', 'email.port', '587'])).stdout).toBe('email.port: update\n');
    expect(await stored('email.port')).toMatchObject({ value: '587', type: 'int', description: 'SMTP port' });
    expect(await c.run(['config', 'get', 'email.port'])).toMatchObject({ code: 0, stdout: '587\n' });
    expect((await c.run(['config', 'get', 'PrependPin'])).stdout).toBe('True\n');

    const json = await c.run(['config', 'list', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      PrependPin: 'True',
      splitAtSign: 'True',
      IncFailCountOnFalsePin: 'True',
      ReturnSamlAttributes: 'True',
      'email.port': '587',
    });
    const table = await c.run(['config', 'list']);
    expect(table.stdout).toMatch(/email\.port.*587/);

    expect(await c.run(['config', 'delete', 'email.port'])).toMatchObject({
      code: 0,
      stdout: 'email.port deleted.\n',
    });
    expect(await stored('email.port')).toBeUndefined();
    expect(expectOneLineError(await c.run(['config', 'get', 'email.port']))).toMatch(/not set/);
    expect(expectOneLineError(await c.run(['config', 'delete', 'email.port']))).toMatch(/does not exist/);

    const rt = await c.runtime();
    const rows = await rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info.split(' ')[0]])).toEqual([
      ['CLI config set', 1, `${CLI_USER}@cli`, 'email.port'],
      ['CLI config set', 1, `${CLI_USER}@cli`, 'email.port'],
      ['CLI config delete', 1, `${CLI_USER}@cli`, 'email.port'],
      ['CLI config delete', 0, `${CLI_USER}@cli`, 'email.port'],
    ]);
  });

  it('stores a password encrypted and prints it censored', async () => {
    expect(
      (await c.run(['config', 'set', 'email.password', 'Sekr1t-value', '--type', 'password'])).code,
    ).toBe(0);
    const row = (await stored('email.password'))!;
    expect(row.type).toBe('password');
    expect(row.value).toMatch(/^aesgcm1:/);
    expect(row.value).not.toContain('Sekr1t');
    expect((await c.run(['config', 'get', 'email.password'])).stdout).toBe('__CENSORED__\n');
    const list = await c.run(['config', 'list', '--json']);
    expect(JSON.parse(list.stdout)['email.password']).toBe('__CENSORED__');
    expect(list.stdout).not.toContain('Sekr1t');
    // The secret is not written to the audit log either.
    const rt = await c.runtime();
    expect(rt.hsm.decrypt(row.value)).toBe('Sekr1t-value');
    const audit = await rt.store.db.selectFrom('audit').selectAll().execute();
    expect(JSON.stringify(audit)).not.toContain('Sekr1t');
  });

  it('refuses bad entries with a one-line error and stores nothing', async () => {
    expect(expectOneLineError(await c.run(['config', 'set', 'n', 'abc', '--type', 'int']))).toMatch(
      /whole number/,
    );
    expect(expectOneLineError(await c.run(['config', 'set', 'k', 'v', '--type', 'blob']))).toMatch(
      /Invalid type/,
    );
    expect(expectOneLineError(await c.run(['config', 'set', 'bad key', 'v']))).toMatch(
      /Invalid configuration key/,
    );
    expect(expectOneLineError(await c.run(['config', 'set', 'DefaultOtpLen', '7']))).toMatch(/DefaultOtpLen/);
    const rt = await c.runtime();
    expect(await rt.store.db.selectFrom('config').selectAll().execute()).toEqual([]);
  });

  it('sets token defaults', async () => {
    const r = await c.run(['config', 'set-default', 'DefaultOtpLen=8', 'defaultmaxfailcount=5']);
    expect(r).toMatchObject({ code: 0, stdout: 'DefaultOtpLen: insert\nDefaultMaxFailCount: insert\n' });
    expect((await c.run(['config', 'get', 'DefaultOtpLen'])).stdout).toBe('8\n');
    expect((await c.run(['config', 'get', 'DefaultMaxFailCount'])).stdout).toBe('5\n');
    expect(expectOneLineError(await c.run(['config', 'set-default', 'DefaultOtpLen=7']))).toMatch(/6 or 8/);
    expect(expectOneLineError(await c.run(['config', 'set-default', 'DefaultOtpLen=6', 'Bogus=1']))).toMatch(
      /Bogus/,
    );
    expect(expectOneLineError(await c.run(['config', 'set-default', 'DefaultOtpLen']))).toMatch(/Name=value/);
    expect((await c.run(['config', 'get', 'DefaultOtpLen'])).stdout).toBe('8\n');
    const rt = await c.runtime();
    const rows = await rt.store.db.selectFrom('audit').select(['action', 'success']).orderBy('id').execute();
    expect(rows).toEqual([
      { action: 'CLI config set-default', success: 1 },
      { action: 'CLI config set-default', success: 0 },
      { action: 'CLI config set-default', success: 0 },
    ]);
  });

  it('protects the encryption key with hsm protect, after which a server starts locked', async () => {
    expect((await c.run(['config', 'set', 'pw', 'before-protect', '--type', 'password'])).code).toBe(0);
    const p = await c.run(['hsm', 'protect', '--password-stdin'], 'Hsm-password-1\n');
    expect(p.code).toBe(0);
    expect(p.stdout).toMatch(/password protected/);
    expect((await c.run(['hsm', 'status'])).stdout).toBe('protected: yes\nready: no\n');
    expect(JSON.parse((await c.run(['hsm', 'status', '--json'])).stdout)).toEqual({
      protected: true,
      ready: false,
    });
    // Without the key, a password cannot be stored; plain values still can.
    expect(expectOneLineError(await c.run(['config', 'set', 'pw2', 'x', '--type', 'password']))).toMatch(
      /security module is not ready/,
    );
    expect((await c.run(['config', 'set', 'plain', 'x'])).code).toBe(0);

    const rt = await c.runtime();
    expect(rt.hsm.isReady()).toBe(false);
    const server = await c.server();
    const call = async (method: string, path: string, params: Record<string, string>, token?: string) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          ...(token ? { Authorization: token } : {}),
        },
        body: method === 'GET' ? undefined : new URLSearchParams(params),
      });
      return { status: res.status, json: (await res.json()) as Json };
    };
    expect((await c.run(['admin', 'add', 'ops', '--password-stdin'], 'Ops-password-1\n')).code).toBe(0);
    const token = (await call('POST', '/auth', { username: 'ops', password: 'Ops-password-1' })).json.result
      .value.token as string;
    expect((await call('GET', '/system/hsm', {}, token)).json.result.value).toEqual({ is_ready: false });
    expect((await call('GET', '/healthz/readyz', {})).status).toBe(503);
    const unlocked = await call('POST', '/system/hsm', { password: 'Hsm-password-1' }, token);
    expect(unlocked.json.result.value).toEqual({ is_ready: true });
    const rows = await (await c.runtime()).store.db
      .selectFrom('audit')
      .select(['action', 'success'])
      .where('action', 'like', 'CLI %')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => r.action)).toEqual([
      'CLI config set',
      'CLI hsm protect',
      'CLI config set',
      'CLI config set',
      'CLI admin add',
    ]);
    expect(rows.map((r) => r.success)).toEqual([1, 1, 0, 1, 1]);
  });
});

describe.each(cliDialects())('authsrv config document on %s', (dialect) => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await cliEnv(dialect);
  });
  afterEach(async () => c?.close());

  it('prints the reStructuredText document of GET /system/documentation, secrets censored', async () => {
    await c.run(['config', 'set', 'email.password', 'Cli-Doc-Secret-9', '--type', 'password']);
    await c.run(['config', 'set', 'note', '.. include:: /etc/passwd *x*']);
    const r = await c.run(['config', 'document']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^=+\nauthsrv configuration of node cli-node\n=+\n/);
    expect(r.stdout).not.toContain('Cli-Doc-Secret-9');
    expect(r.stdout).toContain('__CENSORED__');
    const html = renderRst(r.stdout);
    expect(htmlText(html)).toContain('.. include:: /etc/passwd *x*');
    expect(html).not.toMatch(/system-message|<em>/);
  });
});
