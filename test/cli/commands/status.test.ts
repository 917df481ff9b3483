// `authsrv status` and `authsrv` alone: where things are, whether the server of this data
// directory runs, what is set up, and the next command; creating nothing on a new machine.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launch, stop } from '../../helpers/authsrv-process.ts';
import { type CliEnv, cliEnv } from '../../helpers/cli.ts';
import { type CliFixture, filesRealm, useCliEnv } from '../../helpers/cli-fixture.ts';

describe('authsrv status', () => {
  let c: CliEnv;
  let fresh: CliEnv;
  let f: CliFixture;
  useCliEnv('sqlite', 'all', (bound) => {
    f = bound;
    c = bound.c;
  });
  let freshDir: string;
  beforeAll(async () => {
    await filesRealm(f, [
      { login: 'alice', uid: 1001 },
      { login: 'bob', uid: 1002 },
    ]);
    fresh = await cliEnv('sqlite');
    freshDir = fresh.dataDir;
  });
  afterAll(async () => fresh?.close());

  it('says that nothing is set up on a new data directory, and creates nothing', async () => {
    const r = await fresh.run(['status']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toContain(`data directory: ${freshDir}`);
    expect(r.stdout).toContain('configuration:  no file (built-in defaults and AUTHSRV_* variables)');
    expect(r.stdout).toMatch(
      /server: +not running \(start it with: authsrv serve; it would listen on http:\/\/127\.0\.0\.1:\d+\)/,
    );
    expect(r.stdout).toContain('Nothing is set up in this data directory yet. Next:\n  authsrv serve');
    expect(existsSync(join(freshDir, 'encryption.key'))).toBe(false);
    expect(existsSync(join(freshDir, 'authsrv.db'))).toBe(false);
    // `authsrv` alone prints the same.
    expect((await fresh.run([])).stdout).toBe(r.stdout);
  });

  it('counts realms, users, tokens and administrators, and names the next command', async () => {
    const r = await c.run(['status']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toMatch(/^realms: +main \(default\)$/m);
    expect(r.stdout).toMatch(/^users: +2 \(main: 2\)$/m);
    expect(r.stdout).toMatch(/^tokens: +0$/m);
    expect(r.stdout).toContain(
      'Next: no token yet: enroll one for a user of realm main and scan its QR code.\n',
    );
    expect(r.stdout).toContain('  authsrv token init --type totp --user USER@main\n');
    const json = JSON.parse((await c.run(['status', '--json'])).stdout);
    expect(json).toMatchObject({
      dataDir: c.dataDir,
      config: null,
      setUp: true,
      server: { running: false },
      installation: { realms: [{ name: 'main', default: true, users: 2 }], tokens: 0 },
    });
    expect((await c.run(['token', 'init', '--type', 'hotp', '--no-qr'])).code).toBe(0);
    const after = await c.run(['status']);
    expect(after.stdout).toMatch(/^tokens: +1$/m);
    expect(after.stdout).toContain(
      'Try a login (PIN and OTP on standard input):  authsrv validate check --user USER@REALM --pass-stdin',
    );
  });

  it("reports this data directory's running server with its address and pid, and its end", async () => {
    const server = launch(['--data-dir', c.dataDir, 'serve', '--port', '0'], {}, c.dataDir);
    const url = (await server.waitFor(/listening on (http:\/\/\S+)/))[1]!;
    const running = JSON.parse((await c.run(['status', '--json'])).stdout);
    expect(running.server).toEqual({ running: true, url, pid: server.child.pid, ready: true });
    expect((await c.run(['status'])).stdout).toContain(
      `server:         running on ${url} (pid ${server.child.pid}, ready)`,
    );
    await stop(server);
    expect(existsSync(join(c.dataDir, 'serving.json'))).toBe(false);
    expect(JSON.parse((await c.run(['status', '--json'])).stdout).server.running).toBe(false);
  });

  it('refuses an unknown command instead of printing the status', async () => {
    const r = await c.run(['bogus']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("error: unknown command 'bogus'");
    expect(r.stdout).toBe('');
  });
});
