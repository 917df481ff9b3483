// The /token API over HTTP (reference 3.3–3.5): enrollment detail, listing and CSV, the lifecycle
// actions with their single and bulk answers, locked tokens, rights of administrators (also
// realm-restricted ones) and users, and the seed never stored in clear. Policies are written as
// the CLI operator so that a test never locks itself out.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { addAdmin } from '../../src/core/auth/admins.ts';
import type { Context } from '../../src/core/context.ts';
import { type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { verifyPassword } from '../../src/crypto/password-hash.ts';
import { base32Encode } from '../../src/tokens/base32.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { type TokenServerOptions, tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, jsonCall, ok, userToken } from '../helpers/user-stores.ts';

const SEED = '3132333435363738393031323334353637383930';
const SEED_B32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const DENIED_ADMIN = (a: string) => `Admin actions are defined, but the action ${a} is not allowed!`;
const DENIED_USER = (a: string) => `User actions are defined, but the action ${a} is not allowed!`;
const LOCKED = 'This action is not possible, since the token is locked';

/** alice and bob in realm1 (resolver res1), carol in realm2 (res2). */
const USERS: TokenServerOptions = {
  realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)], realm2: [pwUser('carol', 2001)] },
  resolvers: { realm1: 'res1', realm2: 'res2' },
};

