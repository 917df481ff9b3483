import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyAdmin } from '../../../src/core/auth/admins.ts';
import { SESSION_ENDED } from '../../../src/core/auth/sessions.ts';
import { REUSE_MS } from '../../../src/core/change-counters.ts';
import { localOperator, withCaller } from '../../../src/core/context.ts';
import { setRealm } from '../../../src/core/realm/index.ts';
import { saveResolver } from '../../../src/core/resolver/index.ts';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError, type Json, runCli } from '../../helpers/cli.ts';
import { cliDialects, testDialects } from '../../helpers/dialects.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** JWTs carry whole seconds: waits for the next one, so that a change comes after a login's second. */
const nextSecond = () => sleep(1010 - (Date.now() % 1000));

describe.each(cliDialects())('authsrv admin on %s', (dialect) => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await cliEnv(dialect);
  });
  afterEach(async () => c?.close());

  async function auditRows() {
    const rt = await c.runtime();
    return rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
  }

  it('adds an administrator who can then log in at /auth', async () => {
    const r = await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n');
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe("Administrator 'alice' created.\n");
    const server = await c.server();
    const login = async (password: string) =>
      fetch(`${server.url}/auth`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'alice', password }),
      });
    const ok = await login('Alice-pass-1');
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as Json;
    expect(body.result.value).toMatchObject({ role: 'admin', username: 'alice' });
    expect((await login('Alice-pass-2')).status).toBe(401);
  });

  it('writes an audit row for each state change, attributed to <user>@cli', async () => {
    await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n');
    await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n');
    await c.run(['admin', 'passwd', 'alice', '--password-stdin'], 'Alice-pass-2\n');
    await c.run(['admin', 'list']);
    await c.run(['admin', 'delete', 'alice']);
    const rows = await auditRows();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info.split(' ')[0]])).toEqual([
      ['CLI admin add', 1, `${CLI_USER}@cli`, 'alice'],
      ['CLI admin add', 0, `${CLI_USER}@cli`, 'alice'],
      ['CLI admin passwd', 1, `${CLI_USER}@cli`, 'alice'],
      ['CLI admin delete', 1, `${CLI_USER}@cli`, 'alice'],
    ]);
    expect(rows[1]!.info).toContain('already exists');
    expect(rows[0]).toMatchObject({ node: 'cli-node', user_agent: 'authsrv-cli', client: '' });
    // Passwords never reach the audit log.
    expect(JSON.stringify(rows)).not.toContain('Alice-pass');
    const rt = await c.runtime();
    const row = rows[0]!;
    const { searchAudit } = await import('../../../src/core/audit/index.ts');
    const { localOperator, withCaller } = await import('../../../src/core/context.ts');
    const entry = (
      await searchAudit(withCaller(rt, localOperator()), { filters: { number: String(row.id) } })
    ).auditdata[0]!;
    expect(entry.sig_check).toBe('OK');
  });

  it('refuses a short password with a one-line error', async () => {
    const r = await c.run(['admin', 'add', 'bob', '--password-stdin'], 'short\n');
    expect(r.code).toBe(1);
    expect(expectOneLineError(r)).toBe('authsrv: The password must have at least 8 characters');
    expect(await verifyAdmin(await c.runtime(), 'bob', 'short')).toBe(false);
  });

  it('refuses a duplicate, an invalid name and an empty standard input', async () => {
    expect((await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n')).code).toBe(0);
    const dup = await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Other-pass-1\n');
    expect(expectOneLineError(dup)).toMatch(/already exists/);
    expect(await verifyAdmin(await c.runtime(), 'alice', 'Alice-pass-1')).toBe(true);
    expect(
      expectOneLineError(await c.run(['admin', 'add', 'bad name', '--password-stdin'], 'Pass-word-1\n')),
    ).toMatch(/Invalid administrator name/);
    expect(expectOneLineError(await c.run(['admin', 'add', 'carol', '--password-stdin'], ''))).toBe(
      'authsrv: No password on standard input',
    );
  });

  it('lists administrators as a table and as JSON', async () => {
    await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n');
    await c.run(['admin', 'add', 'bob', '--password-stdin'], 'Bob-pass-12\n');
    const json = await c.run(['admin', 'list', '--json']);
    expect(json.code).toBe(0);
    const list = JSON.parse(json.stdout);
    expect(list.map((a: { name: string }) => a.name)).toEqual(['alice', 'bob']);
    expect(list[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const table = await c.run(['admin', 'list']);
    expect(table.stdout).toMatch(/Name/);
    expect(table.stdout).toMatch(/alice/);
    expect(table.stdout).toMatch(/bob/);
  });

  it('lists no administrators as an empty JSON list', async () => {
    const r = await c.run(['admin', 'list', '--json']);
    expect(JSON.parse(r.stdout)).toEqual([]);
  });

  it('changes a password', async () => {
    await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n');
    const r = await c.run(['admin', 'passwd', 'alice', '--password-stdin'], 'Alice-pass-2\r\n');
    expect(r.code).toBe(0);
    const rt = await c.runtime();
    expect(await verifyAdmin(rt, 'alice', 'Alice-pass-2')).toBe(true);
    expect(await verifyAdmin(rt, 'alice', 'Alice-pass-1')).toBe(false);
    expect(
      expectOneLineError(await c.run(['admin', 'passwd', 'nobody', '--password-stdin'], 'Pass-word-1\n')),
    ).toMatch(/does not exist/);
    expect(
      expectOneLineError(await c.run(['admin', 'passwd', 'alice', '--password-stdin'], 'short\n')),
    ).toMatch(/at least 8/);
    expect(await verifyAdmin(rt, 'alice', 'Alice-pass-2')).toBe(true);
  });

  it("logs an administrator out: the running server refuses that one's JWT, a new login works", async () => {
    await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n');
    const server = await c.server();
    const login = async () => {
      const r = await fetch(`${server.url}/auth`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'alice', password: 'Alice-pass-1' }),
      });
      return ((await r.json()) as Json).result.value.token as string;
    };
    const tokens = async (token: string) => {
      const r = await fetch(`${server.url}/token/`, { headers: { Authorization: token } });
      return { status: r.status, json: (await r.json()) as Json };
    };
    const old = await login();
    expect((await tokens(old)).status).toBe(200);
    await nextSecond();
    const r = await c.run(['admin', 'logout', 'alice', '--json']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const ended = JSON.parse(r.stdout);
    expect(ended).toMatchObject({ name: 'alice', realm: '' });
    expect(Date.parse(ended.validAfter)).toBeGreaterThan(Date.now() - 10_000);
    // The CLI is another node: the server sees its change within REUSE_MS.
    await sleep(REUSE_MS + 50);
    const refused = await tokens(old);
    expect(refused.status).toBe(401);
    expect(refused.json.result.error).toEqual({ code: 4304, message: SESSION_ENDED });
    expect((await tokens(await login())).status).toBe(200);
    const text = await c.run(['admin', 'logout', 'alice']);
    expect(text.stdout).toMatch(
      /^Sessions of 'alice' ended: tokens issued before \d{4}-.*Z are refused\.\n$/,
    );
    expect(expectOneLineError(await c.run(['admin', 'logout', 'nobody']))).toBe(
      "authsrv: Administrator 'nobody' does not exist",
    );
    const rows = (await auditRows()).filter((row) => row.action === 'CLI admin logout');
    expect(rows.map((row) => [row.success, row.administrator, row.info.split(' ')[0]])).toEqual([
      [1, `${CLI_USER}@cli`, 'alice'],
      [1, `${CLI_USER}@cli`, 'alice'],
      [0, `${CLI_USER}@cli`, 'nobody'],
    ]);
  });

  it('logs a realm user out with --realm, whether or not the user store still knows the name', async () => {
    const rt = await c.runtime();
    const ctx = withCaller(rt, localOperator());
    const file = await writePasswdFile(c.dataDir, 'users', [{ login: 'bob', password: 'bobpw', uid: 1001 }]);
    await saveResolver(ctx, 'files', { type: 'passwdresolver', Filename: file });
    await setRealm(ctx, 'realm1', ['files'], {});
    const r = await c.run(['admin', 'logout', 'Bob', '--realm', 'REALM1', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: 'Bob', realm: 'realm1' });
    const gone = await c.run(['admin', 'logout', 'carol', '--realm', 'realm1']);
    expect(gone.stdout).toMatch(/^Sessions of carol@realm1 ended/);
    expect(
      await rt.store.db.selectFrom('session_revocation').select(['realm', 'username']).execute(),
    ).toEqual(
      expect.arrayContaining([
        { realm: 'realm1', username: 'bob' },
        { realm: 'realm1', username: 'carol' },
      ]),
    );
    expect(expectOneLineError(await c.run(['admin', 'logout', 'bob', '--realm', 'nosuch']))).toBe(
      "authsrv: The realm 'nosuch' does not exist.",
    );
    const row = (await auditRows()).find((x) => x.action === 'CLI admin logout');
    expect(row).toMatchObject({ success: 1, user: 'Bob', realm: 'realm1' });
  });

  it('deletes an administrator, and an unknown one is an error', async () => {
    await c.run(['admin', 'add', 'alice', '--password-stdin'], 'Alice-pass-1\n');
    const r = await c.run(['admin', 'delete', 'alice']);
    expect(r).toMatchObject({ code: 0, stdout: "Administrator 'alice' deleted.\n" });
    expect(JSON.parse((await c.run(['admin', 'list', '--json'])).stdout)).toEqual([]);
    const again = await c.run(['admin', 'delete', 'alice']);
    expect(again.code).not.toBe(0);
    expect(expectOneLineError(again)).toMatch(/'alice' does not exist/);
  });
});

