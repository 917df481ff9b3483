// `authsrv serve --host/--port/--workers`: the flags win over AUTHSRV_* variables and the
// configuration file, are checked like them, and are listed in --help.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type Cli, cleanEnv, launch, stop } from '../../helpers/authsrv-process.ts';
import { run } from '../../helpers/run.ts';

const LISTENING = /^authsrv \S+ listening on (https?:\/\/\S+) \(([^)]*)\)/m;

describe('authsrv serve flags', () => {
  let home: string;
  const running: Cli[] = [];
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-serve-flags-'));
  });
  afterAll(async () => {
    for (const cli of running) await stop(cli);
    rmSync(home, { recursive: true, force: true });
  });

  function serve(args: string[], env: Record<string, string>): Cli {
    const cli = launch(['serve', ...args], env, home);
    running.push(cli);
    return cli;
  }

  it('lists --host, --port and --workers with the precedence in --help', async () => {
    const help = await run(process.execPath, [BIN, 'serve', '--help'], { env: cleanEnv({}) });
    expect(help.status).toBe(0);
    for (const flag of ['--host <address>', '--port <number>', '--workers <number>'])
      expect(help.stdout).toContain(flag);
    expect(help.stdout).toContain('these flags, AUTHSRV_* variables, the configuration file, the default');
  });

  it('takes --host and --port over the environment and the configuration file', async () => {
    const file = join(home, 'ports.toml');
    writeFileSync(file, '[http]\nhost = "192.0.2.1"\nport = 1\n');
    const cli = serve(['--host', '127.0.0.1', '--port', '0'], {
      AUTHSRV_CONFIG: file,
      AUTHSRV_DATA_DIR: join(home, 'd1'),
      AUTHSRV_HTTP_PORT: '2',
    });
    const url = (await cli.waitFor(LISTENING))[1]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:(0|1|2)$/);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });

  it('starts --workers processes', async () => {
    const cli = serve(['--port', '0', '--workers', '2'], { AUTHSRV_DATA_DIR: join(home, 'd2') });
    const m = await cli.waitFor(LISTENING, 40_000);
    expect(m[2]).toContain('2 worker processes');
  });

  it('refuses a bad flag value with one line naming the setting and the command line', async () => {
    for (const [flag, value, key] of [
      ['--port', 'http', 'http.port'],
      ['--port', '70000', 'http.port'],
      ['--workers', '-1', 'http.workers'],
    ]) {
      const cli = launch(['serve', flag!, value!], { AUTHSRV_DATA_DIR: join(home, 'd3') }, home);
      const exit = await cli.exited;
      expect(exit.code).toBe(1);
      const lines = cli.output().stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(key);
      expect(lines[0]).toContain('command line');
      expect(cli.output().stdout).not.toMatch(LISTENING);
    }
  });
});
