// An OTP value is accepted at most once, also when twenty requests carry it at the same moment
// (issue 5, "Safety"; DESIGN "Concurrency"): the compare-and-set on the counter, on every dialect.
// Concurrent requests also lose no count_auth or count_auth_success increment (the addition in the
// UPDATE of the tokeninfo value).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';

describe.each(testDialects())('concurrent /validate/check on %s', (dialect) => {
  let s: TestServer;
  let op: Context;

  useTokenServer(dialect, { realms: { realm1: [pwUser('alice', 1001)] } }, (t) => ({ s, op } = t));
  beforeAll(async () => {
    await initToken(op, { type: 'hotp', otpkey: KEY, pin: 'pin', user: 'alice', realm: 'realm1' });
  });

  it('accepts one of twenty simultaneous requests carrying the same HOTP value', async () => {
    for (const counter of [0, 3]) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          s.call('POST', '/validate/check', { user: 'alice', pass: `pin${hotp(KEY, counter)}` }),
        ),
      );
      for (const a of answers) expect(a.json.result.status, a.text).toBe(true);
      const accepted = answers.filter((a) => a.json.result.authentication === 'ACCEPT');
      expect(accepted).toHaveLength(1);
      expect(answers.filter((a) => a.json.result.value === false)).toHaveLength(19);
      // The losers counted as failures; a reset keeps the token usable for the next round.
      await s.rt.store.db.updateTable('token').set({ failcount: 0 }).execute();
    }
  });

  it('accepts one of twenty simultaneous requests carrying the same TOTP value', async () => {
    await initToken(op, {
      type: 'totp',
      otpkey: KEY,
      serial: 'CONCTOTP1',
    });
    // A high maxfail: every loser reaches the OTP check instead of 'Failcounter exceeded'.
    await s.rt.store.db
      .updateTable('token')
      .set({ maxfail: 1000 })
      .where('serial', '=', 'CONCTOTP1')
      .execute();
    // The server runs on the real clock: the value of now's step (the window absorbs a step change).
    const step = Math.floor(Date.now() / 30_000);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.call('POST', '/validate/check', { serial: 'CONCTOTP1', pass: hotp(KEY, step) }),
      ),
    );
    for (const a of answers) expect(a.json.result.status, a.text).toBe(true);
    const accepted = answers.filter((a) => a.json.result.value === true);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]!.json.result.authentication).toBe('ACCEPT');
    expect(accepted[0]!.json.detail).toMatchObject({ message: 'matching 1 tokens', serial: 'CONCTOTP1' });
    const rejected = answers.filter((a) => a.json.result.value === false);
    expect(rejected).toHaveLength(19);
    for (const a of rejected) {
      expect(a.json.result.authentication, a.text).toBe('REJECT');
      expect(a.json.detail.message, a.text).toMatch(/^wrong otp value/);
    }
    // The token's last used step is the one of the value: a replay afterwards is refused too.
    const row = await s.rt.store.db
      .selectFrom('token')
      .select(['count', 'failcount'])
      .where('serial', '=', 'CONCTOTP1')
      .executeTakeFirstOrThrow();
    expect(Number(row.count)).toBe(step);
    // The losers replayed the value the winner spent: not counted toward the fail limit
    // (docs/security.md, "Brute-force throttling"), nor is a replay afterwards.
    expect(row.failcount).toBe(0);
    const replay = await s.call('POST', '/validate/check', { serial: 'CONCTOTP1', pass: hotp(KEY, step) });
    expect(replay.json.result.value, replay.text).toBe(false);
    const after = await s.rt.store.db
      .selectFrom('token')
      .select('failcount')
      .where('serial', '=', 'CONCTOTP1')
      .executeTakeFirstOrThrow();
    expect(after.failcount).toBe(0);
  });

  it('counts every one of twenty simultaneous successes in count_auth and count_auth_success', async () => {
    const admin = await s.adminToken();
    // A spass token: every request authenticates, so every one counts on both keys; the PIN's hash
    // check lets the requests interleave between loading the token and counting.
    await initToken(op, { type: 'spass', pin: 'sp', serial: 'CONCSPASS1' });
    const tokenInfo = async () => {
      const r = ok(await s.call('GET', '/token/?serial=CONCSPASS1', undefined, admin));
      return r.tokens[0].info as Record<string, string>;
    };
    // Round 1 races on the first inserts of both keys, round 2 on the increments in the database.
    for (const round of [1, 2]) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          s.call('POST', '/validate/check', { serial: 'CONCSPASS1', pass: 'sp' }),
        ),
      );
      for (const a of answers) expect(a.json.result.authentication, a.text).toBe('ACCEPT');
      expect(await tokenInfo()).toMatchObject({
        count_auth: String(20 * round),
        count_auth_success: String(20 * round),
      });
    }
    // A value that is no plain number counts on from its leading integer (as the checks read it).
    for (const [stored, next] of [
      [' 41x', '42'],
      ['junk', '1'],
      ['', '1'],
      ['-3', '-2'],
    ] as const) {
      await s.rt.store.db
        .updateTable('tokeninfo')
        .set({ value: stored })
        .where('key', '=', 'count_auth')
        .where('token_id', '=', (await tokenRow(s, 'CONCSPASS1')).id)
        .execute();
      const a = await s.call('POST', '/validate/check', { serial: 'CONCSPASS1', pass: 'sp' });
      expect(a.json.result.authentication, a.text).toBe('ACCEPT');
      expect((await tokenInfo()).count_auth).toBe(next);
    }
  });

  it('lets no burst of simultaneous successes pass count_auth_success_max or count_auth_max', async () => {
    const admin = await s.adminToken();
    const tokenInfo = async (serial: string) => {
      const r = ok(await s.call('GET', `/token/?serial=${serial}`, undefined, admin));
      return r.tokens[0].info as Record<string, string>;
    };
    const burst = (serial: string) =>
      Promise.all(
        Array.from({ length: 20 }, () => s.call('POST', '/validate/check', { serial, pass: 'lp' })),
      );
    // Fresh tokens: the counters do not exist yet, so the burst also races on their first insert.
    // Every request loads the token below its limit; the database lets only the limit's worth pass.
    for (const [serial, limit, max] of [
      ['CONCLIMIT1', 'count_auth_success_max', 5],
      ['CONCLIMIT2', 'count_auth_max', 7],
    ] as const) {
      await initToken(op, { type: 'spass', pin: 'lp', serial });
      ok(await s.call('POST', '/token/set', { serial, [limit]: String(max) }, admin));
      const answers = await burst(serial);
      const accepted = answers.filter((a) => a.json.result.authentication === 'ACCEPT');
      expect(accepted, serial).toHaveLength(max);
      for (const a of answers.filter((x) => x.json.result.authentication !== 'ACCEPT')) {
        expect(a.json.result.value, a.text).toBe(false);
        expect(a.json.detail.message, a.text).toBe('Authentication counter exceeded');
      }
      const info = await tokenInfo(serial);
      expect(info.count_auth_success, serial).toBe(String(max));
      expect(info.count_auth, serial).toBe(String(limit === 'count_auth_max' ? max : 20));
      // A second burst at the limit: all refused before any counting.
      const again = await burst(serial);
      for (const a of again) expect(a.json.detail.message, a.text).toBe('Authentication counter exceeded');
      expect((await tokenInfo(serial)).count_auth_success).toBe(String(max));
    }
    // Counters that exist already: the guarded UPDATE alone decides (a limit raised by 3).
    ok(await s.call('POST', '/token/set', { serial: 'CONCLIMIT1', count_auth_success_max: '8' }, admin));
    expect((await burst('CONCLIMIT1')).filter((a) => a.json.result.authentication === 'ACCEPT')).toHaveLength(
      3,
    );
    expect((await tokenInfo('CONCLIMIT1')).count_auth_success).toBe('8');
  });

  it('stops the fail counter of twenty simultaneous failures at maxfail and records when', async () => {
    await initToken(op, { type: 'hotp', otpkey: KEY, pin: 'fpin', serial: 'CONCFAIL1' });
    await s.rt.store.db.updateTable('token').set({ maxfail: 5 }).where('serial', '=', 'CONCFAIL1').execute();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        s.call('POST', '/validate/check', { serial: 'CONCFAIL1', pass: 'fpin000000' }),
      ),
    );
    for (const a of answers) expect(a.json.result.value, a.text).toBe(false);
    const row = await tokenRow(s, 'CONCFAIL1');
    expect(row.failcount).toBe(5);
    const exceeded = await s.rt.store.db
      .selectFrom('tokeninfo')
      .select('value')
      .where('token_id', '=', row.id)
      .where('key', '=', 'failcounter_exceeded')
      .execute();
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]!.value).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d\+0000$/);
  });

  it('counts every one of twenty simultaneous requests in count_auth', async () => {
    const admin = await s.adminToken();
    await initToken(op, {
      type: 'hotp',
      otpkey: KEY,
      pin: 'cpin',
      serial: 'CONCCOUNT1',
    });
    // A high maxfail: every request reaches the wrong-OTP branch, which counts the authentication.
    await s.rt.store.db
      .updateTable('token')
      .set({ maxfail: 1000 })
      .where('serial', '=', 'CONCCOUNT1')
      .execute();
    const tokenInfo = async () => {
      const r = ok(await s.call('GET', '/token/?serial=CONCCOUNT1', undefined, admin));
      return r.tokens[0].info as Record<string, string>;
    };
    for (const round of [1, 2]) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          s.call('POST', '/validate/check', { serial: 'CONCCOUNT1', pass: 'cpin000000' }),
        ),
      );
      for (const a of answers) {
        expect(a.json.result.status, a.text).toBe(true);
        expect(a.json.detail.message, a.text).toBe('wrong otp value');
      }
      expect((await tokenInfo()).count_auth).toBe(String(20 * round));
    }
    // The lossless count makes count_auth_max hold: at the limit the token is refused.
    ok(await s.call('POST', '/token/set', { serial: 'CONCCOUNT1', count_auth_max: '40' }, admin));
    const refused = await s.call('POST', '/validate/check', {
      serial: 'CONCCOUNT1',
      pass: `cpin${hotp(KEY, 0)}`,
    });
    expect(refused.json.result.value, refused.text).toBe(false);
    expect(refused.json.detail.message, refused.text).toBe('Authentication counter exceeded');
  });
});
