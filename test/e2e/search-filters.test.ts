// Search and filter values over HTTP on every dialect (user lists of a passwd and an SQL resolver,
// token lists, getserial, audit, policies): `*` is the only wildcard, every other character
// (regular-expression and LIKE metacharacters alike) stands for itself, a value longer than
// LIMITS.filter is refused with ERR905 — also one of 100 000 characters, sent in a JSON body as no
// URL could carry it — and none of them answers HTTP 500 or takes long.
import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../src/core/limits.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { ApiResponse, TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok, sqlResolverParams, writeSqliteUsers } from '../helpers/user-stores.ts';

/** Regular-expression and LIKE metacharacters; none of them may act as anything but itself. */
const NASTY = ['(', '[', 'a{1000000}', '(a+)+$', '.*', '%', '_', '!', '\\', '^a|b$'];
/** Exponential as a regular expression (`.*a.*a…b`) on a long run of a's, linear as a wildcard. */
const STAR_BOMB = `${'*a'.repeat(12)}*b`;
const LONG_NAME = 'a'.repeat(40);
const REALM1 = ['alice', 'p(a+)+$', 'q[1].x', LONG_NAME];
const REALM2 = ['r%_!\\', 'rxyz', `b${LONG_NAME.slice(1)}`];
const SERIALS = ['T_1.X', 'TA1AX', 'TB1BX'];

/** What a `*` pattern should find, by an independent reading (an escaped regex, fine on short names). */
function matching(names: readonly string[], pattern: string): string[] {
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`^${pattern.split('*').map(literal).join('.*')}$`, 'is');
  return names.filter((name) => re.test(name)).sort();
}

const tooLong = (param: string) => `The parameter '${param}' is longer than ${LIMITS.filter} characters`;

/** GET with a JSON body: values longer than any URL (the query string is limited to 16 KiB). */
function getWithBody(s: TestServer, path: string, body: unknown, token: string): Promise<ApiResponse> {
  const text = JSON.stringify(body);
  const headers = {
    Authorization: token,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  };
  return new Promise((resolve, reject) => {
    const req = request(`${s.url}${path}`, { method: 'GET', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const answer = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(answer);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text: answer, headers: new Headers(), json });
      });
    });
    req.on('error', reject);
    req.end(text);
  });
}

