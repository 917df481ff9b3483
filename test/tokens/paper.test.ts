// PaperType (reference 3.1, 4.5): an HOTP token whose next values are printed at enrollment.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import { PaperType } from '../../src/tokens/paper.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';
import { RFC4226_HOTP, RFC4226_KEY_HEX } from '../helpers/otp.ts';

const paper = new PaperType();

const RFC_KEY_HEX = RFC4226_KEY_HEX;
const RFC_VALUES = RFC4226_HOTP;

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'PPR0001', params, settings: { get: () => undefined }, now: new Date() };
}

function state(key: Buffer, count = 0, otplen = 6, info: Record<string, string> = {}): TokenState {
  return {
    serial: 'PPR0001',
    type: 'paper',
    otplen,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info,
    key: () => key,
  };
}

describe('PaperType.enroll', () => {
  it('is paper with the prefix PPR, challenges only by policy', () => {
    expect(paper.type).toBe('paper');
    expect(paper.prefix).toBe('PPR');
    expect(paper.challengeAlways).toBe(false);
    expect(paper.enrollAction).toBe('enrollPAPER');
  });

  it('prints the values of counters 0 … 99 of the given seed', async () => {
    const e = await paper.enroll(request({ otpkey: RFC_KEY_HEX }));
    const otps = e.detail.otps as Record<string, string>;
    expect(Object.keys(otps)).toHaveLength(100);
    expect(RFC_VALUES.map((_, i) => otps[String(i)])).toEqual(RFC_VALUES);
    expect(otps['99']).toBe(hotpValue(Buffer.from(RFC_KEY_HEX, 'hex'), 99, 6));
    expect(e.otplen).toBe(6);
    expect(e.info).toEqual({ hashlib: 'sha1' });
    // The hotp enrollment detail, with its otpauth://hotp/ URI as privacyIDEA gives it.
    expect((e.detail.googleurl as { value: string }).value).toMatch(/^otpauth:\/\/hotp\/PPR0001\?/);
    expect((e.detail.otpkey as { value: string }).value).toBe(`seed://${RFC_KEY_HEX}`);
  });

  it('generates a seed, takes papertoken_count or papercount, otplen and hashlib', async () => {
    const e = await paper.enroll(request({ papercount: '5', otplen: '8', hashlib: 'sha256' }));
    expect(e.key).toHaveLength(32);
    const otps = e.detail.otps as Record<string, string>;
    expect(Object.keys(otps)).toEqual(['0', '1', '2', '3', '4']);
    expect(otps['3']).toBe(hotpValue(e.key!, 3, 8, 'sha256'));
    expect(
      Object.keys((await paper.enroll(request({ papertoken_count: '3' }))).detail.otps as object),
    ).toHaveLength(3);
  });

  it('refuses a bad count and the bad input hotp refuses', async () => {
    await expect(paper.enroll(request({ papercount: '0' }))).rejects.toThrow(ParameterError);
    await expect(paper.enroll(request({ papercount: 'many' }))).rejects.toThrow(ParameterError);
    await expect(paper.enroll(request({ otplen: '7' }))).rejects.toThrow(ParameterError);
  });
});

describe('PaperType.checkOtp', () => {
  const key = Buffer.from(RFC_KEY_HEX, 'hex');

  it('accepts the printed values as HOTP: in the window, each once', () => {
    expect(paper.checkOtp(state(key), RFC_VALUES[0]!)).toEqual({ counter: 0, newCount: 1 });
    expect(paper.checkOtp(state(key, 1), RFC_VALUES[0]!)).toBeNull();
    expect(paper.checkOtp(state(key, 1), RFC_VALUES[4]!)).toEqual({ counter: 4, newCount: 5 });
    expect(paper.checkOtp(state(key, 5), RFC_VALUES[4]!)).toBeNull();
  });

  it('refuses values outside the window and wrong values', () => {
    expect(paper.checkOtp(state(key), hotpValue(key, 10, 6))).toBeNull();
    expect(paper.checkOtp(state(key), '000000')).toBeNull();
    expect(paper.checkOtp(state(key), '75522')).toBeNull();
  });

  it('finds values in the sync window and knows the previous value', () => {
    expect(paper.findInSyncWindow(state(key), hotpValue(key, 500, 6))).toBe(500);
    expect(paper.previousOtp(state(key, 3))).toBe(RFC_VALUES[2]);
    expect(paper.previousOtp(state(key))).toBeUndefined();
  });

  it('works on an enrolled token with the printed values', async () => {
    const e = await paper.enroll(request({ papercount: '20' }));
    const otps = e.detail.otps as Record<string, string>;
    const s = state(e.key!, 0, e.otplen, e.info);
    expect(paper.checkOtp(s, otps['7']!)).toEqual({ counter: 7, newCount: 8 });
  });
});
