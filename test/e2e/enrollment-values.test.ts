// The enrollment policies that shape generated values on POST /token/init (reference 3.3, 5.5):
// registration.length/.contents and pw.length/.contents (the code or password; contents in the
// otp_pin_contents format), papertoken_count and tantoken_count (policy over request parameter),
// matched for the token's owner or realm; and the validity_period_start/end parameters of init,
// stored as tokeninfo in privacyIDEA's `YYYY-MM-DDThh:mm+oooo`. Policies are written as the CLI
// operator.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { deletePolicy, type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { initOk, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

/** The default alphabet of generated passwords: letters and digits without look-alikes. */
const DEFAULT_CHARS = /^[1-9a-km-zA-HJ-NP-Z]+$/;
const LETTER = /[A-Za-z]/;
const DIGIT = /\d/;
const PUNCT = /[!-/:-@[-`{-~]/;
const KEY = '3132333435363738393031323334353637383930';

describe.each(testDialects())('enrollment values over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  const now = new Date('2026-03-01T12:00:05Z');
  const alice = { user: 'alice', realm: 'realm1' };
  const carol = { user: 'carol', realm: 'realm2' };

  useTokenServer(
    dialect,
    {
      clock: () => now,
      realms: { realm1: [pwUser('alice', 1001)], realm2: [pwUser('carol', 2001)] },
      reset: ['policies', 'tokens'],
    },
    (t) => ({ s, op, admin } = t),
  );

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const initCall = (params: Record<string, string>) => s.call('POST', '/token/init', params, admin);
  const init = async (params: Record<string, string>) => (await initOk(s, params, admin)).json.detail;
  const get = async (serial: string) => ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0];
  const tokenCount = async () => (await s.rt.store.db.selectFrom('token').select('serial').execute()).length;
  const check = async (params: Record<string, string>) =>
    ok(await s.call('POST', '/validate/check', params)) as boolean;

  describe('registration.length / registration.contents', () => {
    it('without a policy: 24 letters and digits', async () => {
      const d = await init({ type: 'registration', ...alice });
      expect(d.registrationcode).toHaveLength(24);
      expect(d.registrationcode).toMatch(DEFAULT_CHARS);
    });

    it('the policy for the owner sets length and characters; the code authenticates once', async () => {
      await policy('reg', {
        scope: 'enrollment',
        action: { 'registration.length': '10', 'registration.contents': '-cs' },
        realm: 'realm1',
      });
      const d = await init({ type: 'registration', ...alice });
      expect(d.registrationcode).toMatch(/^\d{10}$/);
      expect((await get(d.serial)).otplen).toBe(10);
      expect(await check({ ...alice, pass: d.registrationcode })).toBe(true);
      expect(await tokenCount()).toBe(0);
      // Another realm's owner, and a token without owner or realm: the defaults.
      const other = await init({ type: 'registration', ...carol });
      expect(other.registrationcode).toHaveLength(24);
      expect(other.registrationcode).toMatch(DEFAULT_CHARS);
      expect((await init({ type: 'registration' })).registrationcode).toHaveLength(24);
      // A token only put into realm1 is matched by that realm.
      expect((await init({ type: 'registration', realm: 'realm1' })).registrationcode).toMatch(/^\d{10}$/);
    });

    it('contents classes: each listed class required, + one of them, - excluded, [...] exactly', async () => {
      const cases: [string, (code: string) => void][] = [
        [
          'cns',
          (c) => {
            for (const re of [LETTER, DIGIT, PUNCT]) expect(c).toMatch(re);
          },
        ],
        ['-n', (c) => expect(c).not.toMatch(DIGIT)],
        ['-ns', (c) => expect(c).toMatch(/^[A-Za-z]+$/)],
        ['+n', (c) => expect(c).toMatch(DIGIT)],
        ['[xyz]', (c) => expect(c).toMatch(/^[xyz]+$/)],
      ];
      for (const [contents, expectation] of cases) {
        await policy('reg', {
          scope: 'enrollment',
          action: { 'registration.contents': contents, 'registration.length': '40' },
        });
        for (let i = 0; i < 3; i++) {
          const code: string = (await init({ type: 'registration', ...alice })).registrationcode;
          expect(code).toHaveLength(40);
          expect(code).toMatch(/^[!-~]+$/);
          expectation(code);
        }
      }
    });

    it('the request cannot set the length or contents', async () => {
      const d = await init({
        type: 'registration',
        ...alice,
        'registration.length': '8',
        'registration.contents': 'n',
        otpkey: 'chosen',
      });
      expect(d.registrationcode).toHaveLength(24);
      expect(d.registrationcode).toMatch(DEFAULT_CHARS);
    });
  });

  describe('pw.length / pw.contents', () => {
    it('defaults to 12 characters; the system config pw.length is not read', async () => {
      ok(await s.call('POST', '/system/setConfig', { 'pw.length': '30' }, admin));
      try {
        const d = await init({ type: 'pw', ...alice, genkey: '1' });
        expect(d.password).toHaveLength(12);
        expect(d.password).toMatch(DEFAULT_CHARS);
      } finally {
        ok(await s.call('DELETE', '/system/pw.length', {}, admin));
      }
    });

    it('the policy sets the generated password; a given otpkey stays the password', async () => {
      await policy('pw', {
        scope: 'enrollment',
        action: { 'pw.length': '16', 'pw.contents': '[ab1]' },
        realm: 'realm1',
      });
      const d = await init({ type: 'pw', ...alice, genkey: '1', pin: 'pp' });
      expect(d.password).toMatch(/^[ab1]{16}$/);
      expect((await get(d.serial)).otplen).toBe(16);
      expect(await check({ ...alice, pass: `pp${d.password}` })).toBe(true);
      const given = await init({ type: 'pw', ...alice, otpkey: 'my-own-password' });
      expect(given.password).toBe('my-own-password');
      // realm2's owner: the default.
      expect((await init({ type: 'pw', ...carol, genkey: '1' })).password).toHaveLength(12);
    });

    it('the more important policy wins', async () => {
      await policy('short', { scope: 'enrollment', action: { 'pw.length': '6' }, priority: 2 });
      await policy('long', { scope: 'enrollment', action: { 'pw.length': '20' }, priority: 1 });
      expect((await init({ type: 'pw', ...alice, genkey: '1' })).password).toHaveLength(20);
    });
  });

  describe('bad length and contents policies refuse the enrollment (303), nothing is created', () => {
    const bads: [string, Record<string, string>, RegExp][] = [
      ['pw', { 'pw.length': '0' }, /pw\.length must be a positive integer/],
      ['pw', { 'pw.length': '-4' }, /pw\.length must be a positive integer/],
      ['pw', { 'pw.contents': 'xyz' }, /Unknown character specifier/],
      ['registration', { 'registration.contents': 'c+n' }, /Unknown character specifier/],
      ['registration', { 'registration.length': '0' }, /registration\.length must be a positive integer/],
    ];
    it.each(bads)('%s with %o', async (type, action, message) => {
      await policy('bad', { scope: 'enrollment', action });
      expectServiceError(await initCall({ type, ...alice, serial: 'BAD1' }), 303, message);
      expect(await tokenCount()).toBe(0);
    });

    it('equal policies with different values conflict', async () => {
      await policy('a', { scope: 'enrollment', action: { 'pw.length': '6' } });
      await policy('b', { scope: 'enrollment', action: { 'pw.length': '8' } });
      expectServiceError(await initCall({ type: 'pw', ...alice, genkey: '1', serial: 'BAD2' }), 303);
      expect(await tokenCount()).toBe(0);
    });
  });

  describe('papertoken_count / tantoken_count', () => {
    it('without a policy the request parameter counts (default 100)', async () => {
      expect(Object.keys((await init({ type: 'paper', ...alice, papertoken_count: '7' })).otps)).toHaveLength(
        7,
      );
      expect(Object.keys((await init({ type: 'paper', ...alice })).otps)).toHaveLength(100);
      expect((await init({ type: 'tan', ...alice, tantoken_count: '9' })).tans).toHaveLength(9);
      expect((await init({ type: 'tan', ...alice })).tans).toHaveLength(100);
    });

    it('the policy wins over the request parameter, for the owner it matches', async () => {
      await policy('counts', {
        scope: 'enrollment',
        action: { papertoken_count: '3', tantoken_count: '4' },
        realm: 'realm1',
      });
      const paper = await init({ type: 'paper', ...alice, otpkey: KEY, papertoken_count: '7' });
      expect(Object.keys(paper.otps)).toEqual(['0', '1', '2']);
      expect(await check({ ...alice, pass: paper.otps['0'] })).toBe(true);
      expect(Object.keys((await init({ type: 'paper', ...alice, papercount: '7' })).otps)).toHaveLength(3);
      const tan = await init({ type: 'tan', ...alice, tancount: '9', otplen: '8' });
      expect(tan.tans).toHaveLength(4);
      for (const t of tan.tans) expect(t).toMatch(/^\d{8}$/);
      expect(Object.keys(tan.otps)).toHaveLength(4);
      // Given TANs are taken as they are.
      expect((await init({ type: 'tan', ...alice, tans: '111111 222222' })).tans).toEqual([
        '111111',
        '222222',
      ]);
      // realm2's owner: the parameter.
      expect(Object.keys((await init({ type: 'paper', ...carol, papertoken_count: '7' })).otps)).toHaveLength(
        7,
      );
      expect((await init({ type: 'tan', ...carol, tantoken_count: '5' })).tans).toHaveLength(5);
    });

    it('a count policy out of range refuses the enrollment (303); a bad parameter is 905', async () => {
      await policy('bad', { scope: 'enrollment', action: { papertoken_count: '0', tantoken_count: '5000' } });
      expectServiceError(
        await initCall({ type: 'paper', ...alice, serial: 'P1', papertoken_count: '5' }),
        303,
        /papertoken_count/,
      );
      expectServiceError(
        await initCall({ type: 'tan', ...alice, serial: 'T1', tancount: '5' }),
        303,
        /tantoken_count/,
      );
      expect(await tokenCount()).toBe(0);
      await deletePolicy(op, 'bad');
      expectServiceError(
        await initCall({ type: 'paper', ...alice, serial: 'P1', papertoken_count: 'x' }),
        905,
      );
      expectServiceError(await initCall({ type: 'tan', ...alice, serial: 'T1', tancount: '0' }), 905);
      expect(await tokenCount()).toBe(0);
    });
  });

  describe('validity_period_start / validity_period_end on init', () => {
    it('are stored as YYYY-MM-DDThh:mm+oooo and limit authentication', async () => {
      const d = await init({
        type: 'pw',
        otpkey: 'secret',
        ...alice,
        validity_period_start: '2026-01-01T10:00+0200',
        validity_period_end: '2027-01-01 10:00:00Z',
      });
      const info = (await get(d.serial)).info;
      expect(info.validity_period_start).toBe('2026-01-01T10:00+0200');
      expect(info.validity_period_end).toBe('2027-01-01T10:00+0000');
      expect(await check({ ...alice, pass: 'secret' })).toBe(true);
      // Re-initialising with an end in the past: the token is no longer usable.
      await init({
        type: 'pw',
        serial: d.serial,
        otpkey: 'secret',
        validity_period_end: '2026-02-01T00:00+01:00',
      });
      expect((await get(d.serial)).info.validity_period_end).toBe('2026-02-01T00:00+0100');
      expect(await check({ ...alice, pass: 'secret' })).toBe(false);
    });

    it('are not stored when not given or empty', async () => {
      const d = await init({ type: 'hotp', otpkey: KEY, validity_period_start: '' });
      const info = (await get(d.serial)).info;
      expect(info.validity_period_start).toBeUndefined();
      expect(info.validity_period_end).toBeUndefined();
    });

    it('a malformed date refuses the enrollment (905) and nothing is stored', async () => {
      const bads: Record<string, string>[] = [
        { validity_period_start: 'tomorrow' },
        { validity_period_end: '2026-13-45T10:00+0000' },
        { validity_period_end: '01.03.2026 10:00' },
      ];
      for (const bad of bads) {
        expectServiceError(
          await initCall({ type: 'hotp', otpkey: KEY, serial: 'V1', ...alice, ...bad }),
          905,
          /validity_period_(start|end)' must be a date like 2025-01-31T10:00\+0000/,
        );
        expect(await tokenCount()).toBe(0);
      }
      // An existing token keeps its data when a re-init carries a bad date.
      await init({ type: 'pw', serial: 'V2', otpkey: 'first', ...alice });
      expectServiceError(
        await initCall({ type: 'pw', serial: 'V2', otpkey: 'second', validity_period_end: 'soon' }),
        905,
      );
      expect(await check({ ...alice, pass: 'first' })).toBe(true);
      expect((await get('V2')).info.validity_period_end).toBeUndefined();
    });
  });
});
