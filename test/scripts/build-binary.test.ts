// End-to-end check of the single executable: build it, run it alone in an empty directory (no
// node_modules, no node on PATH), authenticate the generated administrator, stop it cleanly.

import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const built = join(root, 'dist', 'authsrv');

/** Users of a passwd file with SHA-crypt and bcrypt hashes, and the password of each. */
const PASSWD_USERS = [
  'alice:$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1:1000:1000::/home/alice:/bin/sh',
  'bob:$2b$10$abcdefghijklmnopqrstuu23JPZtHcGhwXSF41f93o/7vBdDut3Xu:1001:1001::/home/bob:/bin/sh',
];

/**
 * Logins of a passwd realm's users, whose hashes are checked on a hash worker: in the executable,
 * a worker started from the script embedded as an asset. The file goes into the data directory.
 */
async function passwdLogins(port: number, adminToken: string, dataDir: string): Promise<boolean[]> {
  const api = (path: string, params: Record<string, string>, token?: string) =>
    fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: token ? { Authorization: token } : {},
      body: new URLSearchParams(params),
    }).then((r) => r.json() as Promise<{ result: { status: boolean } }>);
  const file = join(dataDir, 'users.passwd');
  writeFileSync(file, `${PASSWD_USERS.join('\n')}\n`, { mode: 0o600 });
  await api('/resolver/files', { type: 'passwdresolver', Filename: file }, adminToken);
  await api('/realm/people', { resolvers: 'files' }, adminToken);
  const login = async (username: string, password: string) =>
    (await api('/auth', { username, realm: 'people', password })).result.status;
  return [
    await login('alice', 'Hello world!'),
    await login('bob', 'correct horse'),
    await login('bob', 'wrong'),
  ];
}

describe('single executable dist/authsrv', () => {
  const base = mkdtempSync(join(tmpdir(), 'authsrv-binary-'));
  const runDir = join(base, 'run');
  const cacheDir = join(base, 'cache');

  beforeAll(() => {
    // vitest runs on Node 24, which is what the build script needs and copies into the binary.
    execFileSync(process.execPath, [join(root, 'scripts', 'build-binary.ts')], { cwd: root, stdio: 'pipe' });
  }, 300_000);

  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('serves /auth from an empty directory and stops on SIGTERM', { timeout: 60_000 }, async () => {
    mkdirSync(runDir);
    copyFileSync(built, join(runDir, 'authsrv'));

    // A clean environment: no node_modules on PATH, no NODE_OPTIONS or AUTHSRV_* leaking in.
    const path = (process.env.PATH ?? '')
      .split(delimiter)
      .filter((p) => !p.includes('node_modules'))
      .join(delimiter);
    const child = spawn('./authsrv', ['serve'], {
      cwd: runDir,
      env: { PATH: path, HOME: base, XDG_CACHE_HOME: cacheDir, AUTHSRV_HTTP_PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));

    try {
      // Both lines must appear; the administrator line comes first on a fresh data directory.
      const { port, password } = await new Promise<{ port: number; password: string }>((done, fail) => {
        let password: string | undefined;
        const timer = setTimeout(() => fail(new Error(`no start-up lines; stderr: ${stderr}`)), 30_000);
        exited.then((code) => fail(new Error(`exited with ${code}; stderr: ${stderr}`)));
        createInterface({ input: child.stdout }).on('line', (line) => {
          password ??= /^Created administrator "admin" with password: (\S+)/.exec(line)?.[1];
          const port = /^authsrv \S+ listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(line)?.[1];
          if (port && password) {
            clearTimeout(timer);
            done({ port: Number(port), password });
          }
        });
      });

      const res = await fetch(`http://127.0.0.1:${port}/auth`, {
        method: 'POST',
        body: new URLSearchParams({ username: 'admin', password }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { result: { status: boolean; value: { token: unknown } } };
      expect(body.result.status).toBe(true);
      expect(typeof body.result.value.token).toBe('string');

      // An enrollment: the token types and their QR codes (lean-qr, node:zlib) are in the bundle.
      const init = await fetch(`http://127.0.0.1:${port}/token/init`, {
        method: 'POST',
        headers: { Authorization: String(body.result.value.token) },
        body: new URLSearchParams({ type: 'totp', genkey: '1' }),
      });
      const enrolled = (await init.json()) as { detail: { googleurl: { img: string } } };
      expect(enrolled.detail.googleurl.img).toMatch(/^data:image\/png;base64,iVBOR/);

      await expect(
        passwdLogins(port, String(body.result.value.token), join(runDir, 'data')),
      ).resolves.toEqual([true, true, false]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
    expect(stderr).not.toMatch(/Warning/);

    // The server's database and keys, private to the service account.
    const dataDir = join(runDir, 'data');
    const files = readdirSync(dataDir).filter((f) => statSync(join(dataDir, f)).isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect([f, statSync(join(dataDir, f)).mode & 0o777]).toEqual([f, 0o600]);

    // The SQLite addon was unpacked into the cache, named by its hash (src/store/sqlite-binding.ts).
    const prebuild = join(
      root,
      'node_modules/better-sqlite3/prebuilds',
      `${process.platform}-${process.arch}.node`,
    );
    const hash = createHash('sha256').update(readFileSync(prebuild)).digest('hex');
    const addon = join(cacheDir, 'authsrv', `better_sqlite3-${hash}.node`);
    expect(statSync(addon).mode & 0o777).toBe(0o755);
  });
});