describe.each(testDialects())('search and filter values on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: {
        realm1: REALM1.map((login, i) => pwUser(login, 1001 + i)),
      },
    },
    (t) => ({ s, admin } = t),
  );

  beforeAll(async () => {
    const db = await writeSqliteUsers(
      s.dataDir,
      'users.db',
      REALM2.map((username) => ({ username, password: 'x' })),
    );
    ok(await s.call('POST', '/resolver/sqlusers', sqlResolverParams(db, false), admin));
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'sqlusers' }, admin));
    const descriptions = ['d(a+)+$ [x] 100%_!\\', 'plain', LONG_NAME];
    for (const [i, serial] of SERIALS.entries()) {
      const description = descriptions[i]!;
      ok(await s.call('POST', '/token/init', { type: 'hotp', genkey: '1', serial, description }, admin));
    }
  });

  const get = async (path: string, params: Record<string, string>) => {
    const r = await s.call('GET', path, params, admin);
    expect(r.status, r.text).toBe(200);
    return r;
  };
  const users = async (realm: string, params: Record<string, string>) =>
    (ok(await get('/user/', { realm, ...params })) as { username: string }[]).map((u) => u.username).sort();
  const serials = async (params: Record<string, string>) =>
    (ok(await get('/token/', params)).tokens as { serial: string }[]).map((t) => t.serial).sort();

  /** Both too long in the query string and far too long in a JSON body: ERR905, HTTP 200. */
  const expectTooLong = async (path: string, param: string, other: Record<string, string> = {}) => {
    for (const n of [LIMITS.filter + 1, 100_000]) {
      const value = `${'x'.repeat(n - 1)}*`;
      const r =
        n > 10_000
          ? await getWithBody(s, path, { ...other, [param]: value }, admin)
          : await s.call('GET', path, { ...other, [param]: value }, admin);
      expect(r.status, r.text).toBe(200);
      expectServiceError(r, 905, tooLong(param));
    }
  };

  describe('GET /user/', () => {
    it('matches metacharacters literally in a passwd and an SQL resolver', async () => {
      for (const value of NASTY) {
        expect(await users('realm1', { username: value }), value).toEqual([]);
        expect(await users('realm1', { username: `*${value}*` }), value).toEqual(
          matching(REALM1, `*${value}*`),
        );
        expect(await users('realm2', { username: `${value}*` }), value).toEqual(
          matching(REALM2, `${value}*`),
        );
      }
      expect(await users('realm1', { username: '*(a+)+$' })).toEqual(['p(a+)+$']);
      expect(await users('realm1', { username: 'q[1].*' })).toEqual(['q[1].x']);
      expect(await users('realm1', { username: 'q?1?.x' })).toEqual([]);
      expect(await users('realm2', { username: 'r%_!\\' })).toEqual(['r%_!\\']);
      expect(await users('realm2', { username: 'r%*' })).toEqual(['r%_!\\']);
      expect(await users('realm2', { username: 'r_*' })).toEqual([]);
    });

    it('a wildcard pattern that backtracks exponentially as a regex answers at once', async () => {
      const started = Date.now();
      expect(await users('realm1', { username: STAR_BOMB })).toEqual([]);
      expect(await users('realm2', { username: STAR_BOMB })).toEqual([]);
      expect(await users('realm1', { username: '*a*a*a*a*a*a*a*a*a*a*a*a*' })).toEqual([LONG_NAME]);
      expect(Date.now() - started).toBeLessThan(5000);
    });

    it('refuses a search value longer than the limit', async () => {
      await expectTooLong('/user/', 'username', { realm: 'realm1' });
      await expectTooLong('/user/', 'email', { realm: 'realm2' });
    });
  });

  describe('GET /token/', () => {
    it('matches metacharacters literally', async () => {
      expect(await serials({ serial: 'T_1*' })).toEqual(['T_1.X']);
      expect(await serials({ serial: 'T?1*' })).toEqual([]);
      expect(await serials({ serial: '*.X' })).toEqual(['T_1.X']);
      expect(await serials({ description: '*(a+)+$ [x] 100%_!\\' })).toEqual(['T_1.X']);
      expect(await serials({ description: '*%*' })).toEqual(['T_1.X']);
      for (const value of NASTY) {
        expect(await serials({ serial: value }), value).toEqual([]);
        expect(await serials({ description: `${value}*` }), value).toEqual([]);
        expect(await serials({ userid: `*${value}*`, resolver: `${value}*` }), value).toEqual([]);
      }
      expect(await serials({ description: STAR_BOMB })).toEqual([]);
    });

    it('refuses filter values longer than the limit, also a list of serials', async () => {
      for (const param of ['serial', 'description', 'type', 'userid', 'resolver', 'rollout_state'])
        await expectTooLong('/token/', param);
      const commas = await getWithBody(s, '/token/', { serial: ','.repeat(100_000) }, admin);
      expectServiceError(commas, 905, tooLong('serial'));
    });
  });

  describe('GET /token/getserial/<otp>', () => {
    it('matches a part of the serial literally; refuses an over-long one', async () => {
      for (const value of [...NASTY, '_1']) {
        const r = ok(await get('/token/getserial/123456', { serial: value }));
        expect(r.serial, value).toBeNull();
        expect(r.count, value).toBe(SERIALS.filter((serial) => serial.includes(value)).length);
      }
      await expectTooLong('/token/getserial/123456', 'serial');
    });
  });

  describe('GET /audit/', () => {
    it('matches metacharacters literally; refuses an over-long filter', async () => {
      const audit = async (params: Record<string, string>) =>
        (ok(await get('/audit/', params)).auditdata as { serial: string }[]).map((a) => a.serial);
      expect(new Set(await audit({ serial: 'T_1*' }))).toEqual(new Set(['T_1.X']));
      for (const value of NASTY) {
        const found = new Set(await audit({ serial: `*${value}*X` }));
        expect(found, value).toEqual(new Set(matching(SERIALS, `*${value}*X`)));
      }
      expect(await audit({ info: STAR_BOMB })).toEqual([]);
      await expectTooLong('/audit/', 'serial');
      await expectTooLong('/audit/', 'info');
    });
  });

  describe('GET /policy/', () => {
    it('matches metacharacters literally; refuses an over-long filter', async () => {
      ok(await s.call('POST', '/policy/pol1', { scope: 'user', action: 'disable', realm: 'realm1' }, admin));
      expect(Object.keys(ok(await get('/policy/', { scope: 'us*' })))).toEqual(['pol1']);
      for (const value of NASTY) {
        expect(ok(await get('/policy/', { scope: `*${value}*` })), value).toEqual({});
        expect(ok(await get('/policy/', { realm: value })), value).toEqual({});
      }
      expect(ok(await get('/policy/', { realm: STAR_BOMB }))).toEqual({});
      await expectTooLong('/policy/', 'scope');
      await expectTooLong('/policy/', 'realm');
    });
  });
});
