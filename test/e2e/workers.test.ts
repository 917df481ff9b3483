// `authsrv serve` with http.workers = 2: the real CLI in a child process (a node:cluster primary and
// its workers) on SQLite, and on PostgreSQL when AUTHSRV_TEST_POSTGRES_URL is set.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Answer,
  BIN,
  type Cli,
  CREATED,
  callNode as call,
  cleanEnv,
  launch,
  stop,
} from '../helpers/authsrv-process.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';

const LISTENING = /^authsrv (\S+) listening on (https?:\/\/\S+) \(.*\b(\d+) worker processes\)/m;
const WORKER_STARTED = /"worker":(\d+),"msg":"worker started"/g;
const KEY = '3132333435363738393031323334353637383930';

/** Pids of the workers the primary reported as started, in order. */
function workerPids(cli: Cli): number[] {
  return [...cli.output().stdout.matchAll(WORKER_STARTED)].map((m) => Number(m[1]));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
function ok(r: Answer): any {
  if (r.status !== 200 || r.json?.result?.status !== true) {
    throw new Error(`expected success, got HTTP ${r.status}: ${r.text}`);
  }
  return r.json.result.value;
}

const DIALECTS = process.env.AUTHSRV_TEST_POSTGRES_URL
  ? (['sqlite', 'postgres'] as const)
  : (['sqlite'] as const);

describe.each(DIALECTS)('authsrv serve with http.workers = 2 on %s', (dialect) => {
  let home: string;
  let db: TestDatabase | undefined;
  let cli: Cli;
  let url: string;
  let admin: string;
  let env: Record<string, string>;

  /** The distinct thread_id (a random id per process, never its pid) of the audit rows of `action`. */
  const auditPids = async (action: string): Promise<Set<string>> => {
    const rows = ok(await call(url, 'GET', '/audit/', { action, page_size: '200' }, admin)).auditdata as {
      thread_id: string;
    }[];
    return new Set(rows.map((r) => r.thread_id));
  };

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-workers-'));
    env = { AUTHSRV_DATA_DIR: join(home, 'data'), AUTHSRV_HTTP_PORT: '0', AUTHSRV_HTTP_WORKERS: '2' };
    if (dialect === 'postgres') {
      db = await createTestDatabase('postgres');
      env.AUTHSRV_DATABASE_URL = db.url;
    }
    cli = launch(['serve'], env, home);
    const password = (await cli.waitFor(CREATED))[1]!;
    const m = await cli.waitFor(LISTENING);
    url = m[2]!;
    expect(m[3]).toBe('2');
    admin = ok(await call(url, 'POST', '/auth', { username: 'admin', password })).token;
    // A token without a PIN and a high fail limit: the concurrent requests only race on the OTP.
    ok(await call(url, 'POST', '/token/init', { type: 'hotp', serial: 'WORK1', otpkey: KEY }, admin));
    ok(await call(url, 'POST', '/token/set', { serial: 'WORK1', max_failcount: '1000' }, admin));
  }, 60_000);

  afterAll(async () => {
    if (cli) await stop(cli);
    await db?.drop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('does the one-time work once: the admin password and the listening line are printed once', async () => {
    await cli.waitUntil(
      (s) => workerPids({ output: () => ({ stdout: s, stderr: '' }) } as Cli).length >= 2,
      'two workers',
    );
    const { stdout } = cli.output();
    expect(stdout.match(new RegExp(CREATED, 'gm'))).toHaveLength(1);
    expect(stdout.match(new RegExp(LISTENING, 'gm'))).toHaveLength(1);
    const pids = workerPids(cli);
    expect(new Set(pids).size).toBe(2);
    expect(pids).not.toContain(cli.child.pid);
    for (const pid of pids) expect(alive(pid)).toBe(true);
  });

  it('answers requests in more than one worker process (one audit thread_id each, not the pid)', async () => {
    for (let i = 0; i < 20; i++) {
      const r = await call(url, 'GET', '/token/', { serial: 'WORK1' }, admin);
      expect(ok(r).count).toBe(1);
    }
    let pids = new Set<string>();
    for (let i = 0; i < 50; i++) {
      pids = await auditPids('GET /token/');
      if (pids.size >= 2) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(pids.size).toBe(2);
    for (const pid of workerPids(cli)) expect(pids.has(String(pid))).toBe(false);
  });

  it('accepts one OTP value exactly once across the workers under 20 concurrent requests', async () => {
    for (const counter of [0, 1, 2]) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call(url, 'POST', '/validate/check', { serial: 'WORK1', pass: hotp(KEY, counter) }),
        ),
      );
      for (const a of answers) {
        expect(a.status, a.text).toBe(200);
        expect(a.json.result.status, a.text).toBe(true);
      }
      expect(answers.filter((a) => a.json.result.value === true)).toHaveLength(1);
    }
    expect((await auditPids('POST /validate/check')).size).toBe(2);
  });

  it('writes from both workers at once without database errors (fail counters, audit rows)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        i % 2 === 0
          ? call(url, 'POST', '/validate/check', { serial: 'WORK1', pass: '000000' })
          : call(url, 'POST', '/token/set', { serial: 'WORK1', description: `d${i}` }, admin),
      ),
    );
    for (const a of answers) {
      expect(a.status, a.text).toBe(200);
      expect(a.json.result.status, a.text).toBe(true);
    }
    expect(cli.output().stdout).not.toMatch(/SQLITE_BUSY|database is locked/);
    ok(await call(url, 'POST', '/token/reset', { serial: 'WORK1' }, admin));
  });

  it('replaces a worker that dies, and keeps answering', async () => {
    const [victim, survivor] = workerPids(cli);
    const before = await auditPids('GET /token/');
    process.kill(victim!, 'SIGKILL');
    await cli.waitUntil((s) => /worker exited unexpectedly/.test(s), 'the death to be logged');
    await cli.waitUntil(
      (s) => workerPids({ output: () => ({ stdout: s, stderr: '' }) } as Cli).length >= 3,
      'a new worker',
    );
    const replacement = workerPids(cli)[2]!;
    expect([victim, survivor]).not.toContain(replacement);
    expect(alive(replacement)).toBe(true);
    expect(alive(survivor!)).toBe(true);
    expect(cli.child.exitCode).toBeNull();
    for (let i = 0; i < 10; i++) ok(await call(url, 'GET', '/token/', { serial: 'WORK1' }, admin));
    // The replacement writes audit rows under a thread_id of its own, new beside the first two.
    const isNew = (ids: Set<string>) => [...ids].some((id) => !before.has(id));
    let ids = new Set<string>();
    for (let i = 0; i < 50 && !isNew(ids); i++) {
      for (let j = 0; j < 4; j++) await call(url, 'GET', '/healthz/livez');
      ok(await call(url, 'GET', '/token/', { serial: 'WORK1' }, admin));
      ids = await auditPids('GET /token/');
    }
    expect(isNew(ids)).toBe(true);
  });

  it('ends the primary and every worker on SIGTERM, exit code 0, no worker left', async () => {
    const pids = workerPids(cli);
    const live = pids.filter(alive);
    expect(live).toHaveLength(2);
    const exit = await stop(cli);
    expect(exit).toEqual({ code: 0, signal: null });
    for (const pid of pids) expect(alive(pid), `worker ${pid}`).toBe(false);
    await expect(call(url, 'GET', '/healthz/livez')).rejects.toThrow();
    expect(cli.output().stderr).toBe('');
  });
});

