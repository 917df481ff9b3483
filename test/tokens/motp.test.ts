// mOTP (reference 3.1, 4.5): md5 of the 10-second step, the secret and the mOTP PIN, with values
// computed here independently of src/tokens.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { MotpType, motpKey, motpValue } from '../../src/tokens/motp.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const SECRET = '0123456789abcdef';
/** Characters outside Base64, so the detail's QR images cannot contain it by chance. */
const PIN = 'my-pin!';
const NOW = new Date('2026-03-01T12:00:05Z');
const STEP = Math.floor(NOW.getTime() / 10000);
const motp = new MotpType();

function expected(step: number, secret = SECRET, pin = PIN): string {
  return createHash('md5').update(`${step}${secret}${pin}`).digest('hex').slice(0, 6);
}

function request(params: Record<string, string>, config: Record<string, string> = {}): EnrollRequest {
  return { serial: 'PIMO0001', params, settings: { get: (k) => config[k] }, now: NOW };
}

function stateOf(key: Buffer, count = 0, info: Record<string, string> = { timeWindow: '180' }): TokenState {
  return {
    serial: 'PIMO0001',
    type: 'motp',
    otplen: 6,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info,
    key: () => key,
  };
}

describe('MotpType', () => {
  it('is registered and challenges only by policy', () => {
    expect(findTokenType('motp')).toBeInstanceOf(MotpType);
    expect(motp.prefix).toBe('PIMO');
    expect(motp.challengeAlways).toBe(false);
    expect(motpValue(STEP, SECRET, PIN)).toBe(expected(STEP));
  });

  it('seals the secret and the mOTP PIN as `<secret>:<pin>` and answers the seed and motp URL', async () => {
    const e = await motp.enroll(request({ otpkey: SECRET.toUpperCase(), motppin: PIN }));
    expect(e.key?.toString('utf8')).toBe(`${SECRET}:${PIN}`);
    expect(e.key).toEqual(motpKey(SECRET, PIN));
    expect(e.otplen).toBe(6);
    expect(e.info).toEqual({ timeWindow: '180' });
    expect(e.detail.otpkey).toMatchObject({ description: 'OTP seed', value: `seed://${SECRET}` });
    expect(e.detail.motpurl).toMatchObject({ value: `motp://privacyidea:PIMO0001?secret=${SECRET}` });
    expect(JSON.stringify(e.detail)).not.toContain(PIN);
  });

  it('generates a 16-hex-character secret (genkey or no otpkey)', async () => {
    const cases: Record<string, string>[] = [{ genkey: '1', otpkey: SECRET }, {}];
    for (const params of cases) {
      const e = await motp.enroll(request({ ...params, motppin: 'pp', timeWindow: '60' }));
      expect(e.key?.toString('utf8')).toMatch(/^[0-9a-f]{16}:pp$/);
      expect(e.key?.toString('utf8')).not.toBe(`${SECRET}:pp`);
      expect(e.info).toEqual({ timeWindow: '60' });
    }
  });

  it('refuses a missing motppin, a malformed otpkey or timeWindow', async () => {
    await expect(motp.enroll(request({ otpkey: SECRET }))).rejects.toThrow("Missing parameter: 'motppin'");
    for (const otpkey of ['0123456789abcde', '0123456789abcdef00', '0123456789abcdeg'])
      await expect(motp.enroll(request({ otpkey, motppin: PIN }))).rejects.toThrow(ParameterError);
    await expect(motp.enroll(request({ motppin: PIN, timeWindow: 'x' }))).rejects.toThrow(ParameterError);
  });

  it('accepts the value of a step within ±timeWindow/10 steps and records the step', () => {
    const s = stateOf(motpKey(SECRET, PIN));
    expect(motp.checkOtp(s, expected(STEP), NOW)).toEqual({ counter: STEP, newCount: STEP });
    expect(motp.checkOtp(s, expected(STEP).toUpperCase(), NOW)?.counter).toBe(STEP);
    expect(motp.checkOtp(s, expected(STEP - 18), NOW)?.counter).toBe(STEP - 18);
    expect(motp.checkOtp(s, expected(STEP + 18), NOW)?.counter).toBe(STEP + 18);
    expect(motp.checkOtp(s, expected(STEP - 19), NOW)).toBeNull();
    expect(motp.checkOtp(s, expected(STEP + 19), NOW)).toBeNull();
    const narrow = stateOf(motpKey(SECRET, PIN), 0, { timeWindow: '30' });
    expect(motp.checkOtp(narrow, expected(STEP + 3), NOW)?.counter).toBe(STEP + 3);
    expect(motp.checkOtp(narrow, expected(STEP + 4), NOW)).toBeNull();
  });

  it('refuses a wrong PIN or secret, other lengths, and a step at or before the last one', () => {
    const s = stateOf(motpKey(SECRET, PIN));
    expect(motp.checkOtp(s, expected(STEP, SECRET, 'my-pin?'), NOW)).toBeNull();
    expect(motp.checkOtp(s, expected(STEP, 'fedcba9876543210'), NOW)).toBeNull();
    expect(motp.checkOtp(s, expected(STEP).slice(0, 5), NOW)).toBeNull();
    expect(motp.checkOtp(s, `${expected(STEP)}0`, NOW)).toBeNull();
    const used = stateOf(motpKey(SECRET, PIN), STEP);
    expect(motp.checkOtp(used, expected(STEP), NOW)).toBeNull();
    expect(motp.checkOtp(used, expected(STEP - 1), NOW)).toBeNull();
    expect(motp.checkOtp(used, expected(STEP + 1), NOW)?.counter).toBe(STEP + 1);
    expect(motp.checkOtp(stateOf(Buffer.from(SECRET)), expected(STEP, SECRET, ''), NOW)).toBeNull();
  });

  it('keeps a PIN containing the separator', () => {
    const s = stateOf(motpKey(SECRET, 'a:b'));
    expect(motp.checkOtp(s, expected(STEP, SECRET, 'a:b'), NOW)?.counter).toBe(STEP);
  });
});
