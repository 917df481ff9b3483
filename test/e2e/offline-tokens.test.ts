// The offline application over HTTP (reference 6.6): a HOTP token attached for offline gives, on a
// successful /validate/check, `auth_items.offline` with its next values hashed in passlib's
// $pbkdf2-sha512$ format — recomputed here with node:crypto's pbkdf2Sync, independently of the
// server — advances its counter and stores a sealed refill token; POST /validate/offlinerefill
// returns as many new values as were used and rotates the refill token; its refusals change
// nothing; tokens not attached for offline get no auth_items, nor a token once detached.
import { pbkdf2Sync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';
const PIN = 'pin1';

/** passlib's adapted base64 back to bytes. */
const ab64Decode = (s: string) => Buffer.from(s.replace(/\./g, '+'), 'base64');

/** Whether a $pbkdf2-sha512$ hash is the one of `secret` (computed here, not by the server). */
function verifies(hash: string, secret: string, rounds: number): boolean {
  const m = /^\$pbkdf2-sha512\$(\d+)\$([A-Za-z0-9./]+)\$([A-Za-z0-9./]+)$/.exec(hash);
  if (!m || Number(m[1]) !== rounds) return false;
  const salt = ab64Decode(m[2]!);
  expect(salt.length).toBe(10);
  const key = pbkdf2Sync(Buffer.from(secret, 'utf8'), salt, rounds, 64, 'sha512');
  return key.equals(ab64Decode(m[3]!));
}

interface OfflineItem {
  refilltoken: string;
  response: Record<string, string>;
  serial: string;
  [option: string]: unknown;
}

describe.each(testDialects())('offline tokens on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(
    dialect,
    { realms: { realm1: [pwUser('alice', 1001)] }, reset: ['tokens', 'policies', 'audit'] },
    (t) => ({ s, admin } = t),
  );
  afterEach(async () => {
    for (const table of ['machinetoken_option', 'machinetoken'] as const)
      await s.rt.store.db.deleteFrom(table).execute();
    await s.call('POST', '/system/setConfig', { PrependPin: 'True' }, admin);
  });

  const call = (method: string, path: string, params: Record<string, string> = {}) =>
    s.call(method, path, params, admin);
  const enroll = async (serial: string) =>
    ok(
      await call('POST', '/token/init', {
        type: 'hotp',
        serial,
        otpkey: KEY,
        pin: PIN,
        user: 'alice',
        realm: 'realm1',
      }),
    );
  const attach = async (serial: string, options: Record<string, string> = {}) =>
    ok(await call('POST', '/machine/token', { serial, application: 'offline', ...options }));
  const check = (serial: string, pass: string) => s.call('POST', '/validate/check', { serial, pass });
  const tokenRow = (serial: string) =>
    s.rt.store.db.selectFrom('token').selectAll().where('serial', '=', serial).executeTakeFirstOrThrow();
  const refillRow = async (serial: string) =>
    s.rt.store.db
      .selectFrom('tokeninfo')
      .innerJoin('token', 'token.id', 'tokeninfo.token_id')
      .select(['tokeninfo.value', 'tokeninfo.type'])
      .where('token.serial', '=', serial)
      .where('tokeninfo.key', '=', 'refilltoken')
      .executeTakeFirst();
  const offlineItem = (r: Awaited<ReturnType<typeof check>>): OfflineItem => {
    expect(r.json.result.value).toBe(true);
    expect(Object.keys(r.json.auth_items)).toEqual(['offline']);
    expect(r.json.auth_items.offline).toHaveLength(1);
    return r.json.auth_items.offline[0];
  };
  const expectHashes = (item: OfflineItem, counters: number[], rounds: number, order = 'pin-otp') => {
    expect(Object.keys(item.response).map(Number)).toEqual(counters);
    for (const c of counters) {
      const otp = hotp(KEY, c);
      const secret = order === 'pin-otp' ? PIN + otp : otp + PIN;
      expect(verifies(item.response[String(c)]!, secret, rounds), `counter ${c}`).toBe(true);
      expect(verifies(item.response[String(c)]!, PIN + hotp(KEY, c + 1), rounds)).toBe(false);
    }
  };

  it('issues the next count values hashed with the PIN, advances the counter, stores the refill token sealed', async () => {
    await enroll('OFF1');
    await attach('OFF1', { count: '5', rounds: '10' });
    const item = offlineItem(await check('OFF1', PIN + hotp(KEY, 0)));
    expect(item).toMatchObject({
      serial: 'OFF1',
      user: 'alice',
      username: 'alice',
      count: '5',
      rounds: '10',
    });
    expect(item.refilltoken).toMatch(/^[0-9a-f]{80}$/);
    expectHashes(item, [1, 2, 3, 4, 5], 10);
    expect(Number((await tokenRow('OFF1')).count)).toBe(6);
    const stored = await refillRow('OFF1');
    expect(stored?.type).toBe('password');
    expect(stored?.value).not.toContain(item.refilltoken);
    const listed = ok(await call('GET', '/token/', { serial: 'OFF1' })).tokens[0];
    expect(listed.info.refilltoken).toBe('__CENSORED__');
    // The token stays usable online after the values handed out; a second login rotates the refill token.
    const again = offlineItem(await check('OFF1', PIN + hotp(KEY, 6)));
    expectHashes(again, [7, 8, 9, 10, 11], 10);
    expect(again.refilltoken).not.toBe(item.refilltoken);
    // An OTP value handed out offline is spent online.
    expect((await check('OFF1', PIN + hotp(KEY, 3))).json.result.value).toBe(false);
  });

  it('uses privacyIDEA defaults: 100 values of 6549 rounds', async () => {
    await enroll('OFF2');
    await attach('OFF2');
    const item = offlineItem(await check('OFF2', PIN + hotp(KEY, 0)));
    expect(Object.keys(item.response)).toHaveLength(100);
    expect(item.response['1']).toMatch(/^\$pbkdf2-sha512\$6549\$/);
    expectHashes(
      item,
      Array.from({ length: 100 }, (_, i) => i + 1),
      6549,
    );
    expect(Number((await tokenRow('OFF2')).count)).toBe(101);
  });

  it('hashes OTP then PIN when PrependPin is false', async () => {
    ok(await call('POST', '/system/setConfig', { PrependPin: 'False' }));
    await enroll('OFF3');
    await attach('OFF3', { count: '3', rounds: '5' });
    const item = offlineItem(await check('OFF3', hotp(KEY, 0) + PIN));
    expectHashes(item, [1, 2, 3], 5, 'otp-pin');
  });

  it('gives no auth_items to a token not attached for offline, nor for a failed check', async () => {
    await enroll('PLAIN');
    const r = await check('PLAIN', PIN + hotp(KEY, 0));
    expect(r.json.result.value).toBe(true);
    expect(r.json.auth_items).toBeUndefined();
    await enroll('OFF4');
    await attach('OFF4', { count: '3', rounds: '5' });
    const failed = await check('OFF4', `${PIN}000000`);
    expect(failed.json.result.value).toBe(false);
    expect(failed.json.auth_items).toBeUndefined();
    expect(Number((await tokenRow('OFF4')).count)).toBe(0);
    expect(await refillRow('OFF4')).toBeUndefined();
    // samlcheck and radiuscheck carry no auth_items: they hand out nothing and spend one value only.
    const saml = await s.call('POST', '/validate/samlcheck', { serial: 'OFF4', pass: PIN + hotp(KEY, 0) });
    expect(saml.json.result.value.auth).toBe(true);
    expect(saml.json.auth_items).toBeUndefined();
    const radius = await s.call('POST', '/validate/radiuscheck', {
      serial: 'OFF4',
      pass: PIN + hotp(KEY, 1),
    });
    expect(radius.status).toBe(204);
    expect(Number((await tokenRow('OFF4')).count)).toBe(2);
    expect(await refillRow('OFF4')).toBeUndefined();
  });

  it('stops issuing once detached, refuses a refill then, and issues again once attached again', async () => {
    await enroll('OFF9');
    const mtid = await attach('OFF9', { count: '3', rounds: '5' });
    const first = offlineItem(await check('OFF9', PIN + hotp(KEY, 0)));
    expect(Number((await tokenRow('OFF9')).count)).toBe(4);
    expect(ok(await call('DELETE', `/machine/token/OFF9/offline/${mtid}`))).toBe(1);
    // The next login is checked online only: no items, one value spent.
    const online = await check('OFF9', PIN + hotp(KEY, 4));
    expect(online.json.result.value).toBe(true);
    expect(online.json.auth_items).toBeUndefined();
    expect(Number((await tokenRow('OFF9')).count)).toBe(5);
    const refill = { serial: 'OFF9', refilltoken: first.refilltoken, pass: PIN + hotp(KEY, 2) };
    expectServiceError(
      await s.call('POST', '/validate/offlinerefill', refill),
      905,
      'Token is not an offline token or refill token is incorrect',
    );
    await attach('OFF9', { count: '2', rounds: '5' });
    expectHashes(offlineItem(await check('OFF9', PIN + hotp(KEY, 5))), [6, 7], 5);
  });

  it('refills as many values as were used, rotates the refill token, refuses what it must', async () => {
    await enroll('OFF5');
    await attach('OFF5', { count: '5', rounds: '10' });
    const first = offlineItem(await check('OFF5', PIN + hotp(KEY, 0)));
    const refill = (params: Record<string, string>) =>
      s.call('POST', '/validate/offlinerefill', {
        serial: 'OFF5',
        refilltoken: first.refilltoken,
        ...params,
      });
    const unchanged = async () => {
      expect(Number((await tokenRow('OFF5')).count)).toBe(6);
      expect((await refillRow('OFF5'))?.value).toBe(stored);
    };
    const stored = (await refillRow('OFF5'))?.value;
    // Refused, each changing nothing: an OTP outside the issued window, a wrong PIN, a wrong refill
    // token, an unknown serial, a missing parameter.
    expectServiceError(await refill({ pass: PIN + hotp(KEY, 8) }), 401, 'You provided a wrong OTP value.');
    expectServiceError(await refill({ pass: PIN + hotp(KEY, 0) }), 401, 'You provided a wrong OTP value.');
    expectServiceError(await refill({ pass: `x${hotp(KEY, 3)}` }), 401, 'You provided a wrong OTP value.');
    const wrongToken = { pass: PIN + hotp(KEY, 3), refilltoken: 'ab'.repeat(40) };
    const refused = 'Token is not an offline token or refill token is incorrect';
    expectServiceError(await refill(wrongToken), 905, refused);
    expectServiceError(await refill({ pass: PIN, serial: 'NOSUCH' }), 905, 'The token does not exist');
    expectServiceError(await refill({ pass: '' }), 905, "Missing parameter: 'pass'");
    await unchanged();
    // The value of counter 3 was used offline: counters 1–3 are used up, three new values come.
    const r = await refill({ pass: PIN + hotp(KEY, 3) });
    expect(r.json.result.value).toBe(true);
    expect(r.json.id).toBe(1);
    expect(r.json.detail).toBeUndefined();
    const item: OfflineItem = r.json.auth_items.offline[0];
    expect(item.serial).toBe('OFF5');
    expect(item.refilltoken).toMatch(/^[0-9a-f]{80}$/);
    expect(item.refilltoken).not.toBe(first.refilltoken);
    expectHashes(item, [6, 7, 8], 10);
    expect(Number((await tokenRow('OFF5')).count)).toBe(9);
    // The old refill token is spent; the new one works for a value of the window [4, 9).
    expectServiceError(await refill({ pass: PIN + hotp(KEY, 5) }), 905, refused);
    const next = await refill({ pass: PIN + hotp(KEY, 4), refilltoken: item.refilltoken });
    expectHashes(next.json.auth_items.offline[0], [9], 10);
    const audit = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'serial'])
      .where('action', 'like', '%offlinerefill%')
      .execute();
    expect(audit.length).toBe(9);
    expect(audit.filter((a) => Number(a.success) === 1)).toHaveLength(2);
  });

  it('refuses a refill of a token not attached for offline, or disabled', async () => {
    await enroll('OFF6');
    const refused = 'Token is not an offline token or refill token is incorrect';
    const refill = { serial: 'OFF6', refilltoken: 'ab'.repeat(40), pass: PIN + hotp(KEY, 0) };
    expectServiceError(await s.call('POST', '/validate/offlinerefill', refill), 905, refused);
    ok(await call('POST', '/token/disable', { serial: 'OFF6' }));
    await attach('OFF6');
    const disabled = await s.call('POST', '/validate/offlinerefill', refill);
    expectServiceError(disabled, 905, 'The token is not valid.');
  });

  it('answers every failed refill alike under hide_specific_error_message_for_offline_refill', async () => {
    await enroll('OFF8');
    await attach('OFF8', { count: '3', rounds: '5' });
    offlineItem(await check('OFF8', PIN + hotp(KEY, 0)));
    const policy = { scope: 'token', action: 'hide_specific_error_message_for_offline_refill' };
    ok(await call('POST', '/policy/hiderefill', policy));
    for (const params of [
      { serial: 'OFF8', refilltoken: 'ab'.repeat(40), pass: PIN + hotp(KEY, 1) },
      { serial: 'NOSUCH', refilltoken: 'ab', pass: PIN },
    ]) {
      const r = await s.call('POST', '/validate/offlinerefill', params);
      expect(r.json.result.status).toBe(false);
      expect(r.json.result.error).toEqual({ code: 401, message: 'Failed offline token refill' });
    }
  });

  it('refuses bad count and rounds options when attaching and setting options', async () => {
    await enroll('OFF7');
    const bad: Record<string, string>[] = [
      { count: '0' },
      { count: 'ten' },
      { count: '1001' },
      { rounds: '100001' },
    ];
    for (const options of bad) {
      const r = await call('POST', '/machine/token', { serial: 'OFF7', application: 'offline', ...options });
      expectServiceError(r, 905, /must be a whole number from 1 to/);
    }
    expect(await s.rt.store.db.selectFrom('machinetoken').selectAll().execute()).toHaveLength(0);
    const mtid = String(await attach('OFF7', { count: '7' }));
    const r = await call('POST', '/machine/tokenoption', { mtid, rounds: '-1' });
    expectServiceError(r, 905, 'The option rounds must be a whole number from 1 to 20000.');
    ok(await call('POST', '/machine/tokenoption', { mtid, rounds: '20' }));
  });
});
