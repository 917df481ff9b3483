// The real CLI: `node bin/authsrv serve` in a child process, as an operator runs it.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cli, CREATED, launch, stop } from '../helpers/authsrv-process.ts';
import { run } from '../helpers/run.ts';

const LISTENING = /^authsrv (\S+) listening on (https?:\/\/\S+)/m;

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
async function json(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

describe('authsrv serve', () => {
  let home: string;
  let dataDir: string;
  let first: Cli;
  let url: string;
  let password: string;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-serve-'));
    dataDir = join(home, 'data');
    first = launch(['serve'], { AUTHSRV_DATA_DIR: dataDir, AUTHSRV_HTTP_PORT: '0' }, home);
    password = (await first.waitFor(CREATED))[1]!;
    url = (await first.waitFor(LISTENING))[2]!;
  });
  afterAll(async () => {
    if (first) await stop(first);
    rmSync(home, { recursive: true, force: true });
  });

  it('prints the first administrator password and the listening address on first start', async () => {
    const { stdout } = first.output();
    expect(password.length).toBeGreaterThanOrEqual(16);
    const m = stdout.match(LISTENING)!;
    expect(m[1]).toMatch(/^\d+\.\d+\.\d+/);
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(url).not.toMatch(/:0$/);
    const login = await json(`${url}/auth`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password }).toString(),
    });
    expect(login.status).toBe(200);
    expect(login.body.result.value.role).toBe('admin');
  });

  it('creates the data directory files with mode 0600 (directory 0700)', () => {
    for (const name of ['encryption.key', 'signing.key', 'signing.pub', 'jwt.secret', 'authsrv.db']) {
      const mode = statSync(join(dataDir, name)).mode & 0o777;
      expect({ name, mode: mode.toString(8) }).toEqual({ name, mode: '600' });
    }
    expect((statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
  });

  it('answers the health probes', async () => {
    const h = await json(`${url}/healthz`);
    expect(h.status).toBe(200);
    expect(h.body.result.value.status).toBe('OK');
    const l = await json(`${url}/healthz/livez`);
    expect(l.status).toBe(200);
    expect(l.body.result.status).toBe(true);
  });

  it('handles requests that carry secrets (checked against the output below)', async () => {
    const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
    const bad = await json(`${url}/auth`, {
      method: 'POST',
      headers: form,
      body: 'username=admin&password=Wrong-Secret-4711',
    });
    expect(bad.status).toBe(401);
    const token = (
      await json(`${url}/auth`, {
        method: 'POST',
        headers: form,
        body: new URLSearchParams({ username: 'admin', password }).toString(),
      })
    ).body.result.value.token;
    const set = await json(`${url}/system/setConfig`, {
      method: 'POST',
      headers: { ...form, Authorization: token },
      body: 'mail.secret=Config-Secret-0815&mail.secret.type=password',
    });
    expect(set.body.result.value).toBe(true);
    const broken = await json(`${url}/auth`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"username": "admin", "password": "Json-Secret-42"',
    });
    expect(broken.status).toBe(400);
  });

  it('finishes an in-flight request on SIGTERM, exits 0, and does not recreate the admin', async () => {
    const body = new URLSearchParams({ username: 'admin', password }).toString();
    const half = Math.floor(body.length / 2);
    const u = new URL(`${url}/auth`);
    let aliveWhenBodyEnded: boolean | undefined;
    let newConnectionWhileStopping: string | undefined;
    const response = new Promise<{ status: number; text: string; connection?: string }>((done, fail) => {
      const req = httpRequest(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            'Content-Type': 'application/x-www-form-urlencoded',
            'Content-Length': Buffer.byteLength(body),
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => {
            text += d;
          });
          res.on('end', () =>
            done({ status: res.statusCode ?? 0, text, connection: res.headers.connection }),
          );
        },
      );
      req.on('error', fail);
      req.flushHeaders();
      req.write(body.slice(0, half));
      req.on('socket', (socket) =>
        socket.once('connect', () =>
          setTimeout(async () => {
            first.child.kill('SIGTERM');
            // The rest of the body comes once the server has stopped taking new connections.
            for (let i = 0; i < 100 && newConnectionWhileStopping !== 'refused'; i++) {
              newConnectionWhileStopping = await fetch(`${url}/healthz/livez`).then(
                (r) => `answered ${r.status}`,
                () => 'refused',
              );
              if (newConnectionWhileStopping !== 'refused') await new Promise((r) => setTimeout(r, 100));
            }
            aliveWhenBodyEnded = first.child.exitCode === null;
            req.end(body.slice(half));
          }, 500),
        ),
      );
    });
    const answer = await response;
    expect(aliveWhenBodyEnded).toBe(true);
    expect(newConnectionWhileStopping).toBe('refused');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).result.value.role).toBe('admin');
    // The keep-alive client is told to go, so its idle connection cannot delay the exit.
    expect(answer.connection).toBe('close');
    const started = Date.now();
    const exit = await first.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    // Idle keep-alive connections must not hold the stop up until their timeout.
    expect(Date.now() - started).toBeLessThan(4000);
    // No new connections once stopped.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow();

    const again = launch(['serve'], { AUTHSRV_DATA_DIR: dataDir, AUTHSRV_HTTP_PORT: '0' }, home);
    try {
      const secondUrl = (await again.waitFor(LISTENING))[2]!;
      expect(again.output().stdout).not.toMatch(/Created administrator/);
      expect(again.output().stdout).not.toContain(password);
      const login = await json(`${secondUrl}/auth`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'admin', password }).toString(),
      });
      expect(login.status).toBe(200);
    } finally {
      expect(await stop(again)).toEqual({ code: 0, signal: null });
    }
  });

  it('never writes the admin password again, nor the JWT secret or key material', () => {
    const { stdout, stderr } = first.output();
    const all = stdout + stderr;
    const afterFirstLine = all.slice(all.indexOf(password) + password.length);
    expect(afterFirstLine).not.toContain(password);
    const jwtSecret = readFileSync(join(dataDir, 'jwt.secret'), 'utf8').trim();
    expect(jwtSecret.length).toBeGreaterThan(20);
    expect(all).not.toContain(jwtSecret);
    expect(all).not.toContain(Buffer.from(jwtSecret, 'base64').toString('hex'));
    expect(all).not.toContain('PRIVATE KEY');
    for (const secret of ['Wrong-Secret-4711', 'Config-Secret-0815', 'Json-Secret-42']) {
      expect(all).not.toContain(secret);
    }
    const keyFile = readFileSync(join(dataDir, 'encryption.key'), 'utf8').trim();
    for (const line of keyFile.split('\n').filter((l) => l.length > 16)) expect(all).not.toContain(line);
  });
});