describe.each(testDialects())('authsrv db upgrade on %s', (dialect) => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await cliEnv(dialect);
  });
  afterEach(async () => c?.close());

  it('applies the migrations to an empty database, then finds it up to date', async () => {
    const first = await c.run(['db', 'upgrade']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Applied: 0001_base, 0002_user_stores/);
    const second = await c.run(['db', 'upgrade']);
    expect(second).toMatchObject({ code: 0, stdout: 'Database schema is up to date.\n' });
    const rt = await c.runtime();
    const rows = await rt.store.db.selectFrom('audit').selectAll().execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator])).toEqual([
      ['CLI db upgrade', 1, `${CLI_USER}@cli`],
    ]);
  });
});

describe('authsrv admin before any database access', () => {
  let c: CliEnv;
  beforeAll(async () => {
    c = await cliEnv('sqlite');
  });
  afterAll(async () => c?.close());

  it('needs --password-stdin when there is no terminal', async () => {
    const r = await c.run(['admin', 'add', 'dave']);
    expect(r.code).toBe(1);
    expect(expectOneLineError(r)).toMatch(/No terminal.*--password-stdin/);
    const p = await c.run(['admin', 'passwd', 'admin']);
    expect(expectOneLineError(p)).toMatch(/--password-stdin/);
  });

  it('exits non-zero on unknown commands and options', async () => {
    expect((await c.run(['admin', 'frobnicate'])).code).not.toBe(0);
    expect((await c.run(['admin', 'list', '--yaml'])).code).not.toBe(0);
  });
});

describe('authsrv without a usable configuration', () => {
  it('reports a bad database URL and a missing config file in one line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'authsrv-cli-'));
    try {
      const env = { PATH: process.env.PATH, AUTHSRV_DATABASE_URL: 'oracle://x' };
      const bad = await runCli(['--data-dir', dir, 'admin', 'list'], { cwd: dir, env });
      expect(expectOneLineError(bad)).toMatch(/database_url/);
      const missing = await runCli(['--config', join(dir, 'nope.toml'), 'admin', 'list'], {
        cwd: dir,
        env: { PATH: process.env.PATH },
      });
      expect(expectOneLineError(missing)).toMatch(/nope\.toml/);
      expect(existsSync(join(dir, 'authsrv.db'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
