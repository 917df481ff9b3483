// The "all tokens of a user" forms of the bulk-capable /token endpoints over HTTP (reference 3.5):
// `user` (+ `realm`) instead of a serial on POST /token/unassign, /token/enable, /token/disable,
// /token/revoke, /token/reset, /token/setpin and DELETE /token/. Every token of the user changes,
// the tokens of other users and unassigned tokens do not; a user without tokens; the errors.
import { beforeEach, describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../src/core/context.ts';
import { findToken, pinMatches } from '../../src/core/token/store/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok, userToken } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';
/** A stand-in PIN hash: the tests only look at whether it is kept or cleared. */
const FAKE_PIN = 'fake-pin-hash';

describe.each(testDialects())('bulk /token actions on the tokens of a user on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: { realm1: [{ login: 'alice', uid: 1001 }, pwUser('bob', 1002), { login: 'carol', uid: 1003 }] },
      reset: ['tokens'],
    },
    (t) => ({ s, admin } = t),
  );

  const ALICE = ['BULKA1', 'BULKA2', 'BULKA3'];
  const BOB = ['BULKB1'];
  const FREE = 'BULKU1';
  const ALL = [...ALICE, ...BOB, FREE];

  beforeEach(async () => {
    const init = async (params: Record<string, string>) =>
      ok(await s.call('POST', '/token/init', { otpkey: KEY, realm: 'realm1', ...params }, admin));
    await init({ type: 'hotp', serial: 'BULKA1', user: 'alice' });
    await init({ type: 'totp', serial: 'BULKA2', user: 'alice' });
    await init({ type: 'hotp', serial: 'BULKA3', user: 'alice' });
    await init({ type: 'hotp', serial: 'BULKB1', user: 'bob' });
    await init({ type: 'hotp', serial: FREE });
    // A fail count and a PIN on every token, to see which ones an action touches.
    await s.rt.store.db.updateTable('token').set({ failcount: 3, pin_hash: FAKE_PIN }).execute();
  });

  const row = (serial: string) =>
    s.rt.store.db.selectFrom('token').selectAll().where('serial', '=', serial).executeTakeFirst();
  const rows = async (serials: readonly string[]) => Promise.all(serials.map(row));
  const owner = async (serial: string) => {
    const t = (await row(serial))!;
    return s.rt.store.db.selectFrom('tokenowner').selectAll().where('token_id', '=', t.id).executeTakeFirst();
  };
  const post = (path: string, params: Record<string, string>, token = admin) =>
    s.call('POST', path, params, token);

  it('unassigns every token of the user: owner, PIN and fail count go', async () => {
    const v = ok(await post('/token/unassign', { user: 'alice', realm: 'realm1' }));
    expect(v).toEqual({ count_success: 3, failed: [], unauthorized: [] });
    for (const serial of ALICE) {
      expect(await owner(serial), serial).toBeUndefined();
      expect(await row(serial), serial).toMatchObject({ pin_hash: '', failcount: 0 });
    }
    for (const serial of [...BOB, FREE])
      expect(await row(serial)).toMatchObject({ pin_hash: FAKE_PIN, failcount: 3 });
    expect(await owner('BULKB1')).toMatchObject({ user_id: '1002' });
    // The user@realm form does the same; now alice has none left.
    expect(ok(await post('/token/unassign', { user: 'alice@realm1' }))).toEqual({
      count_success: 0,
      failed: [],
      unauthorized: [],
    });
  });

  it('disables and enables every token of the user, counting the changed ones', async () => {
    await s.rt.store.db.updateTable('token').set({ active: 0 }).where('serial', '=', 'BULKA3').execute();
    expect(ok(await post('/token/disable', { user: 'alice', realm: 'realm1' }))).toBe(2);
    for (const r of await rows(ALICE)) expect(r!.active, r!.serial).toBe(0);
    for (const r of await rows([...BOB, FREE])) expect(r!.active, r!.serial).toBe(1);
    expect(ok(await post('/token/enable', { user: 'alice', realm: 'realm1' }))).toBe(3);
    for (const r of await rows(ALICE)) expect(r!.active, r!.serial).toBe(1);
  });

  it('revokes every token of the user; revoked tokens refuse the next bulk action', async () => {
    expect(ok(await post('/token/revoke', { user: 'alice', realm: 'realm1' }))).toBe(3);
    for (const r of await rows(ALICE))
      expect(r, r!.serial).toMatchObject({ revoked: 1, locked: 1, active: 0 });
    for (const r of await rows([...BOB, FREE]))
      expect(r, r!.serial).toMatchObject({ revoked: 0, locked: 0, active: 1 });
    expectServiceError(
      await post('/token/revoke', { user: 'alice', realm: 'realm1' }),
      1007,
      'This action is not possible, since the token is locked',
    );
    expectServiceError(
      await post('/token/reset', { user: 'alice', realm: 'realm1' }),
      1007,
      'This action is not possible, since the token is locked',
    );
    // Deleting is still possible.
    expect(ok(await s.call('DELETE', '/token/', { user: 'alice', realm: 'realm1' }, admin))).toMatchObject({
      count_success: 3,
    });
  });

  it('resets the fail counters of every token of the user', async () => {
    const a1 = (await row('BULKA1'))!;
    await s.rt.store.db
      .insertInto('tokeninfo')
      .values({ token_id: a1.id, key: 'failcounter_exceeded', value: '2026-03-01T12:00+0000', type: '' })
      .execute();
    expect(ok(await post('/token/reset', { user: 'alice', realm: 'realm1' }))).toBe(3);
    for (const r of await rows(ALICE)) expect(r!.failcount, r!.serial).toBe(0);
    for (const r of await rows([...BOB, FREE])) expect(r!.failcount, r!.serial).toBe(3);
    const info = await s.rt.store.db
      .selectFrom('tokeninfo')
      .select('key')
      .where('token_id', '=', a1.id)
      .where('key', '=', 'failcounter_exceeded')
      .execute();
    expect(info).toEqual([]);
    // The PINs stay.
    for (const r of await rows(ALICE)) expect(r!.pin_hash, r!.serial).toBe(FAKE_PIN);
  });

  it('sets one PIN on every token of the user', async () => {
    expect(ok(await post('/token/setpin', { user: 'alice', realm: 'realm1', otppin: 'bulkpin' }))).toBe(3);
    const ctx = withCaller(s.rt, localOperator());
    for (const serial of ALICE)
      expect(await pinMatches((await findToken(ctx, serial))!, 'bulkpin'), serial).toBe(true);
    for (const r of await rows([...BOB, FREE])) expect(r!.pin_hash, r!.serial).toBe(FAKE_PIN);
    expectServiceError(
      await post('/token/setpin', { user: 'alice', realm: 'realm1' }),
      905,
      "Missing parameter: 'otppin'",
    );
  });

  it('deletes every token of the user with DELETE /token/', async () => {
    const v = ok(await s.call('DELETE', '/token/', { user: 'alice', realm: 'realm1' }, admin));
    expect(v).toEqual({ count_success: 3, failed: [], unauthorized: [] });
    for (const serial of ALICE) expect(await row(serial), serial).toBeUndefined();
    for (const serial of [...BOB, FREE]) expect(await row(serial), serial).toBeDefined();
    const owners = await s.rt.store.db.selectFrom('tokenowner').select('user_id').execute();
    expect(owners.map((o) => o.user_id)).toEqual(['1002']);
  });

  it('changes nothing for a user without tokens', async () => {
    const carol = { user: 'carol', realm: 'realm1' };
    const none = { count_success: 0, failed: [], unauthorized: [] };
    expect(ok(await post('/token/unassign', carol))).toEqual(none);
    expect(ok(await post('/token/revoke', carol))).toBe(0);
    expect(ok(await post('/token/reset', carol))).toBe(0);
    expect(ok(await post('/token/setpin', { ...carol, otppin: 'x' }))).toBe(0);
    expect(ok(await s.call('DELETE', '/token/', carol, admin))).toEqual(none);
    for (const r of await rows(ALL))
      expect(r, r!.serial).toMatchObject({ failcount: 3, pin_hash: FAKE_PIN, revoked: 0 });
  });

  it('refuses a request naming neither serial nor user, and unknown users and realms', async () => {
    for (const path of [
      '/token/unassign',
      '/token/revoke',
      '/token/reset',
      '/token/enable',
      '/token/disable',
    ])
      expectServiceError(await post(path, {}), 905, "Missing parameter: 'serial' or 'serials'");
    expectServiceError(
      await post('/token/setpin', { otppin: 'x' }),
      905,
      "Missing parameter: 'serial' or 'serials'",
    );
    expectServiceError(
      await s.call('DELETE', '/token/', {}, admin),
      905,
      "Missing parameter: 'serial' or 'serials'",
    );
    // A realm alone does not name a user.
    expectServiceError(
      await post('/token/revoke', { realm: 'realm1' }),
      905,
      "Missing parameter: 'serial' or 'serials'",
    );
    expectServiceError(
      await post('/token/revoke', { user: 'nobody', realm: 'realm1' }),
      904,
      'User <nobody@realm1> does not exist.',
    );
    expectServiceError(await post('/token/reset', { user: 'alice', realm: 'nope' }), 904);
    for (const r of await rows(ALL)) expect(r, r!.serial).toMatchObject({ failcount: 3, revoked: 0 });
  });

  it('lets a user act on all of their own tokens only, whatever user they name', async () => {
    const bob = await userToken(s, 'bob', 'bobpw', 'realm1');
    expect(ok(await post('/token/reset', {}, bob))).toBe(1);
    expect(ok(await post('/token/reset', { user: 'alice', realm: 'realm1' }, bob))).toBe(1);
    expect((await row('BULKB1'))!.failcount).toBe(0);
    for (const r of await rows([...ALICE, FREE])) expect(r!.failcount, r!.serial).toBe(3);
    expect(ok(await post('/token/revoke', { user: 'alice' }, bob))).toBe(1);
    expect(await row('BULKB1')).toMatchObject({ revoked: 1 });
    for (const r of await rows([...ALICE, FREE])) expect(r!.revoked, r!.serial).toBe(0);
  });
});
