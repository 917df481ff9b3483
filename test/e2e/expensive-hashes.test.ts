// Expensive hashes and input length over HTTP (issue 16, item 1). A password, PIN or pass value
// longer than 4096 characters is refused at once with ERR905 naming the parameter, wherever it would
// be hashed, verified or handed to a user store, and one of 4096 is taken. While passwords are
// hashed (SHA-crypt with many rounds, bcrypt), the server's event loop stays free and /healthz
// answers: before, one /auth with a 100 000-character password held every request for ~15 seconds.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import bcryptjs from 'bcryptjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shaCrypt } from '../../src/crypto/crypt-hashes.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import {
  expectServiceError,
  ok,
  sqlResolverParams,
  userToken,
  writeSqliteUsers,
} from '../helpers/user-stores.ts';

const MAX = 4096;
const tooLong = (param: string) => `The parameter '${param}' is longer than ${MAX} characters`;
const KEY = '3132333435363738393031323334353637383930';
const HUGE = 'x'.repeat(100_000);

describe.each(testDialects())('password, PIN and pass lengths on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  const longPw = 'L'.repeat(MAX);

  useTokenServer(
    dialect,
    {
      realms: { realm1: [pwUser('alice', 1001), { login: 'long', password: longPw, uid: 1002 }] },
      reset: ['tokens'],
    },
    (t) => ({ s, admin } = t),
  );
  beforeAll(async () => {
    const db = await writeSqliteUsers(s.dataDir, 'users.db', [{ username: 'carol', password: 'carolpw' }]);
    ok(await s.call('POST', '/resolver/db', sqlResolverParams(db, true), admin));
  });

  it('/auth refuses a longer password at once, for any user, and takes one of 4096 characters', async () => {
    for (const [username, realm] of [
      ['alice', 'realm1'],
      ['admin', ''],
      ['nobody', 'realm1'],
    ]) {
      const started = Date.now();
      const r = await s.call('POST', '/auth', { username: username!, realm: realm!, password: HUGE });
      expectServiceError(r, 905, tooLong('password'));
      expect(Date.now() - started).toBeLessThan(5000);
    }
    expectServiceError(
      await s.call('POST', '/auth', { username: 'long', realm: 'realm1', password: `${longPw}L` }),
      905,
      tooLong('password'),
    );
    expect(await userToken(s, 'long', longPw, 'realm1')).toEqual(expect.any(String));
  });

  it('/validate/check, samlcheck and radiuscheck refuse a longer pass, and count no failure', async () => {
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'hotp', otpkey: KEY, serial: 'H1', user: 'alice', realm: 'realm1', pin: 'pin' },
        admin,
      ),
    );
    for (const path of ['/validate/check', '/validate/samlcheck', '/validate/radiuscheck']) {
      for (const pass of [HUGE, 'p'.repeat(MAX + 1)]) {
        const r = await s.call('POST', path, { user: 'alice', realm: 'realm1', pass });
        expectServiceError(r, 905, tooLong('pass'));
        expectServiceError(await s.call('POST', path, { serial: 'H1', pass }), 905, tooLong('pass'));
      }
    }
    const row = await s.rt.store.db
      .selectFrom('token')
      .select('failcount')
      .where('serial', '=', 'H1')
      .executeTakeFirstOrThrow();
    expect(row.failcount).toBe(0);
    expect(
      ok(
        await s.call('POST', '/validate/check', {
          user: 'alice',
          realm: 'realm1',
          pass: `pin${hotp(KEY, 0)}`,
        }),
      ),
    ).toBe(true);
  });

  it('/token/init and /token/setpin refuse a longer PIN; a PIN of 4096 characters is the whole pass', async () => {
    const pin = 'P'.repeat(MAX);
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'spass', serial: 'SP1', pin: `${pin}P` }, admin),
      905,
      tooLong('pin'),
    );
    ok(await s.call('POST', '/token/init', { type: 'spass', serial: 'SP1', pin }, admin));
    expectServiceError(
      await s.call('POST', '/token/setpin', { serial: 'SP1', otppin: HUGE }, admin),
      905,
      tooLong('pin'),
    );
    expect(ok(await s.call('POST', '/validate/check', { serial: 'SP1', pass: pin }))).toBe(true);
  });

  it('POST and PUT /user refuse a longer password', async () => {
    expectServiceError(
      await s.call('POST', '/user/', { user: 'dora', resolver: 'db', password: 'd'.repeat(MAX + 1) }, admin),
      905,
      tooLong('password'),
    );
    expectServiceError(
      await s.call('PUT', '/user/', { user: 'carol', resolver: 'db', password: HUGE }, admin),
      905,
      tooLong('password'),
    );
    ok(await s.call('PUT', '/user/', { user: 'carol', resolver: 'db', password: 'c'.repeat(MAX) }, admin));
  });
});

