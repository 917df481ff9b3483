import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.ts';
import { ensureInitialAdmin } from '../../src/core/auth/admins.ts';
import { issueJwt } from '../../src/core/auth/auth.ts';
import { localOperator, type Runtime, withCaller } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { type RunningServer, startServer } from '../../src/http/server.ts';
import type { Json } from '../helpers/cli.ts';
import { removeConfig } from '../helpers/config.ts';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { passwdRealm } from '../helpers/user-stores.ts';

const SEALED = /^aesgcm1:/;
const USAGE =
  'ERR77: Usage: parameters are: DefaultMaxFailCount, DefaultSyncWindow, DefaultCountWindow, DefaultOtpLen, DefaultResetFailCount';

describe.each(testDialects())('/system on %s', (dialect) => {
  let s: TestServer;
  let token: string;
  beforeAll(async () => {
    s = await startTestServer({ dialect });
  });
  afterAll(async () => s?.close());
  beforeEach(async () => {
    await removeConfig(s.rt);
    token = await s.adminToken();
  });

  const get = (path: string, params: Record<string, string> = {}) => s.call('GET', path, params, token);
  const post = (path: string, params: Record<string, string>) => s.call('POST', path, params, token);
  const configRow = (name: string) =>
    s.rt.store.db.selectFrom('config').selectAll().where('name', '=', name).executeTakeFirst();
  const configCount = async () => (await s.rt.store.db.selectFrom('config').select('name').execute()).length;
  function expectError(
    r: { status: number; json: { result: { status: boolean; error: { code: number } } } },
    code: number,
  ) {
    expect(r.status).toBe(200);
    expect(r.json.result.status).toBe(false);
    expect(r.json.result.error.code).toBe(code);
  }

  describe('reading', () => {
    it('reports the true-when-absent defaults', async () => {
      const r = await get('/system/');
      expect(r.status).toBe(200);
      expect(r.json.result.status).toBe(true);
      expect(r.json.result.value).toEqual({
        PrependPin: 'True',
        splitAtSign: 'True',
        IncFailCountOnFalsePin: 'True',
        ReturnSamlAttributes: 'True',
      });
    });

    it('reads one key, or null when it is not set', async () => {
      expect((await get('/system/PrependPin')).json.result.value).toBe('True');
      expect((await get('/system/nosuchkey')).json.result).toEqual({ status: true, value: null });
      await post('/system/setConfig', { 'email.port': '25' });
      expect((await get('/system/email.port')).json.result.value).toBe('25');
      expect((await get('/system/email.port/')).json.result.value).toBe('25');
    });

    it('shows users only public keys and identifiers, and refuses them writes', async () => {
      // A user's JWT stands while its realm does.
      await passwdRealm(s, 'r1');
      await post('/system/setConfig', {
        'hotp.hashlib': 'sha256',
        'hotp.hashlib.type': 'public',
        'email.identifier': 'mail1',
        secretish: 'x',
      });
      const user = await issueJwt(
        s.rt,
        { role: 'user', username: 'bob', realm: 'r1', authtype: 'password', client: '' },
        [],
      );
      const r = await s.call('GET', '/system/', {}, user);
      expect(r.json.result.value).toEqual({ 'hotp.hashlib': 'sha256', 'email.identifier': 'mail1' });
      expect((await s.call('GET', '/system/secretish', {}, user)).json.result.value).toBeNull();
      const w = await s.call('POST', '/system/setConfig', { a: 'b' }, user);
      expect(w.status).toBe(401);
      expect(w.json.result.error.code).toBe(4306);
      expect((await s.call('GET', '/system/random', {}, user)).status).toBe(401);
      expect((await s.call('DELETE', '/system/secretish', {}, user)).status).toBe(401);
      expect(await configRow('a')).toBeUndefined();
    });

    it('needs a JWT', async () => {
      const r = await s.call('GET', '/system/');
      expect(r.status).toBe(401);
      expect(r.json.result.error.code).toBe(4033);
    });
  });

  describe('setConfig', () => {
    it('takes the key/value/type/description form', async () => {
      const r = await post('/system/setConfig', {
        key: 'mykey',
        value: '42',
        type: 'int',
        description: 'the answer',
      });
      expect(r.json.result).toEqual({ status: true, value: true });
      expect(await configRow('mykey')).toEqual({
        name: 'mykey',
        value: '42',
        type: 'int',
        description: 'the answer',
      });
      expect((await get('/system/mykey')).json.result.value).toBe('42');
    });

    it('takes generic name=value pairs with name.type and name.desc', async () => {
      const r = await post('/system/setConfig', {
        'email.mailserver': 'smtp.example.org',
        'email.mailserver.desc': 'outgoing mail',
        'email.port': '587',
        'email.port.type': 'int',
      });
      expect(r.json.result).toEqual({ status: true, value: true });
      expect(await configRow('email.mailserver')).toMatchObject({
        value: 'smtp.example.org',
        type: '',
        description: 'outgoing mail',
      });
      expect(await configRow('email.port')).toMatchObject({ value: '587', type: 'int' });
      const all = (await get('/system/')).json.result.value;
      expect(all).toMatchObject({ 'email.mailserver': 'smtp.example.org', 'email.port': '587' });
      expect(all).not.toHaveProperty('email.port.type');
    });

    it('takes a JSON body', async () => {
      const res = await fetch(`${s.url}/system/setConfig`, {
        method: 'POST',
        headers: { Authorization: token, 'Content-Type': 'application/json' },
        body: JSON.stringify({ 'totp.timeStep': 60, splitAtSign: false }),
      });
      expect(((await res.json()) as Json).result.value).toBe(true);
      expect((await configRow('totp.timeStep'))?.value).toBe('60');
      expect((await configRow('splitAtSign'))?.value).toBe('False');
    });

    it('stores a password-typed value encrypted and shows it only as __CENSORED__', async () => {
      const r = await post('/system/setConfig', {
        'email.password': 'TopSecret!1',
        'email.password.type': 'password',
      });
      expect(r.json.result.value).toBe(true);
      const row = (await configRow('email.password'))!;
      expect(row.type).toBe('password');
      expect(row.value).toMatch(SEALED);
      expect(row.value).not.toContain('TopSecret');
      expect(s.rt.hsm.decrypt(row.value)).toBe('TopSecret!1');
      expect((await get('/system/')).json.result.value['email.password']).toBe('__CENSORED__');
      expect((await get('/system/email.password')).json.result.value).toBe('__CENSORED__');
      expect((await get('/system/')).text).not.toContain('TopSecret');

      // The key/value form too.
      await post('/system/setConfig', { key: 'radius.secret', value: 'Sesame-123', type: 'password' });
      const r2 = (await configRow('radius.secret'))!;
      expect(r2.value).toMatch(SEALED);
      expect(s.rt.hsm.decrypt(r2.value)).toBe('Sesame-123');
    });

    it('keeps a password entry encrypted when it is updated without repeating its type', async () => {
      await post('/system/setConfig', {
        'email.password': 'first-secret',
        'email.password.type': 'password',
      });
      await post('/system/setConfig', { 'email.password': 'second-secret' });
      const row = (await configRow('email.password'))!;
      expect(row.type).toBe('password');
      expect(row.value).toMatch(SEALED);
      expect(s.rt.hsm.decrypt(row.value)).toBe('second-secret');
      expect((await get('/system/email.password')).json.result.value).toBe('__CENSORED__');
    });

    it('keeps the description of an entry updated without one', async () => {
      await post('/system/setConfig', { k1: 'a', 'k1.desc': 'what k1 is' });
      await post('/system/setConfig', { k1: 'b' });
      expect(await configRow('k1')).toMatchObject({ value: 'b', description: 'what k1 is' });
    });

    it('validates int-typed values', async () => {
      expectError(await post('/system/setConfig', { key: 'n', value: 'twelve', type: 'int' }), 905);
      expectError(await post('/system/setConfig', { n: '1.5', 'n.type': 'int' }), 905);
      expect(await configRow('n')).toBeUndefined();
      expect((await post('/system/setConfig', { n: '-3', 'n.type': 'int' })).json.result.value).toBe(true);
    });

    it("takes keys named like an object's inherited members as ordinary keys", async () => {
      // Found by test/e2e/fuzz.test.ts: `hasOwnProperty=0` answered HTTP 500.
      const r = await post('/system/setConfig', { hasOwnProperty: '0', constructor: '1', valueOf: '2' });
      expect(r.json.result).toEqual({ status: true, value: true });
      expect((await get('/system/hasOwnProperty')).json.result.value).toBe('0');
      expect((await get('/system/')).json.result.value).toMatchObject({ constructor: '1', valueOf: '2' });
      expect((await get('/system/toString')).json.result.value).toBeNull();
      const lone = await post('/system/setConfig', { 'constructor.type': 'int', other: 'x' });
      expectError(lone, 905);
      expect(lone.json.result.error.message).toBe(
        "ERR905: 'constructor.type' is given without 'constructor'",
      );
    });

    it('refuses an unknown type', async () => {
      const r = await post('/system/setConfig', { key: 'k', value: 'v', type: 'blob' });
      expectError(r, 905);
      expect(r.json.result.error.message).toMatch(/^ERR905: .*type/);
    });

    it('validates well-known keys and normalises booleans', async () => {
      const r = await post('/system/setConfig', { DefaultOtpLen: '7' });
      expectError(r, 905);
      expect(r.json.result.error.message).toContain('DefaultOtpLen');
      expect(await configRow('DefaultOtpLen')).toBeUndefined();
      expectError(await post('/system/setConfig', { DefaultMaxFailCount: '-1' }), 905);
      expectError(await post('/system/setConfig', { PrependPin: 'maybe' }), 905);
      await post('/system/setConfig', { PrependPin: '0', splitAtSign: 'true', AutoResync: '1' });
      expect((await get('/system/')).json.result.value).toMatchObject({
        PrependPin: 'False',
        splitAtSign: 'True',
        AutoResync: 'True',
      });
    });

    it('refuses invalid key names', async () => {
      for (const key of ['has space', 'semi;colon', '', 'x'.repeat(300), 'a/b', 'trailing.type']) {
        const r = await post('/system/setConfig', { key, value: 'v' });
        expectError(r, 905);
      }
      expectError(await post('/system/setConfig', { 'bad key': 'v' }), 905);
      expect(await configCount()).toBe(0);
    });

    it('refuses a value the database cannot store', async () => {
      expectError(await post('/system/setConfig', { k: 'a\u0000b' }), 905);
      expect(await configRow('k')).toBeUndefined();
    });

    it('is all-or-nothing', async () => {
      await post('/system/setConfig', { existing: 'old' });
      const r = await post('/system/setConfig', {
        existing: 'new',
        fresh: 'value',
        DefaultOtpLen: '9',
      });
      expectError(r, 905);
      expect((await configRow('existing'))?.value).toBe('old');
      expect(await configRow('fresh')).toBeUndefined();
      expect(await configRow('DefaultOtpLen')).toBeUndefined();
    });

    it('refuses nothing to set, a key without a value, and a .type without its key', async () => {
      expectError(await post('/system/setConfig', {}), 905);
      expectError(await post('/system/setConfig', { key: 'lonely' }), 905);
      expectError(await post('/system/setConfig', { 'orphan.type': 'password' }), 905);
      expect(await configCount()).toBe(0);
    });
  });

  describe('DELETE /system/<key>', () => {
    it('returns the deleted value', async () => {
      await post('/system/setConfig', { gone: 'soon' });
      const r = await s.call('DELETE', '/system/gone', {}, token);
      expect(r.json.result).toEqual({ status: true, value: 'soon' });
      expect(await configRow('gone')).toBeUndefined();
      expect((await get('/system/gone')).json.result.value).toBeNull();
    });

    it('censors a deleted password', async () => {
      await post('/system/setConfig', { pw: 'Secret-1234', 'pw.type': 'password' });
      const r = await s.call('DELETE', '/system/pw', {}, token);
      expect(r.json.result.value).toBe('__CENSORED__');
    });

    it('answers an unknown key with ERR601 and HTTP 200', async () => {
      const r = await s.call('DELETE', '/system/nosuchkey', {}, token);
      expectError(r, 601);
      expect(r.json.result.error.message).toMatch(/^ERR601: /);
    });
  });

  describe('setDefault', () => {
    it('sets the token defaults, names matched case-insensitively', async () => {
      const r = await post('/system/setDefault', {
        defaultotplen: '8',
        DEFAULTMAXFAILCOUNT: '5',
        DefaultSyncWindow: '500',
        DefaultCountWindow: '20',
        DefaultResetFailCount: 'true',
      });
      expect(r.json.result).toEqual({ status: true, value: true });
      expect((await get('/system/')).json.result.value).toMatchObject({
        DefaultOtpLen: '8',
        DefaultMaxFailCount: '5',
        DefaultSyncWindow: '500',
        DefaultCountWindow: '20',
        DefaultResetFailCount: 'True',
      });
    });

    it('answers no parameter with ERR77 and the usage', async () => {
      const r = await post('/system/setDefault', {});
      expectError(r, 77);
      expect(r.json.result.error.message).toBe(USAGE);
    });

    it('refuses an unknown parameter or a bad value and stores nothing', async () => {
      const r = await post('/system/setDefault', { DefaultOtpLen: '8', DefaultFoo: '1' });
      expect(r.json.result.status).toBe(false);
      expect(r.json.result.error.message).toContain('DefaultFoo');
      expectError(await post('/system/setDefault', { DefaultOtpLen: '8', DefaultMaxFailCount: 'x' }), 905);
      expectError(await post('/system/setDefault', { DefaultOtpLen: '10' }), 905);
      expect(await configCount()).toBe(0);
    });
  });

  describe('random', () => {
    it('gives hex by default, 20 bytes', async () => {
      const v = (await get('/system/random')).json.result.value;
      expect(v).toMatch(/^[0-9a-f]{40}$/);
    });

    it('takes len and encode', async () => {
      expect((await get('/system/random', { len: '32' })).json.result.value).toMatch(/^[0-9a-f]{64}$/);
      expect((await get('/system/random', { len: '16', encode: 'hex' })).json.result.value).toHaveLength(32);
      const b = (await get('/system/random', { len: '33', encode: 'b64' })).json.result.value;
      expect(Buffer.from(b, 'base64')).toHaveLength(33);
      expect(b).toMatch(/^[A-Za-z0-9+/]+=*$/);
      const a = (await get('/system/random', { len: '16' })).json.result.value;
      const c = (await get('/system/random', { len: '16' })).json.result.value;
      expect(a).not.toBe(c);
    });

    it('refuses bad len and encode with ERR905', async () => {
      const cases: Record<string, string>[] = [
        { len: '0' },
        { len: '2000' },
        { len: 'abc' },
        { len: '-1' },
        { len: '1e2' },
        { len: '0x10' },
        { encode: 'foo' },
      ];
      for (const params of cases) {
        expectError(await get('/system/random', params), 905);
      }
    });
  });

  describe('hsm (key not protected)', () => {
    it('is ready and refuses a password', async () => {
      expect((await get('/system/hsm')).json.result.value).toEqual({ is_ready: true });
      const r = await post('/system/hsm', { password: 'whatever' });
      expectError(r, 707);
      expect(r.json.result.error.message).toBe('ERR707: HSM already set up.');
    });
  });

  describe('documentation', () => {
    it('is a reStructuredText download of config and admins without secrets', async () => {
      await post('/system/setConfig', {
        'email.mailserver': 'smtp.example.org',
        'email.password': 'VerySecret-99',
        'email.password.type': 'password',
      });
      const res = await fetch(`${s.url}/system/documentation`, { headers: { Authorization: token } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename=documentation.rst');
      const text = await res.text();
      expect(text).toContain('email.mailserver');
      expect(text).toContain('smtp.example.org');
      expect(text).toContain('email.password');
      expect(text).toContain('__CENSORED__');
      expect(text).not.toContain('VerySecret');
      expect(text).toContain('PrependPin');
      expect(text).toMatch(/^\| admin\s/m);
      expect(text).toContain('test-node');
      // An RST title is underlined by a line of the same length.
      expect(text).toMatch(/\nSystem configuration\n-{20}\n/);
      expect(text).toMatch(/\nAdministrators\n-{14}\n/);
    });
  });

  describe('gpgkeys without a GnuPG home', () => {
    it('is an empty object', async () => {
      expect((await get('/system/gpgkeys')).json.result).toEqual({ status: true, value: {} });
    });
  });
});

/** A server on a data directory whose encryption key is password protected. */
async function lockedServer(dialect: (typeof DIALECTS)[number]) {
  const dataDir = mkdtempSync(join(tmpdir(), 'authsrv-hsm-'));
  const db: TestDatabase = await createTestDatabase(dialect, dataDir);
  const config = loadConfig({
    env: {},
    overrides: { data_dir: dataDir, database_url: db.url, 'http.port': '0', node_name: 'hsm-node' },
  });
  const logger = pino({ level: 'silent' });
  const first = await openRuntime(config, { logger });
  const adminPassword = (await ensureInitialAdmin(withCaller(first, localOperator())))!;
  const sealedBefore = first.hsm.encrypt('sealed before protection');
  first.hsm.protect('hsm-Password-1');
  await first.store.close();
  const rt: Runtime = await openRuntime(config, { logger });
  const server: RunningServer = await startServer(rt);
  return {
    rt,
    server,
    adminPassword,
    sealedBefore,
    async close() {
      await server.close();
      await rt.store.close();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const DIALECTS = testDialects();

describe.each(DIALECTS)('/system/hsm with a protected key on %s', (dialect) => {
  let h: Awaited<ReturnType<typeof lockedServer>>;
  beforeEach(async () => {
    h = await lockedServer(dialect);
  });
  afterEach(async () => h?.close());

  async function call(method: string, path: string, params: Record<string, string> = {}, token?: string) {
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded' };
    if (token) headers.Authorization = token;
    const q = new URLSearchParams(params).toString();
    const res = await fetch(`${h.server.url}${path}${method === 'GET' && q ? `?${q}` : ''}`, {
      method,
      headers,
      body: method === 'GET' ? undefined : q,
    });
    return { status: res.status, json: (await res.json()) as Json };
  }

  it('starts locked, refuses secrets, and unlocks with the right password only', async () => {
    const login = await call('POST', '/auth', { username: 'admin', password: h.adminPassword });
    expect(login.status).toBe(200);
    const token = login.json.result.value.token as string;

    expect((await call('GET', '/system/hsm', {}, token)).json.result.value).toEqual({ is_ready: false });
    expect((await call('GET', '/healthz/readyz')).status).toBe(503);

    const pw = await call('POST', '/system/setConfig', { s: 'clear', 's.type': 'password' }, token);
    expect(pw.status).toBe(200);
    expect(pw.json.result.status).toBe(false);
    expect(pw.json.result.error.code).toBe(707);
    // Config that needs no secret still works.
    expect((await call('POST', '/system/setConfig', { plain: 'x' }, token)).json.result.value).toBe(true);

    const missing = await call('POST', '/system/hsm', {}, token);
    expect(missing.json.result.error.code).toBe(905);
    const wrong = await call('POST', '/system/hsm', { password: 'not-the-password' }, token);
    expect(wrong.status).toBe(200);
    expect(wrong.json.result.status).toBe(false);
    expect(wrong.json.result.error.code).toBe(707);
    expect((await call('GET', '/system/hsm', {}, token)).json.result.value).toEqual({ is_ready: false });

    const right = await call('POST', '/system/hsm', { password: 'hsm-Password-1' }, token);
    expect(right.json.result).toEqual({ status: true, value: { is_ready: true } });
    expect((await call('GET', '/system/hsm', {}, token)).json.result.value).toEqual({ is_ready: true });
    expect((await call('GET', '/healthz/readyz')).status).toBe(200);
    expect(h.rt.hsm.decrypt(h.sealedBefore)).toBe('sealed before protection');

    const ok = await call('POST', '/system/setConfig', { s: 'clear', 's.type': 'password' }, token);
    expect(ok.json.result.value).toBe(true);
    expect((await call('GET', '/system/s', {}, token)).json.result.value).toBe('__CENSORED__');
    const again = await call('POST', '/system/hsm', { password: 'hsm-Password-1' }, token);
    expect(again.json.result.error.message).toBe('ERR707: HSM already set up.');
  });
});

describe('/system/gpgkeys with a GnuPG home', () => {
  let s: TestServer;
  let home: string;
  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-gpg-'));
    execFileSync(
      'gpg',
      [
        '--homedir',
        home,
        '--batch',
        '--passphrase',
        '',
        '--quick-gen-key',
        'Test <t@example.org>',
        'default',
        'default',
        'never',
      ],
      { stdio: 'ignore' },
    );
    s = await startTestServer({ config: { 'security.gnupg_home': home } });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    try {
      execFileSync('gpgconf', ['--homedir', home, '--kill', 'all'], { stdio: 'ignore' });
    } catch {
      // no agent was started
    }
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the public keys with their armor and fingerprint', async () => {
    const listing = execFileSync(
      'gpg',
      ['--homedir', home, '--batch', '--with-colons', '--fingerprint', '--list-keys'],
      {
        encoding: 'utf8',
      },
    );
    const lines = listing.split('\n').map((l) => l.split(':'));
    const keyid = lines.find((f) => f[0] === 'pub')![4]!;
    const fingerprint = lines.find((f) => f[0] === 'fpr')![9]!;
    const r = await s.call('GET', '/system/gpgkeys', {}, await s.adminToken());
    expect(r.status).toBe(200);
    const value = r.json.result.value;
    expect(Object.keys(value)).toEqual([keyid]);
    expect(value[keyid].fingerprint).toBe(fingerprint);
    expect(value[keyid].armor).toMatch(
      /^-----BEGIN PGP PUBLIC KEY BLOCK-----\n[\s\S]+-----END PGP PUBLIC KEY BLOCK-----\n?$/,
    );
  });

  it('is an empty object for a GnuPG home without keys', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'authsrv-gpg-empty-'));
    const e = await startTestServer({ config: { 'security.gnupg_home': empty } });
    try {
      const r = await e.call('GET', '/system/gpgkeys', {}, await e.adminToken());
      expect(r.json.result).toEqual({ status: true, value: {} });
    } finally {
      await e.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
