// Brute-force throttling over HTTP (docs/security.md, "Brute-force throttling"): wrong passwords at
// /auth, wrong or replayed values at /validate/check and refused offline refills slow an account
// from one address down and then block it, while the same account from another address still logs in; blocks end; the CLI
// lists and clears them; replays of a spent OTP do not raise the token's fail counter.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cleanEnv } from '../helpers/authsrv-process.ts';
import { runCli } from '../helpers/cli.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { passwdRealm, pwUser } from '../helpers/realms.ts';
import { type ApiResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import { ok } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';
const START = new Date('2026-03-01T12:00:00.000Z');

describe.each(testDialects())('brute-force throttling on %s', (dialect) => {
  let s: TestServer;
  let now = START;
  const advance = (seconds: number) => {
    now = new Date(now.getTime() + seconds * 1000);
  };

  beforeAll(async () => {
    s = await startTestServer({
      dialect,
      clock: () => new Date(now),
      config: {
        'throttle.enabled': 'true',
        'throttle.free_failures': '2',
        'throttle.base_delay': '1s',
        'throttle.max_delay': '4s',
        'throttle.block_after': '5',
        'throttle.block_duration': '10m',
        'throttle.reset_after': '12h',
        'throttle.address_factor': '3',
        // The test's requests say which client they come from in X-Forwarded-For.
        'http.trusted_proxies': '127.0.0.1,::1',
      },
    });
  });
  afterAll(async () => s?.close());
  beforeEach(async () => {
    now = START;
    await s.rt.store.db.deleteFrom('login_failure').execute();
    await s.rt.store.db.deleteFrom('audit').execute();
  });

  /** A POST from the client `address`. */
  async function from(address: string, path: string, params: Record<string, string>): Promise<ApiResponse> {
    const res = await fetch(s.url + path, {
      method: 'POST',
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/x-www-form-urlencoded',
        'X-Forwarded-For': address,
      },
      body: new URLSearchParams(params).toString(),
    });
    const text = await res.text();
    return { status: res.status, text, headers: res.headers, json: JSON.parse(text) };
  }
  const adminLogin = (address: string, password: string) =>
    from(address, '/auth', { username: 'admin', password });

  function expectThrottled(r: ApiResponse, seconds: number): void {
    expect(r.status, r.text).toBe(429);
    expect(r.json.result.status).toBe(false);
    expect(r.json.result.error).toEqual({
      code: 4290,
      message: `Authentication throttled: too many failed attempts. Try again in ${seconds} seconds.`,
    });
    expect(r.json.detail.retry_after).toBe(seconds);
    expect(r.headers.get('retry-after')).toBe(String(seconds));
  }

  it('slows down and blocks wrong administrator passwords from one address, not the admin elsewhere', async () => {
    expect((await adminLogin('10.0.0.1', 'wrong-1')).status).toBe(401);
    expect((await adminLogin('10.0.0.1', 'wrong-2')).status).toBe(401);
    // The third failure is beyond the two free ones: a wait of 1 s.
    expect((await adminLogin('10.0.0.1', 'wrong-3')).status).toBe(401);
    // Refused unchecked: the right password too.
    expectThrottled(await adminLogin('10.0.0.1', s.adminPassword), 1);
    // The administrator on another address is not locked out.
    const elsewhere = await adminLogin('10.0.0.2', s.adminPassword);
    expect(elsewhere.status, elsewhere.text).toBe(200);
    advance(1);
    expect((await adminLogin('10.0.0.1', 'wrong-4')).status).toBe(401);
    expectThrottled(await adminLogin('10.0.0.1', 'wrong'), 2);
    advance(2);
    // The fifth failure blocks for 10 minutes.
    expect((await adminLogin('10.0.0.1', 'wrong-5')).status).toBe(401);
    expectThrottled(await adminLogin('10.0.0.1', s.adminPassword), 600);
    advance(599);
    expectThrottled(await adminLogin('10.0.0.1', s.adminPassword), 1);
    advance(1);
    // The block has ended; the success forgets the account's count from that address.
    expect((await adminLogin('10.0.0.1', s.adminPassword)).status).toBe(200);
    expect((await adminLogin('10.0.0.1', 'wrong-6')).status).toBe(401);
    expect((await adminLogin('10.0.0.1', 'wrong-7')).status).toBe(401);

    const rows = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'authentication', 'info', 'user'])
      .where('action', 'like', '%/auth')
      .orderBy('id')
      .execute();
    const throttled = rows.filter((r) => r.info.startsWith('Authentication throttled'));
    expect(throttled).toHaveLength(4);
    expect(throttled[0]).toMatchObject({ success: 0, authentication: 'REJECT', user: 'admin' });
    expect(rows.filter((r) => r.success === 1)).toHaveLength(2);
  });

  it('throttles an address trying many accounts, also for an account it has not tried', async () => {
    // The address gets three times the free failures (6): the seventh waits 1 s.
    for (let i = 1; i <= 7; i++)
      expect((await from('10.0.0.3', '/auth', { username: `nobody${i}`, password: 'x' })).status).toBe(401);
    expectThrottled(await adminLogin('10.0.0.3', s.adminPassword), 1);
    expect((await adminLogin('10.0.0.4', s.adminPassword)).status).toBe(200);
  });

  it('lists the counts and clears them with the CLI', async () => {
    // The CLI runs on the real clock: so does the server here.
    now = new Date();
    for (let i = 0; i < 3; i++) await adminLogin('10.0.0.5', 'wrong');
    expectThrottled(await adminLogin('10.0.0.5', s.adminPassword), 1);
    const env = cleanEnv({
      AUTHSRV_NODE_NAME: 'cli-node',
      AUTHSRV_LOG_LEVEL: 'warn',
      ...(s.rt.config.databaseUrl ? { AUTHSRV_DATABASE_URL: s.rt.config.databaseUrl } : {}),
    });
    const cli = (...args: string[]) => runCli(['--data-dir', s.dataDir, ...args], { cwd: s.dataDir, env });
    const list = await cli('throttle', 'list', '--json');
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'account', account: 'admin', address: '10.0.0.5', failures: 3 }),
        expect.objectContaining({ kind: 'address', account: '', address: '10.0.0.5', failures: 3 }),
      ]),
    );
    const cleared = await cli('throttle', 'clear', '--address', '10.0.0.5', '--json');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(JSON.parse(cleared.stdout)).toEqual({ cleared: 2 });
    expect((await adminLogin('10.0.0.5', s.adminPassword)).status).toBe(200);
    const row = await s.rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('action', '=', 'CLI throttle clear')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ success: 1, info: '10.0.0.5' });
  });

  it('throttles refused offline refills of a serial from one address, not the client elsewhere', async () => {
    const admin = await s.adminToken();
    ok(
      await s.call('POST', '/token/init', { type: 'hotp', serial: 'OFFT1', otpkey: KEY, pin: 'pin' }, admin),
    );
    const attach = { serial: 'OFFT1', application: 'offline', count: '3', rounds: '5' };
    ok(await s.call('POST', '/machine/token', attach, admin));
    const checked = await from('10.0.0.9', '/validate/check', {
      serial: 'OFFT1',
      pass: `pin${hotp(KEY, 0)}`,
    });
    const refilltoken: string = checked.json.auth_items.offline[0].refilltoken;
    const refill = (address: string, token: string) =>
      from(address, '/validate/offlinerefill', {
        serial: 'OFFT1',
        refilltoken: token,
        pass: `pin${hotp(KEY, 1)}`,
      });
    for (let i = 0; i < 3; i++) {
      const r = await refill('10.0.0.7', 'ab'.repeat(40));
      expect(r.json.result.error.code, r.text).toBe(905);
    }
    // Refused unchecked: the right refill token too.
    expectThrottled(await refill('10.0.0.7', refilltoken), 1);
    const elsewhere = await refill('10.0.0.8', refilltoken);
    expect(elsewhere.json.result.value, elsewhere.text).toBe(true);
  });

  it('does not raise the fail counter for replays of a spent OTP, but does for wrong ones', async () => {
    const admin = await s.adminToken();
    await passwdRealm(s, admin, 'realm1', [pwUser('alice', 1001)]);
    const init = await s.call(
      'POST',
      '/token/init',
      { type: 'hotp', otpkey: KEY, pin: '1234', user: 'alice', realm: 'realm1' },
      admin,
    );
    const serial = ok(init) && init.json.detail.serial;
    const check = (address: string, pass: string) =>
      from(address, '/validate/check', { user: 'alice', realm: 'realm1', pass });
    const failcount = async () =>
      (
        await s.rt.store.db
          .selectFrom('token')
          .select('failcount')
          .where('serial', '=', serial)
          .executeTakeFirstOrThrow()
      ).failcount;
    expect((await check('10.0.1.1', `1234${hotp(KEY, 0)}`)).json.result.value).toBe(true);
    expect((await check('10.0.1.1', `1234${hotp(KEY, 1)}`)).json.result.value).toBe(true);
    // A stranger replays the sniffed values, more often than the token's fail limit (10), each
    // once the throttling lets it through again.
    for (let i = 0; i < 12; i++) {
      const r = await check('10.0.66.6', `1234${hotp(KEY, i % 2)}`);
      expect(r.json.result.value, r.text).toBe(false);
      advance(3600);
    }
    expect(await failcount()).toBe(0);
    // Their address is throttled all the same.
    for (let i = 0; i < 3; i++) await check('10.0.66.7', `1234${hotp(KEY, 0)}`);
    expectThrottled(await check('10.0.66.7', `1234${hotp(KEY, 0)}`), 1);
    const audit = await s.rt.store.db
      .selectFrom('audit')
      .select(['info', 'success'])
      .where('action', 'like', '%/validate/check')
      .where('info', 'like', 'Authentication throttled%')
      .execute();
    expect(audit).toEqual([
      { info: 'Authentication throttled: too many failed attempts. Try again in 1 seconds.', success: 0 },
    ]);
    // The user logs in with the next value; wrong values count as before.
    expect((await check('10.0.1.1', `1234${hotp(KEY, 2)}`)).json.result.value).toBe(true);
    expect((await check('10.0.1.2', '1234000000')).json.result.value).toBe(false);
    expect((await check('10.0.1.2', '1234000001')).json.result.value).toBe(false);
    expect(await failcount()).toBe(2);
  });
});
