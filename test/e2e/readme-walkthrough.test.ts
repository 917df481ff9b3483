// The README's quick start and five-minute walk-through, run as written on a fresh checkout (the
// files git tracks, copied to an empty directory; node_modules linked, which is what `npm ci`
// would put there): the server started by the quick start's command, then the walk-through's
// block run by bash, with the code an authenticator app would show (oathtool) typed at its prompt.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cli, cleanEnv, stop, watch } from '../helpers/authsrv-process.ts';

const root = resolve(import.meta.dirname, '../..');

/** The first ```sh block of a README section. */
function block(readme: string, heading: string): string {
  const section = readme.slice(readme.indexOf(`\n## ${heading}`));
  const m = /```sh\n([\s\S]*?)```/.exec(section);
  if (!m) throw new Error(`no sh block under ## ${heading}`);
  return m[1]!;
}

/** The files git tracks (as in the working tree), in a new directory. */
function freshCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'authsrv-readme-'));
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  for (const f of files.filter(Boolean)) {
    mkdirSync(dirname(join(dir, f)), { recursive: true });
    copyFileSync(join(root, f), join(dir, f));
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** The machine's environment: no AUTHSRV_ variables, no node_modules/.bin on PATH. */
function machineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = cleanEnv(extra);
  env.PATH = (env.PATH ?? '')
    .split(delimiter)
    .filter((d) => !d.includes('node_modules'))
    .join(delimiter);
  return env;
}

describe("the README's walk-through on a fresh checkout", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  let dir: string;
  let server: Cli | undefined;
  beforeAll(() => {
    dir = freshCheckout();
  });
  afterAll(async () => {
    if (server) await stop(server);
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts the server with the quick start command', async () => {
    expect(block(readme, 'Quick start').trim()).toBe('npm ci && npx authsrv serve');
    // `npm ci` is what linked node_modules stands for; the port is a free one instead of 5000.
    const child = spawn('npx', ['authsrv', 'serve'], {
      cwd: dir,
      env: machineEnv({ AUTHSRV_HTTP_PORT: '0' }),
    });
    server = watch(child);
    await server.waitFor(/^authsrv \S+ listening on http:\/\/127\.0\.0\.1:\d+/m, 60_000);
    expect(server.output().stdout).toMatch(/^Created administrator "admin" with password: \S+$/m);
    expect(server.output().stderr).toBe('');
  });

  it('runs the walk-through: realm, token with its QR code, and a login that is accepted', async () => {
    const script = block(readme, 'Five minutes: a realm, a token, a login');
    const bash = spawn('bash', ['-e', '-o', 'pipefail', '-c', script], { cwd: dir, env: machineEnv() });
    let stdout = '';
    let stderr = '';
    let typed = false;
    bash.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    bash.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const secret = /^otpauth URI: otpauth:\/\/totp\/\S*[?&]secret=([A-Z2-7]+)/m.exec(stdout)?.[1];
      if (secret && !typed) {
        typed = true;
        // What the authenticator app shows now (oathtool: an implementation independent of authsrv).
        const code = execFileSync('oathtool', ['--totp', '-b', secret], { encoding: 'utf8' }).trim();
        bash.stdin.end(`${code}\n`);
      }
    });
    const code = await new Promise<number | null>((done) => bash.on('exit', done));
    expect(stderr).toBe('');
    expect(stdout).toContain('Next: no realm yet');
    expect(stdout).toMatch(/^serial: TOTP\w+$/m);
    expect(stdout).toMatch(/█/);
    expect(stdout.trimEnd().split('\n').at(-1)).toBe('ACCEPT: matching 1 tokens');
    expect(code).toBe(0);
  });
});