describe.each(testDialects())('/token over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    { ...USERS, reset: ['policies', 'challenges', 'tokens over api'] },
    (t) => ({ s, op, admin } = t),
  );
  beforeAll(async () => addAdmin(op, 'helper', 'Helper-pass-1'));

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const init = async (params: Record<string, string>, token = admin) => {
    const r = await s.call('POST', '/token/init', params, token);
    expect(ok(r)).toBe(true);
    expect(r.json.id).toBe(1);
    return r.json.detail;
  };
  const row = (serial: string) => tokenRow(s, serial);
  const get = async (serial: string, token = admin) => {
    const v = ok(await s.call('GET', '/token/', { serial }, token));
    return v.tokens[0];
  };

  it('enrolls HOTP with the seed, the otpauth URI and the oathtoken URL, each with a PNG QR code', async () => {
    const d = await init({ type: 'hotp', serial: 'H1', otpkey: SEED, description: 'mine' });
    expect(d.serial).toBe('H1');
    expect(d.rollout_state).toBe('');
    expect(d.otpkey.value).toBe(`seed://${SEED}`);
    expect(d.otpkey.value_b32).toBe(SEED_B32);
    expect(base32Encode(Buffer.from(SEED, 'hex'))).toBe(SEED_B32);
    expect(d.otpkey.description).toBe('OTP seed');
    expect(d.googleurl.value).toBe(
      `otpauth://hotp/H1?secret=${SEED_B32}&counter=1&digits=6&creator=privacyidea&issuer=privacyIDEA&serial=H1`,
    );
    expect(d.googleurl.description).toBe('URL for google Authenticator');
    expect(d.oathurl.value).toBe(`oathtoken:///addToken?name=H1&lockdown=true&key=${SEED}`);
    for (const k of ['otpkey', 'googleurl', 'oathurl']) expect(d[k].img).toMatch(/^data:image\/png;base64,/);
    expect(typeof d.threadid).toBe('number');
    const t = await get('H1');
    expect(t).toMatchObject({
      serial: 'H1',
      tokentype: 'hotp',
      description: 'mine',
      otplen: 6,
      maxfail: 10,
      count_window: 10,
      sync_window: 1000,
      active: true,
      revoked: false,
      locked: false,
      realms: [],
      username: '',
    });
    expect(t.info).toMatchObject({ hashlib: 'sha1', tokenkind: 'software' });
    expect(t.info.creation_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  });

  it('enrolls TOTP (period, algorithm in the URI) and generates serials and keys', async () => {
    const d = await init({ type: 'totp', genkey: '1', hashlib: 'sha256', otplen: '8', timeStep: '60' });
    expect(d.serial).toMatch(/^TOTP\d{4}[0-9A-F]{4}$/);
    const hex = d.otpkey.value.slice('seed://'.length);
    expect(hex).toMatch(/^[0-9a-f]{64}$/);
    expect(d.googleurl.value).toBe(
      `otpauth://totp/${d.serial}?secret=${d.otpkey.value_b32}&algorithm=SHA256&period=60&digits=8&creator=privacyidea&issuer=privacyIDEA&serial=${d.serial}`,
    );
    const t = await get(d.serial);
    expect(t.otplen).toBe(8);
    expect(t.info).toMatchObject({ hashlib: 'sha256', timeStep: '60', timeWindow: '180', timeShift: '0' });
    const h = await init({});
    expect(h.serial).toMatch(/^OATH\d{4}[0-9A-F]{4}$/);
  });

  it('never stores the seed in clear: not in the token row, not in the database files', async () => {
    await init({ type: 'hotp', serial: 'SEEDED', otpkey: SEED, pin: 'pin1234' });
    const r = await row('SEEDED');
    expect(r.key_enc).not.toContain(SEED);
    expect(r.key_enc).not.toContain(SEED_B32);
    expect(r.pin_hash).not.toContain('pin1234');
    const infos = await s.rt.store.db.selectFrom('tokeninfo').select('value').execute();
    for (const i of infos) expect(i.value).not.toContain(SEED);
    const needles = [SEED, SEED.toUpperCase(), SEED_B32, 'pin1234'];
    if (dialect === 'sqlite') {
      const files = readdirSync(s.dataDir).filter((f) => /\.db(-wal|-shm)?$/.test(f));
      expect(files.some((f) => f.endsWith('.db'))).toBe(true);
      for (const f of files) {
        const bytes = readFileSync(join(s.dataDir, f));
        for (const needle of needles)
          expect(bytes.includes(Buffer.from(needle)), `${needle} in ${f}`).toBe(false);
      }
    } else {
      // No database file to read on a server: every value of every table, read through the store.
      const tables = await s.rt.store.db.introspection.getTables();
      expect(tables.some((t) => t.name === 'token')).toBe(true);
      for (const table of tables) {
        // biome-ignore lint/suspicious/noExplicitAny: every table of the schema, whatever its columns
        const rows = await (s.rt.store.db as any).selectFrom(table.name).selectAll().execute();
        const text = JSON.stringify(rows, (_k, v) => (Buffer.isBuffer(v) ? v.toString('latin1') : v));
        for (const needle of needles) expect(text.includes(needle), `${needle} in ${table.name}`).toBe(false);
      }
    }
  });

  it('refuses unknown types (ERR1610) and re-initialisation with another type (ERR301); re-keys same type', async () => {
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'nosuch' }, admin),
      1610,
      'init token failed. Unknown token type: nosuch',
    );
    await init({ type: 'hotp', serial: 'RE1', otpkey: SEED });
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'totp', serial: 'RE1', genkey: '1' }, admin),
      301,
      'init token failed: Token RE1 already exists with type hotp. Can not initialize token with new type totp',
    );
    const before = (await row('RE1')).key_enc;
    await s.rt.store.db.updateTable('token').set({ count: 5 }).where('serial', '=', 'RE1').execute();
    await init({ type: 'hotp', serial: 'RE1', genkey: '1' });
    const after = await row('RE1');
    expect(after.key_enc).not.toBe(before);
    expect(after.count).toBe(0);
    expect((await s.rt.store.db.selectFrom('token').select('id').execute()).length).toBe(1);
    expectServiceError(await s.call('POST', '/token/init', { serial: 'bad serial' }, admin), 905);
    expectServiceError(await s.call('POST', '/token/init', { otplen: '7' }, admin), 905);
    expect((await s.rt.store.db.selectFrom('token').select('id').execute()).length).toBe(1);
  });

  it('applies /system/setDefault values only to tokens created afterwards', async () => {
    await init({ serial: 'OLD1' });
    ok(
      await s.call(
        'POST',
        '/system/setDefault',
        { DefaultMaxFailCount: '5', DefaultCountWindow: '20', DefaultSyncWindow: '300', DefaultOtpLen: '8' },
        admin,
      ),
    );
    try {
      await init({ serial: 'NEW1' });
      expect(await get('OLD1')).toMatchObject({
        maxfail: 10,
        count_window: 10,
        sync_window: 1000,
        otplen: 6,
      });
      expect(await get('NEW1')).toMatchObject({ maxfail: 5, count_window: 20, sync_window: 300, otplen: 8 });
    } finally {
      ok(
        await s.call(
          'POST',
          '/system/setDefault',
          {
            DefaultMaxFailCount: '10',
            DefaultCountWindow: '10',
            DefaultSyncWindow: '1000',
            DefaultOtpLen: '6',
          },
          admin,
        ),
      );
    }
  });

  it('lists with filters, sorting, pages and as CSV', async () => {
    for (const n of ['L1', 'L2', 'L3']) await init({ serial: n, description: `d${n}` });
    await init({ type: 'totp', serial: 'LT', genkey: '1', user: 'alice', realm: 'realm1' });
    let v = ok(await s.call('GET', '/token/', { pagesize: '2' }, admin));
    expect(v.count).toBe(4);
    expect(v.tokens.map((t: { serial: string }) => t.serial)).toEqual(['L1', 'L2']);
    expect(v.prev).toBeNull();
    expect(v.next).toBe(2);
    v = ok(await s.call('GET', '/token/', { pagesize: '2', page: '2' }, admin));
    expect(v.tokens.map((t: { serial: string }) => t.serial)).toEqual(['L3', 'LT']);
    expect(v).toMatchObject({ prev: 1, next: null });
    v = ok(await s.call('GET', '/token/', { sortby: 'serial', sortdir: 'desc' }, admin));
    expect(v.tokens[0].serial).toBe('LT');
    expect(ok(await s.call('GET', '/token/', { type: 'totp' }, admin)).count).toBe(1);
    expect(ok(await s.call('GET', '/token/', { serial: 'L*' }, admin)).count).toBe(4);
    expect(ok(await s.call('GET', '/token/', { serial: 'L1,L3' }, admin)).count).toBe(2);
    expect(ok(await s.call('GET', '/token/', { assigned: 'true' }, admin)).count).toBe(1);
    expect(ok(await s.call('GET', '/token/', { assigned: 'false' }, admin)).count).toBe(3);
    const mine = ok(await s.call('GET', '/token/', { user: 'alice', realm: 'realm1' }, admin));
    expect(mine.tokens[0]).toMatchObject({
      serial: 'LT',
      username: 'alice',
      user_realm: 'realm1',
      resolver: 'res1',
      user_id: '1001',
      realms: ['realm1'],
      user_editable: false,
    });
    expectServiceError(await s.call('GET', '/token/', { page: 'x' }, admin), 905);
    const csv = await s.call('GET', '/token/', { outform: 'csv', serial: 'L1,L2' }, admin);
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename=privacyidea-tokendata.csv');
    const lines = csv.text.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]!.startsWith("'id', 'serial', 'tokentype', 'description', ")).toBe(true);
    expect(lines[0]!.endsWith(', ')).toBe(true);
    expect(lines[1]).toContain("'L1', 'hotp', 'dL1', ");
    expect(lines[1]).toContain("'True', ");
  });

  it('assigns: owner and realm set, fail counter reset, PIN set; ERR1103 when assigned; bad input', async () => {
    await init({ serial: 'A1' });
    await s.rt.store.db.updateTable('token').set({ failcount: 3 }).where('serial', '=', 'A1').execute();
    expect(
      ok(
        await s.call(
          'POST',
          '/token/assign',
          { serial: 'A1', user: 'alice', realm: 'realm1', pin: 'p1' },
          admin,
        ),
      ),
    ).toBe(true);
    const t = await get('A1');
    expect(t).toMatchObject({ username: 'alice', user_realm: 'realm1', realms: ['realm1'], failcount: 0 });
    expect(await verifyPassword('p1', (await row('A1')).pin_hash)).toBe(true);
    expectServiceError(
      await s.call('POST', '/token/assign', { serial: 'A1', user: 'bob', realm: 'realm1' }, admin),
      1103,
      "Token already assigned to user User(login='alice', realm='realm1', resolver='res1')",
    );
    expectServiceError(
      await s.call('POST', '/token/assign', { user: 'bob', realm: 'realm1' }, admin),
      905,
      "Missing parameter: 'serial'",
    );
    await init({ serial: 'A2' });
    expectServiceError(
      await s.call('POST', '/token/assign', { serial: 'A2' }, admin),
      905,
      "Missing parameter: 'user'",
    );
    expectServiceError(
      await s.call('POST', '/token/assign', { serial: 'A2', user: 'nobody', realm: 'realm1' }, admin),
      904,
    );
    const nf = await s.call('POST', '/token/assign', { serial: 'NOPE', user: 'bob', realm: 'realm1' }, admin);
    expect(nf.json.result.error.code).toBe(601);
    expect((await get('A2')).username).toBe('');
  });

  it('unassigns: single → 1, bulk → dict; PIN and failcount cleared', async () => {
    await init({ serial: 'U1', user: 'alice', realm: 'realm1', pin: 'x' });
    await init({ serial: 'U2', user: 'alice', realm: 'realm1' });
    await s.rt.store.db.updateTable('token').set({ failcount: 2 }).where('serial', '=', 'U1').execute();
    expect(ok(await s.call('POST', '/token/unassign', { serial: 'U1' }, admin))).toBe(1);
    expect(await get('U1')).toMatchObject({ username: '', failcount: 0 });
    expect((await row('U1')).pin_hash).toBe('');
    expect(ok(await s.call('POST', '/token/unassign', { serials: '["U2","GONE"]' }, admin))).toEqual({
      count_success: 1,
      failed: ['GONE'],
      unauthorized: [],
    });
    expectServiceError(
      await s.call('POST', '/token/unassign', {}, admin),
      905,
      "Missing parameter: 'serial' or 'serials'",
    );
    const nf = await s.call('POST', '/token/unassign', { serial: 'GONE' }, admin);
    expect(nf.status).toBe(200);
    expect(nf.json.result.error).toEqual({ code: 601, message: 'ERR601: No token found for serials: GONE' });
  });

  it('enables and disables (number changed), by path, serial list and user', async () => {
    await init({ serial: 'E1', user: 'bob', realm: 'realm1' });
    await init({ serial: 'E2', user: 'bob', realm: 'realm1' });
    expect(ok(await s.call('POST', '/token/disable/E1', {}, admin))).toBe(1);
    expect(ok(await s.call('POST', '/token/disable', { serial: 'E1' }, admin))).toBe(0);
    expect((await get('E1')).active).toBe(false);
    expect(ok(await s.call('POST', '/token/disable', { user: 'bob', realm: 'realm1' }, admin))).toBe(1);
    expect(ok(await s.call('POST', '/token/enable', { serial: 'E1,E2' }, admin))).toBe(2);
    expect(ok(await jsonCall(s, 'POST', '/token/disable', { serials: ['E1', 'E2'] }, admin))).toBe(2);
    expect(ok(await s.call('POST', '/token/enable/E2', {}, admin))).toBe(1);
    expect((await get('E2')).active).toBe(true);
  });

  it('revokes: revoked, locked, inactive; a locked token refuses modifications (ERR1007) but can be deleted', async () => {
    await init({ serial: 'R1', user: 'alice', realm: 'realm1' });
    expect(ok(await s.call('POST', '/token/revoke/R1', {}, admin))).toBe(1);
    expect(await get('R1')).toMatchObject({ revoked: true, locked: true, active: false });
    for (const [path, params] of [
      ['/token/enable/R1', {}],
      ['/token/setpin/R1', { otppin: '1' }],
      ['/token/description/R1', { description: 'x' }],
      ['/token/reset/R1', {}],
      ['/token/unassign', { serial: 'R1' }],
      ['/token/revoke/R1', {}],
      ['/token/set/R1', { max_failcount: '3' }],
      ['/token/init', { serial: 'R1' }],
    ] as [string, Record<string, string>][]) {
      expectServiceError(await s.call('POST', path, params, admin), 1007, LOCKED);
    }
    expect(await get('R1')).toMatchObject({ active: false, username: 'alice', description: '', maxfail: 10 });
    expect(ok(await s.call('DELETE', '/token/R1', {}, admin))).toBe(1);
  });

  it('deletes single and bulk with tokeninfo, realms, owner and challenges; 601 and 905 errors', async () => {
    await init({ serial: 'D1', user: 'alice', realm: 'realm1' });
    await init({ serial: 'D2' });
    await init({ serial: 'D3' });
    await s.rt.store.db
      .insertInto('challenge')
      .values({
        transaction_id: '01234567890123456789',
        serial: 'D1',
        challenge: '',
        data: '',
        session: '',
        timestamp: new Date().toISOString(),
        expiration: new Date(Date.now() + 60_000).toISOString(),
        received_count: 0,
        otp_valid: 0,
      })
      .execute();
    expect(ok(await s.call('DELETE', '/token/D1', {}, admin))).toBe(1);
    expect(await s.rt.store.db.selectFrom('challenge').selectAll().execute()).toEqual([]);
    expect(await s.rt.store.db.selectFrom('tokenowner').selectAll().execute()).toEqual([]);
    expect(await s.rt.store.db.selectFrom('tokenrealm').selectAll().execute()).toEqual([]);
    expect(ok(await s.call('DELETE', '/token/', { serials: '[D2,D3,D9]' }, admin))).toEqual({
      count_success: 2,
      failed: ['D9'],
      unauthorized: [],
    });
    expect(await s.rt.store.db.selectFrom('tokeninfo').selectAll().execute()).toEqual([]);
    const nf = await s.call('DELETE', '/token/D1', {}, admin);
    expect(nf.json.result.error).toEqual({ code: 601, message: 'ERR601: No token found for serials: D1' });
    expectServiceError(
      await s.call('DELETE', '/token/', {}, admin),
      905,
      "Missing parameter: 'serial' or 'serials'",
    );
  });

  it('resets the fail counter', async () => {
    await init({ serial: 'F1' });
    await s.rt.store.db.updateTable('token').set({ failcount: 7 }).where('serial', '=', 'F1').execute();
    expect(ok(await s.call('POST', '/token/reset/F1', {}, admin))).toBe(1);
    expect((await get('F1')).failcount).toBe(0);
  });

  it('resyncs HOTP (otp1, otp2 consecutive within the sync window) and TOTP', async () => {
    await init({ serial: 'S1', otpkey: SEED });
    const key = Buffer.from(SEED, 'hex');
    expectServiceError(
      await s.call('POST', '/token/resync/S1', { otp1: '123456' }, admin),
      905,
      "Missing parameter: 'otp2'",
    );
    expect(
      ok(
        await s.call(
          'POST',
          '/token/resync/S1',
          { otp1: hotpValue(key, 40, 6), otp2: hotpValue(key, 42, 6) },
          admin,
        ),
      ),
    ).toBe(false);
    expect((await get('S1')).count).toBe(0);
    expect(
      ok(
        await s.call(
          'POST',
          '/token/resync/S1',
          { otp1: hotpValue(key, 40, 6), otp2: hotpValue(key, 41, 6) },
          admin,
        ),
      ),
    ).toBe(true);
    expect((await get('S1')).count).toBe(42);

    await init({ type: 'totp', serial: 'S2', otpkey: SEED });
    // The learned shift depends on where in its 30 s step the server's clock is: never start this
    // part in the last five seconds of a step, or the request may land in the next one.
    const intoStep = s.rt.clock().getTime() % 30_000;
    if (intoStep > 25_000) await new Promise((resolve) => setTimeout(resolve, 30_000 - intoStep + 50));
    const step = Math.floor(s.rt.clock().getTime() / 1000 / 30);
    expect(
      ok(
        await s.call(
          'POST',
          '/token/resync',
          { serial: 'S2', otp1: hotpValue(key, step + 10, 6), otp2: hotpValue(key, step + 11, 6) },
          admin,
        ),
      ),
    ).toBe(true);
    const t = await get('S2');
    expect(t.count).toBe(step + 12);
    const shift = Number(t.info.timeShift);
    expect(shift).toBeGreaterThan(10 * 30);
    expect(shift).toBeLessThanOrEqual(11 * 30);
    // Not newer than the last used step: refused.
    expect(
      ok(
        await s.call(
          'POST',
          '/token/resync',
          { serial: 'S2', otp1: hotpValue(key, step + 10, 6), otp2: hotpValue(key, step + 11, 6) },
          admin,
        ),
      ),
    ).toBe(false);
  });

  it('sets PIN and description', async () => {
    await init({ serial: 'P1' });
    expect(ok(await s.call('POST', '/token/setpin/P1', { otppin: 'secret1' }, admin))).toBe(1);
    expect(await verifyPassword('secret1', (await row('P1')).pin_hash)).toBe(true);
    expectServiceError(
      await s.call('POST', '/token/setpin/P1', {}, admin),
      905,
      "Missing parameter: 'otppin'",
    );
    expect(ok(await s.call('POST', '/token/description/P1', { description: 'phone' }, admin))).toBe(true);
    expect((await get('P1')).description).toBe('phone');
    expectServiceError(
      await s.call('POST', '/token/description/P1', {}, admin),
      905,
      "Missing parameter: 'description'",
    );
  });

  it('sets token attributes (/token/set), refusing bad values without changing anything', async () => {
    await init({ serial: 'T1' });
    await init({ serial: 'T2' });
    const v = ok(
      await s.call(
        'POST',
        '/token/set',
        {
          serial: 'T1,T2',
          count_window: '50',
          sync_window: '200',
          max_failcount: '4',
          hashlib: 'sha256',
          description: 'set',
          count_auth_max: '100',
          count_auth_success_max: '90',
          validity_period_start: '2026-01-01T10:00+0200',
          validity_period_end: '2027-01-01 10:00:00Z',
        },
        admin,
      ),
    );
    expect(v).toBe(18);
    const t = await get('T1');
    expect(t).toMatchObject({ count_window: 50, sync_window: 200, maxfail: 4, description: 'set' });
    expect(t.info).toMatchObject({
      hashlib: 'sha256',
      count_auth_max: '100',
      count_auth_success_max: '90',
      validity_period_start: '2026-01-01T10:00+0200',
      validity_period_end: '2027-01-01T10:00+0000',
    });
    const bads: Record<string, string>[] = [
      { count_window: 'x' },
      { sync_window: '-1' },
      { max_failcount: '1.5' },
      { hashlib: 'md5' },
      { validity_period_end: 'tomorrow' },
    ];
    for (const bad of bads) {
      expectServiceError(
        await s.call('POST', '/token/set/T1', { description: 'changed', ...bad }, admin),
        905,
      );
    }
    expect((await get('T1')).description).toBe('set');
    expect(ok(await s.call('POST', '/token/set/T1', { max_failcount: '6' }, admin))).toBe(1);
  });

  it('sets realms (unknown dropped, owner realm kept) and tokeninfo', async () => {
    await init({ serial: 'RL1', user: 'alice', realm: 'realm1' });
    expect(ok(await s.call('POST', '/token/realm/RL1', { realms: 'realm2, nosuch' }, admin))).toBe(true);
    expect((await get('RL1')).realms).toEqual(['realm1', 'realm2']);
    await init({ serial: 'RL2' });
    expect(ok(await jsonCall(s, 'POST', '/token/realm/RL2', { realms: ['realm2'] }, admin))).toBe(true);
    expect((await get('RL2')).realms).toEqual(['realm2']);
    expect(ok(await s.call('POST', '/token/realm/RL2', { realms: '' }, admin))).toBe(true);
    expect((await get('RL2')).realms).toEqual([]);

    expect(ok(await s.call('POST', '/token/info/RL2/mykey', { value: 'v1' }, admin))).toBe(true);
    expect((await get('RL2')).info.mykey).toBe('v1');
    expectServiceError(
      await s.call('POST', '/token/info/RL2/mykey', {}, admin),
      905,
      "Missing parameter: 'value'",
    );
    expect(ok(await s.call('DELETE', '/token/info/RL2/mykey', {}, admin))).toBe(true);
    expect((await get('RL2')).info.mykey).toBeUndefined();
    expect((await s.call('DELETE', '/token/info/NONE/mykey', {}, admin)).json.result.error.code).toBe(601);
  });

  it('lists challenges and deletes expired ones', async () => {
    await init({ serial: 'C1' });
    const now = Date.now();
    const base = { challenge: '', session: '', received_count: 0, otp_valid: 0 };
    await s.rt.store.db
      .insertInto('challenge')
      .values([
        {
          ...base,
          transaction_id: '11111111111111111111',
          serial: 'C1',
          data: '{"a": 1}',
          timestamp: new Date(now - 1000).toISOString(),
          expiration: new Date(now + 120_000).toISOString(),
        },
        {
          ...base,
          transaction_id: '22222222222222222222',
          serial: 'C1',
          data: 'text',
          timestamp: new Date(now - 600_000).toISOString(),
          expiration: new Date(now - 300_000).toISOString(),
        },
      ])
      .execute();
    const v = ok(await s.call('GET', '/token/challenges/', {}, admin));
    expect(v).toMatchObject({ count: 2, current: 1, prev: null, next: null });
    expect(v.challenges[0]).toMatchObject({
      transaction_id: '22222222222222222222',
      serial: 'C1',
      data: 'text',
      otp_received: false,
      otp_valid: false,
      received_count: 0,
    });
    expect(v.challenges[1].data).toEqual({ a: 1 });
    expect(v.challenges[1].expiration).toBe(new Date(now + 120_000).toUTCString());
    expect(
      ok(await s.call('GET', '/token/challenges/C1', { transaction_id: '11111111111111111111' }, admin))
        .count,
    ).toBe(1);
    expect(ok(await s.call('DELETE', '/token/challenges/expired', {}, admin))).toEqual({
      status: true,
      deleted: 1,
    });
    expect(ok(await s.call('GET', '/token/challenges/', {}, admin)).count).toBe(1);
  });

  it('enforces enroll<TYPE> once admin policies exist', async () => {
    await policy('admin-hotp', {
      scope: 'admin',
      action: 'enrollHOTP, tokenlist, delete',
      adminuser: 'admin',
    });
    await init({ type: 'hotp', serial: 'PH1' });
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'totp', serial: 'PT1' }, admin),
      303,
      DENIED_ADMIN('enrollTOTP'),
    );
    expectServiceError(await s.call('POST', '/token/disable/PH1', {}, admin), 303, DENIED_ADMIN('disable'));
    expect((await get('PH1')).active).toBe(true);
    expect((await s.rt.store.db.selectFrom('token').select('serial').execute()).map((r) => r.serial)).toEqual(
      ['PH1'],
    );
  });

  it('lets users see and manage only their own tokens; user policies restrict enrollment', async () => {
    await init({ serial: 'ALICE1', user: 'alice', realm: 'realm1' });
    await init({ serial: 'BOB1', user: 'bob', realm: 'realm1' });
    await init({ serial: 'FREE1' });
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    const list = ok(await s.call('GET', '/token/', { user: 'bob', realm: 'realm1' }, alice));
    expect(list.tokens.map((t: { serial: string }) => t.serial)).toEqual(['ALICE1']);
    expect(ok(await s.call('POST', '/token/disable/ALICE1', {}, alice))).toBe(1);
    expectServiceError(await s.call('POST', '/token/disable/BOB1', {}, alice), 303, DENIED_USER('disable'));
    expectServiceError(await s.call('DELETE', '/token/BOB1', {}, alice), 303, DENIED_USER('delete'));
    expect((await get('BOB1')).active).toBe(true);
    // Bulk by user: the user parameters are overridden by the caller.
    expect(ok(await s.call('POST', '/token/enable', { user: 'bob', realm: 'realm1' }, alice))).toBe(1);
    expect(ok(await s.call('POST', '/token/unassign', { serials: '[ALICE1,BOB1]' }, alice))).toEqual({
      count_success: 1,
      failed: [],
      unauthorized: ['BOB1'],
    });
    // Enrolling for someone else enrolls for oneself.
    const d = ok(
      await s.call('POST', '/token/init', { serial: 'MINE', user: 'bob', realm: 'realm1' }, alice),
    );
    expect(d).toBe(true);
    expect((await get('MINE')).username).toBe('alice');
    // Assigning: a free token to oneself; another's token → ERR1103.
    expect(ok(await s.call('POST', '/token/assign', { serial: 'FREE1', user: 'bob' }, alice))).toBe(true);
    expect((await get('FREE1')).username).toBe('alice');
    expectServiceError(
      await s.call('POST', '/token/assign', { serial: 'BOB1' }, alice),
      1103,
      'Token already assigned to another user.',
    );
    // Admin-only endpoints refuse users.
    expect((await s.call('POST', '/token/set/MINE', { max_failcount: '1' }, alice)).status).toBe(401);
    // With a user policy, only what it grants.
    await policy('u-totp', { scope: 'user', action: 'enrollTOTP, disable', realm: 'realm1' });
    expectServiceError(
      await s.call('POST', '/token/init', { type: 'hotp' }, alice),
      303,
      DENIED_USER('enrollHOTP'),
    );
    ok(await s.call('POST', '/token/init', { type: 'totp', serial: 'ATOTP', genkey: '1' }, alice));
    expectServiceError(await s.call('DELETE', '/token/MINE', {}, alice), 303, DENIED_USER('delete'));
    expect(ok(await s.call('POST', '/token/disable/MINE', {}, alice))).toBe(1);
  });

  it('limits a realm-restricted administrator to the tokens of his realms', async () => {
    await policy('all', { scope: 'admin', action: '*', adminuser: 'admin' });
    await policy('helpdesk', {
      scope: 'admin',
      action: 'tokenlist, enable, disable, enrollHOTP, assign, delete',
      adminuser: 'helper',
      realm: 'realm1',
    });
    await init({ serial: 'IN1', user: 'alice', realm: 'realm1' });
    await init({ serial: 'IN2', realm: 'realm1' });
    await init({ serial: 'OUT1', user: 'carol', realm: 'realm2' });
    await init({ serial: 'NOREALM' });
    const helper = await userToken(s, 'helper', 'Helper-pass-1');
    const v = ok(await s.call('GET', '/token/', {}, helper));
    expect(v.tokens.map((t: { serial: string }) => t.serial)).toEqual(['IN1', 'IN2']);
    expectServiceError(
      await s.call('GET', '/token/', { realm: 'realm2' }, helper),
      303,
      DENIED_ADMIN('tokenlist'),
    );
    expect(ok(await s.call('POST', '/token/disable/IN1', {}, helper))).toBe(1);
    expectServiceError(await s.call('POST', '/token/disable/OUT1', {}, helper), 303, DENIED_ADMIN('disable'));
    expectServiceError(
      await s.call('POST', '/token/disable/NOREALM', {}, helper),
      303,
      DENIED_ADMIN('disable'),
    );
    expect(ok(await s.call('POST', '/token/disable', { serial: 'IN2,OUT1' }, helper))).toBe(1);
    expectServiceError(
      await s.call('POST', '/token/disable', { serials: '[OUT1,NOREALM]' }, helper),
      303,
      'Admin actions are defined, but the action disable is not allowed for any of the serials provided!',
    );
    expect(ok(await s.call('DELETE', '/token/', { serials: '[IN2,OUT1]' }, helper))).toEqual({
      count_success: 1,
      failed: [],
      unauthorized: ['OUT1'],
    });
    expect((await get('OUT1')).active).toBe(true);
    // Enrolling for a user of another realm is refused; of his realm allowed.
    expectServiceError(
      await s.call('POST', '/token/init', { user: 'carol', realm: 'realm2' }, helper),
      303,
      DENIED_ADMIN('enrollHOTP'),
    );
    ok(await s.call('POST', '/token/init', { serial: 'HB', user: 'bob', realm: 'realm1' }, helper));
    expectServiceError(
      await s.call('POST', '/token/assign', { serial: 'NOREALM', user: 'carol', realm: 'realm2' }, helper),
      303,
      DENIED_ADMIN('assign'),
    );
    expect((await get('NOREALM')).username).toBe('');
  });
});

