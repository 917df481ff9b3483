// Over-long request values over HTTP on every dialect: each write endpoint refuses a value longer
// than its column holds with ERR905 naming the parameter and the limit, and changes nothing; a value
// at the limit is stored (also as 4-byte characters, which MariaDB's utf8mb4 TEXT must hold). What
// the database itself refuses as too long is a 905 as well, never a 500.
import { describe, expect, it } from 'vitest';
import { valueRefusedByDatabase } from '../../src/core/limits.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const SEED = '3132333435363738393031323334353637383930';
/** A character of four UTF-8 bytes (one code point, two UTF-16 units). */
const WIDE = '\u{1D11E}';
const tooLong = (param: string, max: number) => `The parameter '${param}' is longer than ${max} characters`;

describe.each(testDialects())('input length limits on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(
    dialect,
    { realms: { realm1: [pwUser('alice', 1001)] }, reset: ['tokens', 'tokengroups'] },
    (t) => ({ s, admin } = t),
  );

  const db = () => s.rt.store.db;
  const init = async (serial: string, extra: Record<string, string> = {}) =>
    ok(await s.call('POST', '/token/init', { type: 'hotp', otpkey: SEED, serial, ...extra }, admin));
  const infoOf = async (serial: string) => {
    const rows = await db()
      .selectFrom('tokeninfo')
      .innerJoin('token', 'token.id', 'tokeninfo.token_id')
      .select(['tokeninfo.key', 'tokeninfo.value'])
      .where('token.serial', '=', serial)
      .execute();
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  };

  describe('POST /token/info/<serial>/<key>', () => {
    it('refuses a key longer than 255 characters and stores one of 255', async () => {
      await init('LIM1');
      const before = await infoOf('LIM1');
      const r = await s.call('POST', `/token/info/LIM1/${'k'.repeat(500)}`, { value: 'v' }, admin);
      expectServiceError(r, 905, tooLong('key', 255));
      expect(r.status).toBe(200);
      expect(await infoOf('LIM1')).toEqual(before);
      const key = 'k'.repeat(255);
      expect(ok(await s.call('POST', `/token/info/LIM1/${key}`, { value: 'v' }, admin))).toBe(true);
      expect((await infoOf('LIM1'))[key]).toBe('v');
    });

    it('refuses a value longer than 10000 characters (also 100 000) and stores 10000 wide ones', async () => {
      await init('LIM2');
      const before = await infoOf('LIM2');
      for (const n of [10_001, 100_000]) {
        const r = await s.call('POST', '/token/info/LIM2/k', { value: 'v'.repeat(n) }, admin);
        expectServiceError(r, 905, tooLong('value', 10000));
        expect(await infoOf('LIM2')).toEqual(before);
      }
      const wide = WIDE.repeat(10_000);
      expect(ok(await s.call('POST', '/token/info/LIM2/k', { value: wide }, admin))).toBe(true);
      expect((await infoOf('LIM2')).k).toBe(wide);
    });
  });

  describe('POST /token/init', () => {
    it('refuses a serial longer than 40 characters and enrolls one of 40', async () => {
      const r = await s.call(
        'POST',
        '/token/init',
        { type: 'hotp', otpkey: SEED, serial: 'S'.repeat(41) },
        admin,
      );
      expectServiceError(r, 905, tooLong('serial', 40));
      expect(await db().selectFrom('token').select('serial').execute()).toEqual([]);
      await init('S'.repeat(40));
      expect((await db().selectFrom('token').select('serial').execute()).map((t) => t.serial)).toEqual([
        'S'.repeat(40),
      ]);
    });

    it('refuses an otpkey longer than 1024 characters and enrolls one of 1024', async () => {
      const r = await s.call(
        'POST',
        '/token/init',
        { type: 'hotp', otpkey: 'ab'.repeat(50_000), serial: 'KEY1' },
        admin,
      );
      expectServiceError(r, 905, tooLong('otpkey', 1024));
      expect(await db().selectFrom('token').select('serial').execute()).toEqual([]);
      await init('KEY1', { otpkey: 'ab'.repeat(512) });
      expect(
        await db().selectFrom('token').select('serial').where('serial', '=', 'KEY1').execute(),
      ).toHaveLength(1);
    });

    it('cuts the description to 80 characters, as privacyIDEA does, however long it is', async () => {
      await init('DESC1', { description: 'd'.repeat(100_000) });
      await init('DESC2', { description: WIDE.repeat(200) });
      const rows = await db()
        .selectFrom('token')
        .select(['serial', 'description'])
        .orderBy('serial')
        .execute();
      expect(rows).toEqual([
        { serial: 'DESC1', description: 'd'.repeat(80) },
        { serial: 'DESC2', description: WIDE.repeat(80) },
      ]);
    });
  });

  it('POST /token/set and /token/description cut the description to 80 characters', async () => {
    await init('SET1');
    expect(
      ok(await s.call('POST', '/token/set', { serial: 'SET1', description: 'x'.repeat(500) }, admin)),
    ).toBe(1);
    const row = () =>
      db().selectFrom('token').select('description').where('serial', '=', 'SET1').executeTakeFirstOrThrow();
    expect((await row()).description).toBe('x'.repeat(80));
    ok(await s.call('POST', '/token/description/SET1', { description: WIDE.repeat(10_000) }, admin));
    expect((await row()).description).toBe(WIDE.repeat(80));
  });

  describe('/tokengroup', () => {
    const groups = async () =>
      (await db().selectFrom('tokengroup').select(['name', 'description']).execute()).map((g) => g.name);

    it('refuses a name longer than 255 characters and creates one of 255', async () => {
      expectServiceError(
        await s.call('POST', `/tokengroup/${'g'.repeat(256)}`, {}, admin),
        905,
        tooLong('name', 255),
      );
      expect(await groups()).toEqual([]);
      ok(await s.call('POST', `/tokengroup/${'g'.repeat(255)}`, { description: 'x' }, admin));
      expect(await groups()).toEqual(['g'.repeat(255)]);
    });

    it('refuses a description longer than 2000 characters, on create and on update', async () => {
      const r = await s.call('POST', '/tokengroup/grp', { description: 'x'.repeat(2001) }, admin);
      expectServiceError(r, 905, tooLong('description', 2000));
      expect(await groups()).toEqual([]);
      ok(await s.call('POST', '/tokengroup/grp', { description: WIDE.repeat(2000) }, admin));
      expectServiceError(
        await s.call('POST', '/tokengroup/grp', { description: 'y'.repeat(100_000) }, admin),
        905,
        tooLong('description', 2000),
      );
      const row = await db().selectFrom('tokengroup').select('description').executeTakeFirstOrThrow();
      expect(row.description).toBe(WIDE.repeat(2000));
    });
  });

  it('records a client with an over-long User-Agent cut to the column sizes', async () => {
    const ua = `${'P'.repeat(300)}/1.0 ${'u'.repeat(2000)}`;
    const res = await fetch(`${s.url}/validate/check`, {
      method: 'POST',
      headers: { 'User-Agent': ua, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ user: 'alice', realm: 'realm1', pass: 'x' }).toString(),
    });
    expect(res.status).toBe(200);
    const clients = ok(await s.call('GET', '/client/', {}, admin));
    const entry = clients['P'.repeat(255)][0];
    expect(entry.user_agent).toBe(ua.slice(0, 1000));
  });

  describe('/policy', () => {
    const names = async () => (await db().selectFrom('policy').select('name').execute()).map((p) => p.name);

    it('refuses a name longer than 255 characters and creates one of 255', async () => {
      const pol = { scope: 'admin', action: '*', adminuser: 'admin' };
      expectServiceError(
        await s.call('POST', `/policy/${'p'.repeat(256)}`, pol, admin),
        905,
        tooLong('name', 255),
      );
      expect(await names()).toEqual([]);
      ok(await s.call('POST', `/policy/${'p'.repeat(255)}`, pol, admin));
      expect(await names()).toEqual(['p'.repeat(255)]);
      ok(await s.call('DELETE', `/policy/${'p'.repeat(255)}`, {}, admin));
    });

    it('refuses a description longer than 10000 characters and stores 10000 wide ones', async () => {
      const pol = { scope: 'admin', action: '*', adminuser: 'admin' };
      const r = await s.call('POST', '/policy/pdesc', { ...pol, description: 'd'.repeat(100_000) }, admin);
      expectServiceError(r, 905, tooLong('description', 10000));
      expect(await names()).toEqual([]);
      ok(await s.call('POST', '/policy/pdesc', { ...pol, description: WIDE.repeat(10_000) }, admin));
      const row = await db().selectFrom('policy').select('description').executeTakeFirstOrThrow();
      expect(row.description).toBe(WIDE.repeat(10_000));
      ok(await s.call('DELETE', '/policy/pdesc', {}, admin));
    });
  });

  it('refuses realm and resolver names longer than 255 characters', async () => {
    const realms = async () => (await db().selectFrom('realm').select('name').execute()).map((r) => r.name);
    const resolvers = async () =>
      (await db().selectFrom('resolver').select('name').execute()).map((r) => r.name);
    const beforeRealms = await realms();
    const beforeResolvers = await resolvers();
    expectServiceError(
      await s.call('POST', `/realm/${'r'.repeat(256)}`, { resolvers: 'realm1-res' }, admin),
      905,
      tooLong('realm', 255),
    );
    expectServiceError(
      await s.call(
        'POST',
        `/resolver/${'r'.repeat(256)}`,
        { type: 'passwdresolver', Filename: '/etc/passwd' },
        admin,
      ),
      905,
      tooLong('resolver', 255),
    );
    expect(await realms()).toEqual(beforeRealms);
    expect(await resolvers()).toEqual(beforeResolvers);
    ok(await s.call('POST', `/realm/${'r'.repeat(255)}`, { resolvers: 'realm1-res' }, admin));
    expect((await realms()).sort()).toEqual([...beforeRealms, 'r'.repeat(255)].sort());
    ok(await s.call('DELETE', `/realm/${'r'.repeat(255)}`, {}, admin));
  });

  it('refuses a configuration value that does not fit the column and stores one that does', async () => {
    const stored = () =>
      db().selectFrom('config').select('value').where('name', '=', 'limit.test').executeTakeFirst();
    const r = await s.call('POST', '/system/setConfig', { 'limit.test': '\u00e9'.repeat(40_000) }, admin);
    expectServiceError(r, 905, 'The value of limit.test is too long: at most 65535 bytes can be stored');
    expect(await stored()).toBeUndefined();
    ok(await s.call('POST', '/system/setConfig', { 'limit.test': 'a'.repeat(65_000) }, admin));
    expect((await stored())?.value).toBe('a'.repeat(65_000));
  });

  it('refuses custom user attribute keys and types longer than their columns', async () => {
    const attrs = () => db().selectFrom('user_attribute').select(['key', 'type']).execute();
    const user = { user: 'alice', realm: 'realm1', value: 'v' };
    expectServiceError(
      await s.call('POST', '/user/attribute', { ...user, key: 'k'.repeat(256) }, admin),
      905,
      tooLong('key', 255),
    );
    expectServiceError(
      await s.call('POST', '/user/attribute', { ...user, key: 'k', type: 't'.repeat(65) }, admin),
      905,
      tooLong('type', 64),
    );
    expect(await attrs()).toEqual([]);
    ok(
      await s.call('POST', '/user/attribute', { ...user, key: 'k'.repeat(255), type: 't'.repeat(64) }, admin),
    );
    expect(await attrs()).toEqual([{ key: 'k'.repeat(255), type: 't'.repeat(64) }]);
  });

  it('turns a "value too long" refusal of the database into a ParameterError', async () => {
    await init('RAW1');
    const { id } = await db()
      .selectFrom('token')
      .select('id')
      .where('serial', '=', 'RAW1')
      .executeTakeFirstOrThrow();
    let err: unknown;
    try {
      await db()
        .insertInto('tokeninfo')
        .values({ token_id: id, key: 'k'.repeat(300), value: '', type: '' })
        .execute();
    } catch (e) {
      err = e;
    }
    // SQLite does not enforce varchar lengths; the other dialects refuse the row.
    if (dialect === 'sqlite') return;
    const mapped = valueRefusedByDatabase(err);
    expect(mapped?.code).toBe(905);
    expect(mapped?.message).toMatch(/^A parameter value is too long to be stored/);
    expect(valueRefusedByDatabase(new Error('something else'))).toBeUndefined();
  });
});
