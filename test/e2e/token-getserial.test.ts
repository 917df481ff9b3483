// GET /token/getserial/<otp> over HTTP with TOTP tokens (reference 3.5): a TOTP token is found by a
// value within ±window time steps of the server clock, newer than its last accepted step, and the
// value is consumed (the last accepted step moves to it, the drift is learned), so it no longer
// authenticates. The HOTP cases are in token-policies.test.ts. Values come from the tests' own
// HOTP (test/helpers/otp.ts): a TOTP value is the HOTP value of the time step.
import { afterEach, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import type { TestServer } from '../helpers/server.ts';
import { tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const KEY1 = '3132333435363738393031323334353637383930';
const KEY2 = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const KEY3 = '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233a';
const START = new Date('2026-03-01T12:00:00Z');

describe.each(testDialects())('/token/getserial with TOTP tokens on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let now = START;
  /** The time step of the server clock (30 seconds). */
  const step = () => Math.floor(now.getTime() / 30_000);

  useTokenServer(dialect, { clock: () => now, reset: ['tokens over api'] }, (t) => ({ s, admin } = t));
  afterEach(() => {
    now = START;
  });

  const init = async (params: Record<string, string>) =>
    ok(await s.call('POST', '/token/init', params, admin));
  const getserial = async (value: string, params: Record<string, string> = {}) =>
    ok(await s.call('GET', `/token/getserial/${value}`, params, admin));
  const count = async (serial: string) => Number((await tokenRow(s, serial)).count);
  const info = async (serial: string) =>
    ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0].info as Record<string, string>;
  const check = async (serial: string, pass: string) =>
    (await s.call('POST', '/validate/check', { serial, pass })).json.result.value as boolean;

  it('finds a TOTP token by the value of now and consumes it: the value no longer authenticates', async () => {
    await init({ serial: 'T1', type: 'totp', otpkey: KEY1 });
    await init({ serial: 'T2', type: 'totp', otpkey: KEY2 });
    await init({ serial: 'H1', type: 'hotp', otpkey: KEY3 });
    const value = hotp(KEY1, step());
    expect(await getserial(value)).toEqual({ serial: 'T1', count: 3 });
    // The matched step is the last accepted one; the clock is on a step boundary, so no drift.
    expect(await count('T1')).toBe(step());
    expect((await info('T1')).timeShift).toBe('0');
    // Consumed: neither found again nor accepted by /validate/check, also a little later.
    expect(await getserial(value)).toEqual({ serial: null, count: 3 });
    now = new Date(START.getTime() + 10_000);
    expect(await check('T1', value)).toBe(false);
    // The next step's value authenticates.
    now = new Date(START.getTime() + 30_000);
    expect(await check('T1', hotp(KEY1, step()))).toBe(true);
    // The other tokens were not touched.
    expect(await count('T2')).toBe(0);
    expect(await count('H1')).toBe(0);
    // HOTP tokens are still found by their counter.
    expect(await getserial(hotp(KEY3, 0))).toEqual({ serial: 'H1', count: 3 });
    expect(await count('H1')).toBe(1);
  });

  it('window: ±window steps around now + the learned drift (default 10); older than the last accepted step is refused', async () => {
    await init({ serial: 'T2', type: 'totp', otpkey: KEY2 });
    await init({ serial: 'T3', type: 'totp', otpkey: KEY3 });
    const at = (offset: number, key = KEY2) => hotp(key, step() + offset);
    expect((await getserial(at(10))).serial).toBeNull();
    expect((await getserial(at(-11))).serial).toBeNull();
    expect((await getserial(at(12), { window: '12' })).serial).toBeNull();
    expect(await count('T2')).toBe(0);
    // A wider window reaches further.
    expect(await getserial(at(12, KEY3), { window: '13' })).toEqual({ serial: 'T3', count: 2 });
    expect(await count('T3')).toBe(step() + 12);
    // A value 5 steps (150 s) behind the server clock: found, and the drift is learned.
    expect(await getserial(at(-5))).toEqual({ serial: 'T2', count: 2 });
    expect(await count('T2')).toBe(step() - 5);
    expect((await info('T2')).timeShift).toBe('-150');
    // Steps at or before the last accepted one are refused, whatever the window.
    expect((await getserial(at(-7), { window: '20' })).serial).toBeNull();
    expect((await getserial(at(-5), { window: '20' })).serial).toBeNull();
    // The window is now centred 5 steps back: +5 is 10 steps from its centre, +4 is 9.
    expect((await getserial(at(5))).serial).toBeNull();
    expect(await getserial(at(4))).toEqual({ serial: 'T2', count: 2 });
    expect(await count('T2')).toBe(step() + 4);
  });

  it('filters by type; two TOTP tokens with the same value → ERR1200, nothing consumed', async () => {
    await init({ serial: 'TA', type: 'totp', otpkey: KEY1 });
    await init({ serial: 'HA', type: 'hotp', otpkey: KEY1 });
    // The HOTP value of counter 0 is no TOTP value of now: only the HOTP token matches.
    expect(await getserial(hotp(KEY1, 0), { type: 'totp' })).toEqual({ serial: null, count: 1 });
    expect(await getserial(hotp(KEY1, step()), { type: 'hotp' })).toEqual({ serial: null, count: 1 });
    expect(await getserial(hotp(KEY1, step()), { type: 'totp' })).toEqual({ serial: 'TA', count: 1 });
    await init({ serial: 'D1', type: 'totp', otpkey: KEY2 });
    await init({ serial: 'D2', type: 'totp', otpkey: KEY2 });
    expectServiceError(
      await s.call('GET', `/token/getserial/${hotp(KEY2, step())}`, {}, admin),
      1200,
      'multiple tokens are matching this OTP value!',
    );
    expect(await count('D1')).toBe(0);
    expect(await count('D2')).toBe(0);
    // Narrowed to one serial, the value is found.
    expect(await getserial(hotp(KEY2, step()), { serial: 'D2' })).toEqual({ serial: 'D2', count: 1 });
  });
});