describe('authsrv serve with a bad http.workers', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-workers-bad-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const refused = async (args: string[], env: Record<string, string>) => {
    const cli = launch(args, { AUTHSRV_DATA_DIR: join(home, 'data'), AUTHSRV_HTTP_PORT: '0', ...env }, home);
    const exit = await cli.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    expect(cli.output().stdout).not.toMatch(/listening on/);
    const lines = cli.output().stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    return lines[0]!;
  };

  it('refuses a negative or non-integer value from the environment, naming the key', async () => {
    const negative = await refused(['serve'], { AUTHSRV_HTTP_WORKERS: '-1' });
    expect(negative).toContain('http.workers');
    expect(negative).toContain('AUTHSRV_HTTP_WORKERS');
    const text = await refused(['serve'], { AUTHSRV_HTTP_WORKERS: 'auto' });
    expect(text).toContain('http.workers');
    expect(text).toContain('integer');
  });

  it('refuses a string in the TOML file and a value above the maximum, naming the key', async () => {
    const file = join(home, 'w.toml');
    writeFileSync(file, '[http]\nworkers = "auto"\n');
    expect(await refused(['--config', file, 'serve'], {})).toContain('http.workers');
    writeFileSync(file, '[http]\nworkers = 100000\n');
    expect(await refused(['--config', file, 'serve'], {})).toMatch(/http\.workers.*at most/);
  });

  it('refuses several workers while the password-protected key is locked at start', async () => {
    const dataDir = join(home, 'locked');
    const env = cleanEnv({ AUTHSRV_DATA_DIR: dataDir });
    const p = spawnSync(process.execPath, [BIN, 'hsm', 'protect', '--password-stdin'], {
      cwd: home,
      env,
      input: 'Locked-Key-Password-1\n',
      encoding: 'utf8',
    });
    expect(p.status, p.stderr).toBe(0);
    const cli = launch(
      ['serve'],
      { AUTHSRV_DATA_DIR: dataDir, AUTHSRV_HTTP_PORT: '0', AUTHSRV_HTTP_WORKERS: '2' },
      home,
    );
    const exit = await cli.exited;
    expect(exit.code).toBe(1);
    expect(cli.output().stdout).not.toMatch(/listening on|Created administrator/);
    const message = cli.output().stderr.trim();
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toContain('http.workers');
    expect(message).toContain('security.key_password_file');

    // With the password file the key is unlocked in every worker at start, and they serve.
    const pwFile = join(home, 'key-password');
    writeFileSync(pwFile, 'Locked-Key-Password-1\n', { mode: 0o600 });
    const withFile = launch(
      ['serve'],
      {
        AUTHSRV_DATA_DIR: dataDir,
        AUTHSRV_HTTP_PORT: '0',
        AUTHSRV_HTTP_WORKERS: '2',
        AUTHSRV_SECURITY_KEY_PASSWORD_FILE: pwFile,
      },
      home,
    );
    try {
      const base = (await withFile.waitFor(LISTENING))[2]!;
      for (let i = 0; i < 4; i++) {
        const h = await call(base, 'GET', '/healthz');
        expect(h.status, h.text).toBe(200);
      }
    } finally {
      expect(await stop(withFile)).toEqual({ code: 0, signal: null });
    }
  });
});
