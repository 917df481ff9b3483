// Enrollment and authentication extras over HTTP (reference 3.3, 4.2.2, 4.5): two-step enrollment
// of hotp/totp, PINs sealed by the security module (encrypt_pin / encryptpin),
// failcounter_clear_timeout and HOTP AutoResync. Expected values are computed here, independently
// of src/tokens.
import { pbkdf2Sync } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { deletePolicy, type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { removeConfig } from '../helpers/config.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import type { TestServer } from '../helpers/server.ts';
import { initOk, tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const SEED = '3132333435363738393031323334353637383930';

const otp = (counter: number) => hotp(SEED, counter);

describe.each(testDialects())('token extras over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  let now = new Date('2026-03-01T12:00:05Z');

  useTokenServer(dialect, { clock: () => now, reset: ['policies', 'tokens'] }, (t) => ({ s, op, admin } = t));
  afterEach(async () => {
    await removeConfig(s.rt, ['AutoResync', 'AutoResyncTimeout', 'failcounter_clear_timeout']);
    now = new Date('2026-03-01T12:00:05Z');
    admin = await s.adminToken();
  });

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const call = (path: string, params: Record<string, string>) => s.call('POST', path, params, admin);
  const init = async (params: Record<string, string>) => (await initOk(s, params, admin)).json.detail;
  const row = (serial: string) => tokenRow(s, serial);
  const get = async (serial: string) => ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0];
  const check = async (serial: string, pass: string) => {
    const r = await s.call('POST', '/validate/check', { serial, pass });
    expect(r.json.result.status).toBe(true);
    return { value: r.json.result.value as boolean, message: r.json.detail?.message as string };
  };
  const setConfig = async (values: Record<string, string>) => ok(await call('/system/setConfig', values));

  describe('two-step enrollment', () => {
    it('hotp: server part, then the client part gives the PBKDF2 key; clientwait tokens do not authenticate', async () => {
      await policy('twostep', { scope: 'admin', action: { '*': true, hotp_2step: 'allow' } });
      const first = await init({ type: 'hotp', serial: 'TS1', '2stepinit': '1', pin: 'pin' });
      expect(first.rollout_state).toBe('clientwait');
      expect(first['2step_salt']).toBe(8);
      expect(first['2step_output']).toBe(20);
      expect(first['2step_difficulty']).toBe(10000);
      const server = Buffer.from(String(first.otpkey.value).replace('seed://', ''), 'hex');
      expect(server).toHaveLength(20);
      expect(first.googleurl.value).toContain('2step_salt=8');
      expect((await get('TS1')).rollout_state).toBe('clientwait');
      expect(await check('TS1', `pin${hotp(server.toString('hex'), 0)}`)).toEqual({
        value: false,
        message: 'Token is not yet enrolled',
      });

      // wrong client length
      expectServiceError(await call('/token/init', { type: 'hotp', serial: 'TS1', otpkey: 'aabb' }), 905);
      expectServiceError(
        await call('/token/init', { type: 'hotp', serial: 'TS1', otpkey: 'aa'.repeat(8), '2stepinit': '1' }),
        905,
        '2stepinit is only to be used in the first initialization step.',
      );
      expect((await row('TS1')).rollout_state).toBe('clientwait');

      const client = Buffer.from('0102030405060708', 'hex');
      const second = await init({ type: 'hotp', serial: 'TS1', otpkey: client.toString('hex') });
      expect(second.rollout_state).toBe('');
      const key = pbkdf2Sync(server.toString('hex'), client, 10000, 20, 'sha1');
      expect(second.otpkey.value).toBe(`seed://${key.toString('hex')}`);
      expect((await get('TS1')).rollout_state).toBe('');
      expect(await check('TS1', `pin${hotp(key.toString('hex'), 0)}`)).toMatchObject({ value: true });
    });

    it('totp: sizes and difficulty from the enrollment scope', async () => {
      await policy('twostep', { scope: 'admin', action: { '*': true, totp_2step: 'allow' } });
      await policy('sizes', {
        scope: 'enrollment',
        action: { totp_2step_clientsize: '12', totp_2step_serversize: '16', totp_2step_difficulty: '500' },
      });
      const first = await init({ type: 'totp', serial: 'TS2', '2stepinit': '1' });
      expect(first).toMatchObject({
        rollout_state: 'clientwait',
        '2step_salt': 12,
        '2step_output': 20,
        '2step_difficulty': 500,
      });
      const server = Buffer.from(String(first.otpkey.value).replace('seed://', ''), 'hex');
      expect(server).toHaveLength(16);
      expectServiceError(
        await call('/token/init', { type: 'totp', serial: 'TS2', otpkey: 'ab'.repeat(8) }),
        905,
        'The client component must be 12 bytes long.',
      );
      const client = Buffer.alloc(12, 7);
      const second = await init({ type: 'totp', serial: 'TS2', otpkey: client.toString('hex') });
      const key = pbkdf2Sync(server.toString('hex'), client, 500, 20, 'sha1');
      expect(second.otpkey.value).toBe(`seed://${key.toString('hex')}`);
      const step = Math.floor(now.getTime() / 30000);
      expect(await check('TS2', hotp(key.toString('hex'), step))).toMatchObject({ value: true });
    });

    it('without the policy 2stepinit is ignored; with force a one-step enrollment is refused', async () => {
      const plain = await init({ type: 'hotp', serial: 'TS3', '2stepinit': '1' });
      expect(plain.rollout_state).toBe('');
      expect(plain['2step_salt']).toBeUndefined();
      await policy('force', { scope: 'admin', action: { '*': true, hotp_2step: 'force' } });
      expectServiceError(
        await call('/token/init', { type: 'hotp', serial: 'TS4', otpkey: SEED }),
        303,
        'The policy hotp_2step=force requires a two-step enrollment (2stepinit=1).',
      );
      expect(
        await s.rt.store.db.selectFrom('token').select('serial').where('serial', '=', 'TS4').execute(),
      ).toEqual([]);
      const first = await init({ type: 'hotp', serial: 'TS4', '2stepinit': '1' });
      expect(first.rollout_state).toBe('clientwait');
      // the second step is no one-step enrollment
      await init({ type: 'hotp', serial: 'TS4', otpkey: '11'.repeat(8) });
      expect((await row('TS4')).rollout_state).toBe('');
      // totp is not forced by hotp_2step
      await init({ type: 'totp', serial: 'TS5', otpkey: SEED });
    });
  });

  describe('encrypted PINs', () => {
    it('encryptpin=1 stores @@ + the sealed PIN; it authenticates', async () => {
      await init({ type: 'hotp', serial: 'EP1', otpkey: SEED, pin: 'secret', encryptpin: '1' });
      const r = await row('EP1');
      expect(r.pin_hash.startsWith('@@')).toBe(true);
      expect(s.rt.hsm.decrypt(r.pin_hash.slice(2))).toBe('secret');
      expect(await check('EP1', `wrong${otp(0)}`)).toMatchObject({ value: false, message: 'wrong otp pin' });
      expect(await check('EP1', `secret${otp(0)}`)).toMatchObject({ value: true });
    });

    it('the encrypt_pin enrollment policy; setpin with encryptpin', async () => {
      await policy('enc', { scope: 'enrollment', action: 'encrypt_pin' });
      await init({ type: 'hotp', serial: 'EP2', otpkey: SEED, pin: 'pol' });
      expect((await row('EP2')).pin_hash.startsWith('@@')).toBe(true);
      expect(await check('EP2', `pol${otp(0)}`)).toMatchObject({ value: true });
      await deletePolicy(op, 'enc');

      ok(await call('/token/setpin', { serial: 'EP2', otppin: 'hashed' }));
      expect((await row('EP2')).pin_hash.startsWith('@@')).toBe(false);
      expect(await check('EP2', `hashed${otp(1)}`)).toMatchObject({ value: true });
      ok(await call('/token/setpin', { serial: 'EP2', otppin: 'sealed', encryptpin: 'true' }));
      const r = await row('EP2');
      expect(r.pin_hash.startsWith('@@')).toBe(true);
      expect(s.rt.hsm.decrypt(r.pin_hash.slice(2))).toBe('sealed');
      expect(await check('EP2', `hashed${otp(2)}`)).toMatchObject({ value: false });
      expect(await check('EP2', `sealed${otp(2)}`)).toMatchObject({ value: true });
    });
  });

  describe('failcounter_clear_timeout', () => {
    it('a token at maxfail is usable again once failcounter_exceeded is older than the timeout', async () => {
      await init({ type: 'hotp', serial: 'FC1', otpkey: SEED, pin: 'p' });
      await s.rt.store.db.updateTable('token').set({ maxfail: 2 }).where('serial', '=', 'FC1').execute();
      for (let i = 0; i < 2; i++) expect((await check('FC1', 'p000000')).value).toBe(false);
      expect((await row('FC1')).failcount).toBe(2);
      expect((await get('FC1')).info.failcounter_exceeded).toBe('2026-03-01T12:00+0000');
      expect(await check('FC1', `p${otp(0)}`)).toEqual({ value: false, message: 'Failcounter exceeded' });

      // off (0) by default: no reset however late
      now = new Date('2026-03-01T13:00:05Z');
      admin = await s.adminToken(); // the session of the earlier clock has expired
      expect(await check('FC1', `p${otp(0)}`)).toMatchObject({ message: 'Failcounter exceeded' });
      await setConfig({ failcounter_clear_timeout: '90' });
      expect(await check('FC1', `p${otp(0)}`)).toMatchObject({ message: 'Failcounter exceeded' });
      now = new Date('2026-03-01T13:30:05Z');
      admin = await s.adminToken(); // the session of the earlier clock has expired
      expect(await check('FC1', `p${otp(0)}`)).toMatchObject({ value: true });
      const r = await row('FC1');
      expect(r.failcount).toBe(0);
      expect((await get('FC1')).info.failcounter_exceeded).toBeUndefined();
    });

    it('reads failcounter_exceeded with its offset, as a token from privacyIDEA may carry it', async () => {
      await setConfig({ failcounter_clear_timeout: '30' });
      await init({ type: 'hotp', serial: 'FC3', otpkey: SEED });
      const id = (await row('FC3')).id;
      await s.rt.store.db
        .updateTable('token')
        .set({ maxfail: 1, failcount: 1 })
        .where('id', '=', id)
        .execute();
      // 12:30+0100 is 11:30 UTC, 40 minutes before now (12:10 UTC): past the timeout. Read as UTC it
      // would lie 20 minutes in the future.
      now = new Date('2026-03-01T12:10:00Z');
      await s.rt.store.db
        .insertInto('tokeninfo')
        .values({ token_id: id, key: 'failcounter_exceeded', value: '2026-03-01T12:30+0100', type: '' })
        .execute();
      expect(await check('FC3', otp(0))).toMatchObject({ value: true });
      expect((await row('FC3')).failcount).toBe(0);
      // Other forms: with seconds and `+hh:mm`; without an offset, UTC (as before).
      let counter = 1;
      for (const [stored, cleared] of [
        ['2026-03-01T11:50', false], // 20 minutes ago: within the timeout
        ['2026-03-01T11:30', true], // 40 minutes ago
        ['2026-03-01T12:50:30+01:00', false],
        ['2026-03-01T12:35:00+01:00', true],
        ['2026-03-01T06:50-0500', false], // 11:50 UTC
      ] as const) {
        await s.rt.store.db
          .deleteFrom('tokeninfo')
          .where('token_id', '=', id)
          .where('key', '=', 'failcounter_exceeded')
          .execute();
        await s.rt.store.db.updateTable('token').set({ failcount: 1 }).where('id', '=', id).execute();
        await s.rt.store.db
          .insertInto('tokeninfo')
          .values({ token_id: id, key: 'failcounter_exceeded', value: stored, type: '' })
          .execute();
        const answer = await check('FC3', otp(counter));
        if (cleared) {
          expect(answer, stored).toMatchObject({ value: true });
          counter++;
        } else expect(answer, stored).toMatchObject({ message: 'Failcounter exceeded' });
      }
    });

    it('after the timeout a wrong value counts again from 0', async () => {
      await setConfig({ failcounter_clear_timeout: '1' });
      await init({ type: 'hotp', serial: 'FC2', otpkey: SEED });
      await s.rt.store.db.updateTable('token').set({ maxfail: 1 }).where('serial', '=', 'FC2').execute();
      expect((await check('FC2', '000000')).message).toBe('wrong otp value');
      expect((await check('FC2', otp(0))).message).toBe('Failcounter exceeded');
      now = new Date('2026-03-01T12:02:00Z');
      expect((await check('FC2', '000000')).message).toBe('wrong otp value');
      expect((await row('FC2')).failcount).toBe(1);
    });
  });

  describe('AutoResync', () => {
    it('two consecutive values beyond the window resync the counter', async () => {
      await init({ type: 'hotp', serial: 'AR1', otpkey: SEED });
      // off by default: a value beyond the window only fails
      expect((await check('AR1', otp(50))).value).toBe(false);
      expect((await get('AR1')).info.otp1c).toBeUndefined();

      await setConfig({ AutoResync: 'True' });
      expect((await check('AR1', otp(50))).value).toBe(false);
      let info = (await get('AR1')).info;
      expect(info.otp1c).toBe('50');
      expect(info.dueDate).toBe(String(Math.floor(now.getTime() / 1000) + 300));
      expect((await check('AR1', otp(51))).value).toBe(true);
      const r = await row('AR1');
      expect(Number(r.count)).toBe(52);
      info = (await get('AR1')).info;
      expect(info.otp1c).toBeUndefined();
      expect(info.dueDate).toBeUndefined();
      expect((await check('AR1', otp(51))).value).toBe(false);
      expect((await check('AR1', otp(52))).value).toBe(true);
    });

    it('a non-consecutive or late second value fails and forgets the first', async () => {
      await setConfig({ AutoResync: '1', AutoResyncTimeout: '60' });
      await init({ type: 'hotp', serial: 'AR2', otpkey: SEED });
      expect((await check('AR2', otp(100))).value).toBe(false);
      expect((await check('AR2', otp(102))).value).toBe(false);
      expect((await get('AR2')).info.otp1c).toBeUndefined();

      expect((await check('AR2', otp(200))).value).toBe(false);
      expect((await get('AR2')).info.dueDate).toBe(String(Math.floor(now.getTime() / 1000) + 60));
      now = new Date(now.getTime() + 61_000);
      expect((await check('AR2', otp(201))).value).toBe(false);
      expect(Number((await row('AR2')).count)).toBe(0);
      // beyond the sync window nothing is remembered
      expect((await check('AR2', otp(5000))).value).toBe(false);
      expect((await get('AR2')).info.otp1c).toBeUndefined();
    });
  });
});