describe.each(testDialects())('/token lifecycle on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(dialect, USERS, (t) => ({ s, admin } = t));

  it('init → list → assign → disable → delete', async () => {
    const init = await s.call('POST', '/token/init', { type: 'hotp', serial: 'DL1', otpkey: SEED }, admin);
    expect(ok(init)).toBe(true);
    expect(init.json.detail.otpkey.value_b32).toBe(SEED_B32);
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'totp', serial: 'DL2', genkey: '1', realm: 'realm2' },
        admin,
      ),
    );
    const list = ok(await s.call('GET', '/token/', {}, admin));
    expect(list.count).toBe(2);
    expect(list.tokens.map((t: { serial: string }) => t.serial)).toEqual(['DL1', 'DL2']);
    expect(list.tokens[1].realms).toEqual(['realm2']);
    expect(
      ok(await s.call('POST', '/token/assign', { serial: 'DL1', user: 'alice', realm: 'realm1' }, admin)),
    ).toBe(true);
    expectServiceError(
      await s.call('POST', '/token/assign', { serial: 'DL1', user: 'bob', realm: 'realm1' }, admin),
      1103,
    );
    const mine = ok(await s.call('GET', '/token/', { user: 'alice', realm: 'realm1' }, admin));
    expect(mine.tokens.map((t: { serial: string }) => t.serial)).toEqual(['DL1']);
    expect(ok(await s.call('POST', '/token/disable', { user: 'alice', realm: 'realm1' }, admin))).toBe(1);
    expect(ok(await s.call('GET', '/token/', { active: 'false' }, admin)).tokens[0].serial).toBe('DL1');
    expect(ok(await s.call('POST', '/token/revoke/DL2', {}, admin))).toBe(1);
    expectServiceError(await s.call('POST', '/token/enable/DL2', {}, admin), 1007, LOCKED);
    expect(ok(await s.call('DELETE', '/token/DL1', {}, admin))).toBe(1);
    expect(ok(await s.call('DELETE', '/token/', { serials: '[DL2]' }, admin))).toBe(1);
    expect(ok(await s.call('GET', '/token/', {}, admin)).count).toBe(0);
    for (const table of ['tokeninfo', 'tokenowner', 'tokenrealm'] as const)
      expect(await s.rt.store.db.selectFrom(table).selectAll().execute()).toEqual([]);
  });
});
