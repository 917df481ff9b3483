// The headers of every answer over HTTP (a JSON answer, an error, a 404, a 405, a download, Node's
// own 431), HSTS on a server that speaks TLS, detail.threadid (not the process id; the audit row's
// thread_id), and an error naming a file of the server: generic to an unauthenticated caller, in
// full in the audit and to an administrator.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeUserStores } from '../../src/core/directory/index.ts';
import { SERVER_DETAIL_TEXT } from '../../src/errors.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok, writePasswdFile } from '../helpers/user-stores.ts';

const EVERY_ANSWER = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
};
const HEADER_NAMES = [...Object.keys(EVERY_ANSWER), 'strict-transport-security'];

function headersOf(h: { get(name: string): string | null }): Record<string, string | null> {
  return Object.fromEntries(HEADER_NAMES.map((name) => [name, h.get(name)]));
}
const PLAIN = { ...EVERY_ANSWER, 'strict-transport-security': null };

describe.each(testDialects())('HTTP headers and what answers reveal on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(dialect, { realms: { realm1: [pwUser('alice', 1001)] } }, (t) => ({ s, admin } = t));

  beforeAll(async () => {
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'spass', pin: 'alicepin', user: 'alice', realm: 'realm1' },
        admin,
      ),
    );
  });

  it('are on a JSON answer, an error, a 404, a 405 and a download', async () => {
    const answers = {
      json: await s.call('GET', '/healthz'),
      login: await s.call('POST', '/auth', { username: 'admin', password: s.adminPassword }),
      unauthenticated: await s.call('GET', '/token/'),
      serviceError: await s.call('GET', '/system/random', { len: 'abc' }, admin),
      notFound: await s.call('GET', '/no/such/path'),
      wrongMethod: await s.call('PUT', '/auth'),
      download: await s.call('GET', '/audit/audit.csv', {}, admin),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, r.status]))).toEqual({
      json: 200,
      login: 200,
      unauthenticated: 401,
      serviceError: 200,
      notFound: 404,
      wrongMethod: 405,
      download: 200,
    });
    expect(answers.download.headers.get('content-disposition')).toMatch(/^attachment/);
    for (const [what, r] of Object.entries(answers)) expect(headersOf(r.headers), what).toEqual(PLAIN);
  });

  it("are on Node's own answer to a request it cannot read (a URL over 16 KiB)", async () => {
    const r = await fetch(`${s.url}/token/?serial=${'x'.repeat(20_000)}`);
    expect(r.status).toBe(431);
    expect(headersOf(r.headers)).toEqual(PLAIN);
  });

  it('detail.threadid is a per-process id, not the process id, and the audit row holds it', async () => {
    const ua = `threadid-probe-${dialect}`;
    const res = await fetch(`${s.url}/validate/check`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': ua },
      body: new URLSearchParams({ user: 'alice', realm: 'realm1', pass: 'alicepin' }),
    });
    const answer = (await res.json()) as { result: { authentication: string }; detail: { threadid: number } };
    expect(answer.result.authentication).toBe('ACCEPT');
    const threadid = answer.detail.threadid;
    expect(Number.isSafeInteger(threadid) && threadid > 0).toBe(true);
    expect(threadid).not.toBe(process.pid);
    const again = ok(
      await s.call('POST', '/validate/check', { user: 'alice', realm: 'realm1', pass: 'wrong' }),
    );
    expect(again).toBe(false);
    const row = await s.rt.store.db
      .selectFrom('audit')
      .select('thread_id')
      .where('user_agent', '=', ua)
      .executeTakeFirstOrThrow();
    expect(row.thread_id).toBe(String(threadid));
    expect(row.thread_id).not.toBe(String(process.pid));
  });

  it('an error naming a file of the server is generic to outsiders, in full to the audit and administrators', async () => {
    const file = await writePasswdFile(s.dataDir, 'vanishing', [pwUser('bob', 2001)]);
    ok(await s.call('POST', '/resolver/vanishing', { type: 'passwdresolver', Filename: file }, admin));
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'vanishing' }, admin));
    rmSync(file);
    await closeUserStores(s.rt); // the store is opened again, from the missing file
    const ua = `path-probe-${dialect}`;
    const res = await fetch(`${s.url}/validate/check`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': ua },
      body: new URLSearchParams({ user: 'bob', realm: 'realm2', pass: 'x' }),
    });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(JSON.parse(text).result.error).toEqual({ code: 905, message: `ERR905: ${SERVER_DETAIL_TEXT}` });
    expect(text).not.toContain(s.dataDir);
    const row = await s.rt.store.db
      .selectFrom('audit')
      .select(['info', 'success'])
      .where('user_agent', '=', ua)
      .executeTakeFirstOrThrow();
    expect(row.info).toContain(file);
    // The administrator who configures the resolver is told which file.
    const r = await s.call('GET', '/user/', { realm: 'realm2' }, admin);
    expectServiceError(r, 905, `Filename: ${file} does not exist`);
  });
});

describe('HTTP headers on a server that speaks TLS', () => {
  let s: TestServer;
  let dir: string;
  let cert: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authsrv-tls-'));
    cert = join(dir, 'cert.pem');
    const key = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1'],
        ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ],
      { stdio: 'ignore' },
    );
    s = await startTestServer({ config: { 'http.tls_cert': cert, 'http.tls_key': key } });
  });
  afterAll(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('adds Strict-Transport-Security to every answer', async () => {
    expect(s.url).toMatch(/^https:/);
    for (const path of ['/healthz', '/no/such/path', '/token/']) {
      const headers = await new Promise<Record<string, string | null>>((done, fail) => {
        const req = httpsRequest(`${s.url}${path}`, { ca: readFileSync(cert) }, (res) => {
          res.resume();
          res.on('end', () =>
            done(headersOf({ get: (n) => (res.headers[n] as string | undefined) ?? null })),
          );
        });
        req.on('error', fail);
        req.end();
      });
      expect(headers, path).toEqual({ ...EVERY_ANSWER, 'strict-transport-security': 'max-age=31536000' });
    }
  });
});
