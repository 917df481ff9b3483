// The day password (reference 3.1, 4.5): TOTP with a long step, reusable within its step.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { DaypasswordType, parseDuration } from '../../src/tokens/daypassword.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const KEY = '3132333435363738393031323334353637383930';
const day = new DaypasswordType();

/** RFC 4226 computed here, independently of src/tokens. */
function hotp(hexKey: string, counter: number, digits = 6, hash = 'sha1'): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const h = createHmac(hash, Buffer.from(hexKey, 'hex')).update(msg).digest();
  const o = h[h.length - 1]! & 0xf;
  return String((h.readUInt32BE(o) & 0x7fffffff) % 10 ** digits).padStart(digits, '0');
}

function request(params: Record<string, string>, config: Record<string, string> = {}): EnrollRequest {
  return { serial: 'DYPW0001', params, settings: { get: (k) => config[k] }, now: new Date() };
}

function stateOf(info: Record<string, string>, count = 0, otplen = 6): TokenState {
  return {
    serial: 'DYPW0001',
    type: 'daypassword',
    otplen,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info,
    key: () => Buffer.from(KEY, 'hex'),
  };
}

describe('parseDuration', () => {
  it('reads seconds and durations with a unit', () => {
    expect(parseDuration('3600')).toBe(3600);
    expect(parseDuration('1d')).toBe(86400);
    expect(parseDuration('12h')).toBe(43200);
    expect(parseDuration('30m')).toBe(1800);
    expect(parseDuration('45s')).toBe(45);
    expect(parseDuration('1w')).toBe(604800);
    expect(parseDuration(' 2D ')).toBe(172800);
  });

  it('refuses anything else', () => {
    for (const bad of ['', '0', '0d', '-1', '1.5h', 'day', '1y', '1d2h'])
      expect(() => parseDuration(bad), bad).toThrow(ParameterError);
  });
});

describe('DaypasswordType', () => {
  it('is registered and challenges only by policy', () => {
    expect(findTokenType('daypassword')).toBeInstanceOf(DaypasswordType);
    expect(day.prefix).toBe('DYPW');
    expect(day.challengeAlways).toBe(false);
  });

  it('stores the time step in seconds (default 1d, daypassword.timeStep) and the hashlib', async () => {
    const e = await day.enroll(request({ otpkey: KEY, timeStep: '12h', hashlib: 'sha256' }));
    expect(e.key?.toString('hex')).toBe(KEY);
    expect(e.info).toEqual({ hashlib: 'sha256', timeStep: '43200' });
    expect(e.otplen).toBe(6);
    expect(e.detail.otpkey).toMatchObject({ value: `seed://${KEY}` });
    const url = (e.detail.googleurl as { value: string }).value;
    expect(url).toMatch(/^otpauth:\/\/daypassword\/DYPW0001\?secret=/);
    expect(url).toContain('algorithm=SHA256&period=43200&digits=6');
    expect((await day.enroll(request({ otpkey: KEY }))).info).toEqual({ hashlib: 'sha1', timeStep: '86400' });
    const cfg = { 'daypassword.timeStep': '3600', 'daypassword.hashlib': 'sha512' };
    expect((await day.enroll(request({ genkey: '1' }, cfg))).info).toEqual({
      hashlib: 'sha512',
      timeStep: '3600',
    });
  });

  it('refuses a malformed time step, hashlib or otplen', async () => {
    await expect(day.enroll(request({ otpkey: KEY, timeStep: 'soon' }))).rejects.toThrow(ParameterError);
    await expect(day.enroll(request({ otpkey: KEY, hashlib: 'md5' }))).rejects.toThrow(ParameterError);
    await expect(day.enroll(request({ otpkey: KEY, otplen: '7' }))).rejects.toThrow(ParameterError);
  });

  it('accepts the value of the current step only, again and again within it', () => {
    const now = new Date('2026-03-01T12:00:00Z');
    const step = Math.floor(now.getTime() / 1000 / 86400);
    const s = stateOf({ timeStep: '86400', hashlib: 'sha1' });
    const v = hotp(KEY, step);
    expect(day.checkOtp(s, v, now)).toEqual({ counter: step, newCount: step });
    // Used: the count is the step, and the value still works later that day.
    const used = stateOf({ timeStep: '86400', hashlib: 'sha1' }, step);
    expect(day.checkOtp(used, v, new Date('2026-03-01T23:59:59Z'))).toEqual({
      counter: step,
      newCount: step,
    });
    expect(day.checkOtp(used, v, new Date('2026-03-02T00:00:00Z'))).toBeNull();
    expect(day.checkOtp(s, hotp(KEY, step - 1), now)).toBeNull();
    expect(day.checkOtp(s, hotp(KEY, step + 1), now)).toBeNull();
    expect(day.checkOtp(s, v.slice(1), now)).toBeNull();
    expect(day.checkOtp(s, 'abcdef', now)).toBeNull();
  });

  it('honours the hashlib, otplen and a short step', () => {
    const now = new Date('2026-03-01T12:34:56Z');
    const step = Math.floor(now.getTime() / 1000 / 3600);
    const s = stateOf({ timeStep: '3600', hashlib: 'sha256' }, 0, 8);
    expect(day.checkOtp(s, hotp(KEY, step, 8, 'sha256'), now)?.counter).toBe(step);
    expect(day.checkOtp(s, hotp(KEY, step, 8, 'sha1'), now)).toBeNull();
  });
});