// The event loop and the hashes do not depend on the database: SQLite only.
describe('the event loop while passwords are hashed', () => {
  let s: TestServer;
  const passwords = { slow: 'slow-password', bcrypt: 'bcrypt-password' };

  beforeAll(async () => {
    s = await startTestServer();
    const admin = await s.adminToken();
    // Most of a second per check each: 400 000 SHA-crypt rounds, bcrypt at cost 12.
    const slow = await shaCrypt(passwords.slow, '$6$rounds=400000$slowsalt');
    const bcrypt = await bcryptjs.hash(passwords.bcrypt, 12);
    const file = join(s.dataDir, 'expensive.passwd');
    writeFileSync(
      file,
      `slow:${slow}:1001:1001::/home/slow:/bin/sh\nbcrypt:${bcrypt}:1002:1002::/home/b:/bin/sh\n`,
    );
    ok(await s.call('POST', '/resolver/expensive', { type: 'passwdresolver', Filename: file }, admin));
    ok(await s.call('POST', '/realm/people', { resolvers: 'expensive' }, admin));
  });
  afterAll(async () => s?.close());

  const login = async (username: string, password: string) => {
    const r = await s.call('POST', '/auth', { username, realm: 'people', password });
    return r.json?.result?.status === true;
  };

  /** Runs `work` while probing /healthz every 20 ms: the probes' durations and how busy the loop was. */
  async function probed<T>(work: () => Promise<T>): Promise<{ result: T; probes: number[]; busy: number }> {
    const probes: number[] = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        const started = performance.now();
        expect((await s.call('GET', '/healthz')).status).toBe(200);
        probes.push(performance.now() - started);
        await sleep(20);
      }
    })();
    const before = performance.eventLoopUtilization();
    const result = await work().finally(() => {
      done = true;
    });
    const busy = performance.eventLoopUtilization(before).utilization;
    await probing;
    return { result, probes, busy };
  }

  it('/healthz answers at once while logins with expensive hashes are in flight', async () => {
    const { result, probes, busy } = await probed(() =>
      Promise.all([
        login('slow', passwords.slow),
        login('bcrypt', passwords.bcrypt),
        login('slow', 'wrong'),
        login('bcrypt', 'wrong'),
      ]),
    );
    expect(result).toEqual([true, true, false, false]);
    expect(probes.length).toBeGreaterThan(5);
    // Generous: a probe waits for no hash; on the event loop, hashing kept it busy all the time.
    expect(Math.max(...probes)).toBeLessThan(1000);
    expect(busy).toBeLessThan(0.5);
  });

  it('/healthz answers at once while a login with a 100 000-character password is refused', async () => {
    const { result, probes } = await probed(() =>
      s.call('POST', '/auth', { username: 'slow', realm: 'people', password: HUGE }),
    );
    expectServiceError(result, 905, tooLong('password'));
    expect(Math.max(...probes)).toBeLessThan(1000);
  });
});