describe('authsrv serve with a bad configuration', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-badconf-'));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('stops with a one-line message naming a bad environment value', async () => {
    const cli = launch(['serve'], { AUTHSRV_DATA_DIR: join(home, 'd1'), AUTHSRV_HTTP_PORT: 'abc' }, home);
    const exit = await cli.exited;
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    const { stdout, stderr } = cli.output();
    expect(stdout).not.toMatch(LISTENING);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('http.port');
    expect(lines[0]).toContain('AUTHSRV_HTTP_PORT');
  });

  it('stops with a one-line message naming an unknown key of the TOML file', async () => {
    const file = join(home, 'authsrv.toml');
    writeFileSync(file, '[http]\nport = 0\nbogus_key = 1\n');
    const cli = launch(['--config', file, 'serve'], { AUTHSRV_DATA_DIR: join(home, 'd2') }, home);
    const exit = await cli.exited;
    expect(exit.code).not.toBe(0);
    const lines = cli.output().stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('http.bogus_key');
  });

  it('stops with a one-line message for a value of the wrong type in the TOML file', async () => {
    const file = join(home, 'typed.toml');
    writeFileSync(file, '[security]\njwt_validity = "an hour"\n');
    const cli = launch(['--config', file, 'serve'], { AUTHSRV_DATA_DIR: join(home, 'd3') }, home);
    expect((await cli.exited).code).not.toBe(0);
    const lines = cli.output().stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('security.jwt_validity');
  });
});

describe('authsrv serve over HTTPS', () => {
  let home: string;
  let cli: Cli | undefined;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-tls-'));
  });
  afterAll(async () => {
    if (cli) await stop(cli);
    rmSync(home, { recursive: true, force: true });
  });

  it('serves the API with the configured certificate and key', async () => {
    const cert = join(home, 'cert.pem');
    const key = join(home, 'key.pem');
    const gen = await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ]);
    expect(gen.status).toBe(0);
    cli = launch(
      ['serve'],
      {
        AUTHSRV_DATA_DIR: join(home, 'data'),
        AUTHSRV_HTTP_PORT: '0',
        AUTHSRV_HTTP_TLS_CERT: cert,
        AUTHSRV_HTTP_TLS_KEY: key,
      },
      home,
    );
    const password = (await cli.waitFor(CREATED))[1]!;
    const url = (await cli.waitFor(LISTENING))[2]!;
    expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const u = new URL(`${url}/auth`);
    const body = new URLSearchParams({ username: 'admin', password }).toString();
    const answer = await new Promise<{ status: number; text: string }>((done, fail) => {
      const req = httpsRequest(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          ca: readFileSync(cert),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': body.length },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => {
            text += d;
          });
          res.on('end', () => done({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', fail);
      req.end(body);
    });
    expect(answer.status).toBe(200);
    const parsed = JSON.parse(answer.text);
    expect(parsed.result.value.role).toBe('admin');
    expect(parsed.signature).toMatch(/^rsa_sha256_pss:/);
    // Plain HTTP on the TLS port is not answered as an API.
    const plain = await fetch(url.replace('https:', 'http:')).then(
      (r) => r.status,
      () => 'refused',
    );
    expect(plain).not.toBe(200);
    expect(await stop(cli)).toEqual({ code: 0, signal: null });
    cli = undefined;
  });
});
