import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { passwdRealm } from '../helpers/user-stores.ts';

const WRONG = 'Authentication failure. Wrong credentials';

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  json: any;
}

describe.each(testDialects())('/auth and the JWT on %s', (dialect) => {
  let s: TestServer;
  /** Seconds added to the real time by the server's clock. */
  let offset = 0;
  beforeAll(async () => {
    s = await startTestServer({ dialect, clock: () => new Date(Date.now() + offset * 1000) });
  });
  afterAll(async () => s?.close());
  beforeEach(() => {
    offset = 0;
  });

  /** A JWT signed with the server's own secret, for claims /auth would not issue. */
  async function forgeJwt(claims: Record<string, unknown>, expiresIn = 3600, secret = s.rt.keys.jwtSecret) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setExpirationTime(now + expiresIn)
      .sign(secret);
  }

  async function get(path: string, headers: Record<string, string>): Promise<Answer> {
    const res = await fetch(s.url + path, { headers: { Accept: 'application/json', ...headers } });
    return { status: res.status, json: await res.json() };
  }

  function expectAuthError(r: Answer, code: number, message?: string) {
    expect(r.status).toBe(401);
    expect(r.json.id).toBe(1);
    expect(r.json.jsonrpc).toBe('2.0');
    expect(r.json.detail).toBeNull();
    expect(r.json.result.status).toBe(false);
    expect(r.json.result).not.toHaveProperty('value');
    expect(r.json.result).not.toHaveProperty('authentication');
    expect(r.json.result.error.code).toBe(code);
    expect(r.json.result.error.message).not.toMatch(/^ERR/);
    if (message !== undefined) expect(r.json.result.error.message).toBe(message);
    expect(r.json).not.toHaveProperty('versionnumber');
    expect(r.json.version).toMatch(/^privacyIDEA /);
  }

  it('logs a local administrator in with the privacyIDEA answer', async () => {
    const before = Date.now() / 1000;
    const r = await s.call('POST', '/auth', { username: 'admin', password: s.adminPassword });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const b = r.json;
    expect(b.id).toBe(2);
    expect(b.jsonrpc).toBe('2.0');
    expect(b.result.status).toBe(true);
    expect(b.result.authentication).toBe('ACCEPT');
    expect(b).not.toHaveProperty('detail');
    expect(b.versionnumber).toBe('3.13.3');
    expect(b.version).toMatch(/^privacyIDEA 3\.13\.3/);
    expect(typeof b.time).toBe('number');
    expect(b.time).toBeGreaterThanOrEqual(before - 1);
    expect(b.time).toBeLessThanOrEqual(Date.now() / 1000 + 1);
    const v = b.result.value;
    expect(typeof v.token).toBe('string');
    expect(v.role).toBe('admin');
    expect(v.username).toBe('admin');
    expect(v.realm).toBe('');
    expect(v.auth).toBe(true);
    expect(v.log_level).toBe(30);
    expect(v.logout_time).toBe(120);
    expect(v.default_tokentype).toBe('hotp');
    // The web UI settings the reference lists, with their defaults.
    expect(v).toMatchObject({
      timeout_action: 'lockscreen',
      audit_page_size: 10,
      token_page_size: 15,
      user_page_size: 15,
      policy_template_url: '/static/policy-templates/',
      default_container_type: 'generic',
      token_wizard: false,
      show_node: '',
      token_rollover: {},
      subscription_status: 0,
      logout_redirect_url: '',
      require_description: [],
      container_wizard: { enabled: false },
      qr_image_android: null,
    });
    expect(Array.isArray(v.rights)).toBe(true);
    expect(v.rights).toEqual(expect.arrayContaining(['tokenlist', 'policywrite', 'configread', 'auditlog']));
    expect(v.menus).toEqual(['tokens', 'users', 'machines', 'config', 'audit', 'components']);
  });

  it('issues an HS256 JWT with the privacyIDEA claims, valid for an hour', async () => {
    const r = await s.call('POST', '/auth', { username: 'admin', password: s.adminPassword });
    const token: string = r.json.result.value.token;
    expect(decodeProtectedHeader(token).alg).toBe('HS256');
    const claims = decodeJwt(token);
    expect(claims.username).toBe('admin');
    expect(claims.realm).toBe('');
    expect(claims.role).toBe('admin');
    expect(claims.authtype).toBe('password');
    expect(claims.nonce).toMatch(/^[0-9a-f]{16,}$/);
    expect(claims.rights).toEqual(r.json.result.value.rights);
    expect(Math.abs((claims.exp as number) - (Date.now() / 1000 + 3600))).toBeLessThan(10);
    const again = await s.call('POST', '/auth', { username: 'admin', password: s.adminPassword });
    expect(decodeJwt(again.json.result.value.token).nonce).not.toBe(claims.nonce);
  });

  it('accepts the credentials as a JSON body too', async () => {
    const res = await fetch(`${s.url}/auth`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: s.adminPassword }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Answer['json'];
    expect(body.result.value.role).toBe('admin');
  });

  it('refuses a wrong password with 401/4031 and the plain message', async () => {
    const r = await s.call('POST', '/auth', { username: 'admin', password: 'wrong-password' });
    expectAuthError(r, 4031, WRONG);
  });

  it('answers an unknown user exactly like a wrong password', async () => {
    const r = await s.call('POST', '/auth', { username: 'nobody', password: 'whatever1' });
    expectAuthError(r, 4031, WRONG);
    const empty = await s.call('POST', '/auth', { username: 'admin' });
    expectAuthError(empty, 4031, WRONG);
  });

  it('takes about as long for an unknown user as for a wrong password', async () => {
    const time = async (username: string) => {
      const t0 = performance.now();
      const r = await s.call('POST', '/auth', { username, password: 'not-the-password' });
      expect(r.status).toBe(401);
      return performance.now() - t0;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < 5; i++) {
      known.push(await time('admin'));
      unknown.push(await time(`ghost${i}`));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[2]!;
    const ratio = median(unknown) / median(known);
    // Without a decoy hash an unknown name would answer in a fraction of the hashing time.
    expect(ratio).toBeGreaterThan(0.33);
    expect(ratio).toBeLessThan(3);
  });

  it('refuses a login without username with 4032', async () => {
    const r = await s.call('POST', '/auth', { password: s.adminPassword });
    expectAuthError(r, 4032, 'Authentication failure. Missing Username');
  });

  it('refuses an unknown realm with 4031 naming the realm', async () => {
    const r = await s.call('POST', '/auth', {
      username: 'admin',
      password: s.adminPassword,
      realm: 'nosuch',
    });
    expectAuthError(r, 4031, 'Authentication failure. Unknown realm: nosuch.');
  });

  it('records failed and successful logins in the audit log', async () => {
    await s.call('POST', '/auth', { username: 'auditprobe', password: 'wrong-password' });
    const rows = await s.rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('action', '=', 'POST /auth')
      .where('user', '=', 'auditprobe')
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.success).toBe(0);
    expect(rows[0]!.authentication).toBe('REJECT');
    expect(JSON.stringify(rows[0])).not.toContain('wrong-password');
  });

  it('requires the header on protected endpoints: 401/4033', async () => {
    const r = await get('/system/', {});
    expectAuthError(r, 4033, 'Authentication failure. Missing Authorization header.');
  });

  it('refuses "Bearer <jwt>" and garbage with 4304', async () => {
    const token = await s.adminToken();
    const bearer = await get('/system/', { Authorization: `Bearer ${token}` });
    expectAuthError(bearer, 4304);
    expect(bearer.json.result.error.message).toMatch(
      /^Authentication failure\. Error decoding the Authorization token: /,
    );
    expectAuthError(await get('/system/', { Authorization: 'garbage' }), 4304);
    expectAuthError(await get('/system/', { 'PI-Authorization': 'a.b.c' }), 4304);
  });

  it('refuses a JWT signed with another secret, or without expiry, with 4304', async () => {
    const claims = { username: 'admin', realm: '', role: 'admin', authtype: 'password', rights: [] };
    const foreign = await forgeJwt(
      claims,
      3600,
      new TextEncoder().encode('another secret of enough length!'),
    );
    expectAuthError(await get('/system/', { Authorization: foreign }), 4304);
    const noExp = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(s.rt.keys.jwtSecret);
    expectAuthError(await get('/system/', { Authorization: noExp }), 4304);
    const unsigned = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(
      JSON.stringify({ ...claims, exp: Math.floor(Date.now() / 1000) + 600 }),
    ).toString('base64url')}.`;
    expectAuthError(await get('/system/', { Authorization: unsigned }), 4304);
  });

  it('accepts the raw JWT in Authorization and in PI-Authorization', async () => {
    const token = await s.adminToken();
    expect((await get('/system/', { Authorization: token })).status).toBe(200);
    const r = await get('/system/', { 'PI-Authorization': token });
    expect(r.status).toBe(200);
    expect(r.json.result.status).toBe(true);
    expect(r.json.id).toBe(1);
    expect(r.json).not.toHaveProperty('detail');
  });

  it('prefers PI-Authorization over Authorization', async () => {
    const token = await s.adminToken();
    expect((await get('/system/', { 'PI-Authorization': token, Authorization: 'garbage' })).status).toBe(200);
    expectAuthError(await get('/system/', { 'PI-Authorization': 'garbage', Authorization: token }), 4304);
  });

  it('refuses an expired JWT with 4305', async () => {
    const token = await s.adminToken();
    // Ten seconds of margin: issuing the token and the request may take a while on a loaded machine.
    offset = 3590;
    expect((await get('/system/', { Authorization: token })).status).toBe(200);
    offset = 3601;
    expectAuthError(
      await get('/system/', { Authorization: token }),
      4305,
      'Authentication failure. Your token has expired: Signature has expired',
    );
  });

  it('refuses a user JWT on an admin-only route with 4306, and admits it where users may go', async () => {
    // A user's JWT stands while its realm does.
    await passwdRealm(s, 'r1');
    const user = await forgeJwt({
      username: 'bob',
      realm: 'r1',
      role: 'user',
      authtype: 'password',
      rights: [],
    });
    expectAuthError(
      await get('/system/random', { Authorization: user }),
      4306,
      "Authentication failure. You do not have the necessary role (['admin']) to access this resource!",
    );
    const ok = await get('/system/', { Authorization: user });
    expect(ok.status).toBe(200);
    expect(ok.json.result.status).toBe(true);
  });

  it('refuses a JWT whose role is neither admin nor user', async () => {
    const odd = await forgeJwt({ username: 'svc', realm: 'API', role: 'validate', authtype: 'API' });
    expectAuthError(
      await get('/system/', { Authorization: odd }),
      4306,
      "Authentication failure. You do not have the necessary role (['admin', 'user']) to access this resource!",
    );
  });
});
