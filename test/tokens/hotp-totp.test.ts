// HotpType and TotpType (reference 3.3 and 4.5): OTP checks with their windows, replay protection
// and drift learning, and OathTokenType.enroll with its seed handling and enrollment detail.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { base32Encode } from '../../src/tokens/base32.ts';
import { HotpType } from '../../src/tokens/hotp.ts';
import { type Hashlib, hotpValue } from '../../src/tokens/oath.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';
import { TotpType } from '../../src/tokens/totp.ts';
import { RFC4226_HOTP } from '../helpers/otp.ts';

const hotp = new HotpType();
const totp = new TotpType();

/** RFC 4226 Appendix D. */
const RFC_KEY = Buffer.from('12345678901234567890', 'ascii');
const RFC_KEY_HEX = '3132333435363738393031323334353637383930';
const RFC_KEY_B32 = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
/** RFC 6238 Appendix B seeds for SHA256 and SHA512. */
const RFC_KEY_256 = Buffer.from('12345678901234567890123456789012', 'ascii');
const RFC_KEY_512 = Buffer.from('1234567890123456789012345678901234567890123456789012345678901234', 'ascii');

function state(over: Partial<Omit<TokenState, 'key'>> & { key?: Buffer } = {}): TokenState {
  const { key = RFC_KEY, ...rest } = over;
  return {
    serial: 'OATH0001',
    type: 'hotp',
    otplen: 6,
    count: 0,
    countWindow: 10,
    syncWindow: 1000,
    info: {},
    ...rest,
    key: () => key,
  };
}

function settings(values: Record<string, string> = {}) {
  return { get: (k: string) => values[k] };
}

function request(
  params: Record<string, string>,
  config: Record<string, string> = {},
  serial = 'OATH0001A3F2',
): EnrollRequest {
  return { serial, params, settings: settings(config), now: new Date('2025-01-31T10:00:00Z') };
}

interface QrDetail {
  description: string;
  value: string;
  img: string;
  value_b32?: string;
}

function detailOf(d: Record<string, unknown>): Record<'otpkey' | 'googleurl' | 'oathurl', QrDetail> {
  return d as Record<'otpkey' | 'googleurl' | 'oathurl', QrDetail>;
}

function base32check(key: Buffer): string {
  return base32Encode(Buffer.concat([key, createHash('sha1').update(key).digest().subarray(0, 4)]));
}

describe('HotpType.checkOtp (RFC 4226 key, reference 4.5)', () => {
  const rfc = RFC4226_HOTP;

  it('accepts counters count … count+countWindow−1 and stores c+1', () => {
    for (const [c, otp] of rfc.entries()) {
      expect(hotp.checkOtp(state(), otp), `counter ${c}`).toEqual({ counter: c, newCount: c + 1 });
    }
    expect(hotp.checkOtp(state({ count: 4 }), '338314')).toEqual({ counter: 4, newCount: 5 });
    expect(hotp.checkOtp(state({ count: 4, countWindow: 6 }), '520489')).toEqual({
      counter: 9,
      newCount: 10,
    });
  });

  it('refuses values outside the window: used ones and too far ahead', () => {
    expect(hotp.checkOtp(state({ count: 4 }), '969429')).toBeNull();
    expect(hotp.checkOtp(state({ count: 1 }), '755224')).toBeNull();
    expect(hotp.checkOtp(state({ countWindow: 9 }), '520489')).toBeNull();
    expect(hotp.checkOtp(state({ count: 4, countWindow: 5 }), '520489')).toBeNull();
    expect(hotp.checkOtp(state({ countWindow: 1 }), '287082')).toBeNull();
    expect(hotp.checkOtp(state({ countWindow: 1 }), '755224')).toEqual({ counter: 0, newCount: 1 });
    expect(hotp.checkOtp(state({ countWindow: 0 }), '755224')).toBeNull();
  });

  it('refuses a wrong length or non-digits at once', () => {
    expect(hotp.checkOtp(state(), '75522')).toBeNull();
    expect(hotp.checkOtp(state(), '7552240')).toBeNull();
    expect(hotp.checkOtp(state(), '')).toBeNull();
    expect(hotp.checkOtp(state(), '75522a')).toBeNull();
    expect(hotp.checkOtp(state(), ' 55224')).toBeNull();
    expect(hotp.checkOtp(state(), '+55224')).toBeNull();
    expect(hotp.checkOtp(state({ otplen: 8 }), '755224')).toBeNull();
  });

  it('uses otplen 8 and the hashlib of the tokeninfo', () => {
    // RFC 4226 truncated value of counter 0: 1284755224.
    expect(hotp.checkOtp(state({ otplen: 8 }), '84755224')).toEqual({ counter: 0, newCount: 1 });
    // RFC 6238 Appendix B, time 59 = counter 1: SHA256 46119246, SHA512 90693936.
    const s256 = state({ otplen: 8, key: RFC_KEY_256, info: { hashlib: 'sha256' } });
    expect(hotp.checkOtp(s256, '46119246')).toEqual({ counter: 1, newCount: 2 });
    expect(hotp.checkOtp(state({ otplen: 8, key: RFC_KEY_256 }), '46119246')).toBeNull();
    const s512 = state({ otplen: 8, key: RFC_KEY_512, info: { hashlib: 'sha512' } });
    expect(hotp.checkOtp(s512, '90693936')).toEqual({ counter: 1, newCount: 2 });
    // An unknown hashlib in the tokeninfo falls back to sha1.
    expect(hotp.checkOtp(state({ info: { hashlib: 'md5' } }), '287082')).toEqual({ counter: 1, newCount: 2 });
  });

  it('previousOtp is the value of count−1 (none before the first use)', () => {
    expect(hotp.previousOtp(state())).toBeUndefined();
    expect(hotp.previousOtp(state({ count: 1 }))).toBe('755224');
    expect(hotp.previousOtp(state({ count: 3 }))).toBe('359152');
    expect(hotp.previousOtp(state({ count: 10 }))).toBe('520489');
  });

  it('usedOtp recognises the values of the spent counters before count, none ahead', () => {
    expect(hotp.usedOtp(state(), '755224')).toBe(false);
    expect(hotp.usedOtp(state({ count: 3 }), '755224')).toBe(true);
    expect(hotp.usedOtp(state({ count: 3 }), '359152')).toBe(true);
    expect(hotp.usedOtp(state({ count: 3 }), '969429')).toBe(false);
    expect(hotp.usedOtp(state({ count: 3 }), '000000')).toBe(false);
    // Up to REPLAY_LOOKBACK (20) counters back.
    expect(hotp.usedOtp(state({ count: 20 }), '755224')).toBe(true);
    expect(hotp.usedOtp(state({ count: 21 }), '755224')).toBe(false);
  });

  it('findInSyncWindow searches count … count+syncWindow−1', () => {
    expect(hotp.findInSyncWindow(state(), '520489')).toBe(9);
    expect(hotp.findInSyncWindow(state({ count: 5 }), '520489')).toBe(9);
    expect(hotp.findInSyncWindow(state({ count: 10 }), '520489')).toBe(-1);
    expect(hotp.findInSyncWindow(state({ syncWindow: 9 }), '520489')).toBe(-1);
    const far = hotpValue(RFC_KEY, 700, 6);
    expect(hotp.findInSyncWindow(state(), far)).toBe(700);
    expect(hotp.checkOtp(state(), far)).toBeNull();
    expect(hotp.findInSyncWindow(state({ count: 200 }), far)).toBe(700);
    expect(hotp.findInSyncWindow(state({ count: 701 }), far)).toBe(-1);
    expect(hotp.findInSyncWindow(state(), '52048')).toBe(-1);
  });
});

describe('TotpType.checkOtp (fixed now, reference 4.5)', () => {
  // 1700000025 s: step 56666667 of 30 s (+15 s), step 28333333 of 60 s (+45 s).
  const now = new Date(1_700_000_025_000);
  const secs = 1_700_000_025;
  const cur = 56666667;
  const t = (over: Partial<Omit<TokenState, 'key'>> & { key?: Buffer } = {}) =>
    state({ type: 'totp', info: { timeStep: '30', timeWindow: '180', timeShift: '0' }, ...over });
  const at = (c: number, digits = 6, key = RFC_KEY, hashlib: Hashlib = 'sha1') =>
    hotpValue(key, c, digits, hashlib);

  it('accepts the RFC 6238 values at their times', () => {
    const cases: [number, Buffer, Hashlib, string][] = [
      [59, RFC_KEY, 'sha1', '94287082'],
      [59, RFC_KEY_256, 'sha256', '46119246'],
      [59, RFC_KEY_512, 'sha512', '90693936'],
      [1111111109, RFC_KEY, 'sha1', '07081804'],
      [1234567890, RFC_KEY_256, 'sha256', '91819424'],
      [2000000000, RFC_KEY_512, 'sha512', '38618901'],
      [20000000000, RFC_KEY, 'sha1', '65353130'],
    ];
    for (const [time, key, hashlib, otp] of cases) {
      const token = t({
        key,
        otplen: 8,
        info: { timeStep: '30', timeWindow: '180', timeShift: '0', hashlib },
      });
      const step = Math.floor(time / 30);
      expect(totp.checkOtp(token, otp, new Date(time * 1000)), `${hashlib} at ${time}`).toEqual({
        counter: step,
        newCount: step,
        info: { timeShift: String(Math.round(step * 30 - time)) },
      });
    }
  });

  it('tries steps now−w … now+w−1 with w = timeWindow/timeStep', () => {
    for (let c = cur - 6; c <= cur + 5; c++) {
      expect(totp.checkOtp(t(), at(c), now)?.counter, `step ${c - cur}`).toBe(c);
    }
    expect(totp.checkOtp(t(), at(cur - 7), now)).toBeNull();
    expect(totp.checkOtp(t(), at(cur + 6), now)).toBeNull();
    const narrow = t({ info: { timeStep: '30', timeWindow: '60' } });
    expect(totp.checkOtp(narrow, at(cur - 2), now)?.counter).toBe(cur - 2);
    expect(totp.checkOtp(narrow, at(cur + 1), now)?.counter).toBe(cur + 1);
    expect(totp.checkOtp(narrow, at(cur - 3), now)).toBeNull();
    expect(totp.checkOtp(narrow, at(cur + 2), now)).toBeNull();
  });

  it('defaults to 30 s steps and a 180 s window without tokeninfo', () => {
    const bare = t({ info: {} });
    expect(totp.checkOtp(bare, at(cur - 6), now)?.counter).toBe(cur - 6);
    expect(totp.checkOtp(bare, at(cur + 5), now)?.counter).toBe(cur + 5);
    expect(totp.checkOtp(bare, at(cur + 6), now)).toBeNull();
  });

  it('stores the matched step and learns the drift as timeShift', () => {
    expect(totp.checkOtp(t(), at(cur), now)).toEqual({
      counter: cur,
      newCount: cur,
      info: { timeShift: '-15' },
    });
    expect(totp.checkOtp(t(), at(cur + 2), now)).toEqual({
      counter: cur + 2,
      newCount: cur + 2,
      info: { timeShift: String((cur + 2) * 30 - secs) },
    });
    expect(totp.checkOtp(t(), at(cur + 2), now)?.info).toEqual({ timeShift: '45' });
    expect(totp.checkOtp(t(), at(cur - 3), now)?.info).toEqual({ timeShift: '-105' });
  });

  it('applies a stored timeShift to the current step', () => {
    const ahead = t({ info: { timeStep: '30', timeWindow: '180', timeShift: '300' } });
    expect(totp.checkOtp(ahead, at(cur + 10), now)?.counter).toBe(cur + 10);
    expect(totp.checkOtp(ahead, at(cur + 15), now)?.counter).toBe(cur + 15);
    expect(totp.checkOtp(ahead, at(cur + 4), now)?.counter).toBe(cur + 4);
    expect(totp.checkOtp(ahead, at(cur + 3), now)).toBeNull();
    expect(totp.checkOtp(ahead, at(cur + 16), now)).toBeNull();
    const behind = t({ info: { timeStep: '30', timeWindow: '180', timeShift: '-300.5' } });
    // floor((secs − 300.5) / 30) = cur − 10 (15 − 300.5 = −285.5 s): steps cur−16 … cur−5.
    expect(totp.checkOtp(behind, at(cur - 16), now)?.counter).toBe(cur - 16);
    expect(totp.checkOtp(behind, at(cur - 5), now)?.counter).toBe(cur - 5);
    expect(totp.checkOtp(behind, at(cur - 17), now)).toBeNull();
    expect(totp.checkOtp(behind, at(cur - 4), now)).toBeNull();
  });

  it('refuses a step at or before the last accepted one (replay)', () => {
    expect(totp.checkOtp(t({ count: cur }), at(cur), now)).toBeNull();
    expect(totp.checkOtp(t({ count: cur + 1 }), at(cur), now)).toBeNull();
    expect(totp.checkOtp(t({ count: cur }), at(cur - 1), now)).toBeNull();
    expect(totp.checkOtp(t({ count: cur - 1 }), at(cur), now)?.counter).toBe(cur);
    expect(totp.checkOtp(t({ count: cur }), at(cur + 1), now)?.counter).toBe(cur + 1);
    // count 0 means "never used": no replay check.
    expect(totp.checkOtp(t({ count: 0 }), at(cur - 6), now)?.counter).toBe(cur - 6);
  });

  it('works with 60 s steps (w = 180/60 = 3)', () => {
    const cur60 = 28333333;
    const t60 = t({ info: { timeStep: '60', timeWindow: '180', timeShift: '0' } });
    for (let c = cur60 - 3; c <= cur60 + 2; c++) {
      expect(totp.checkOtp(t60, at(c), now)?.counter, `step ${c - cur60}`).toBe(c);
    }
    expect(totp.checkOtp(t60, at(cur60 - 4), now)).toBeNull();
    expect(totp.checkOtp(t60, at(cur60 + 3), now)).toBeNull();
    expect(totp.checkOtp(t60, at(cur60 + 1), now)).toEqual({
      counter: cur60 + 1,
      newCount: cur60 + 1,
      info: { timeShift: String((cur60 + 1) * 60 - secs) },
    });
    expect(totp.checkOtp(t60, at(cur60 + 1), now)?.info).toEqual({ timeShift: '15' });
  });

  it('refuses a wrong length or non-digits, and uses otplen 8 and the hashlib', () => {
    expect(totp.checkOtp(t(), at(cur).slice(1), now)).toBeNull();
    expect(totp.checkOtp(t(), `${at(cur)}0`, now)).toBeNull();
    expect(totp.checkOtp(t(), 'abcdef', now)).toBeNull();
    expect(totp.checkOtp(t(), '', now)).toBeNull();
    const t8 = t({
      otplen: 8,
      key: RFC_KEY_512,
      info: { timeStep: '30', timeWindow: '180', hashlib: 'sha512' },
    });
    expect(totp.checkOtp(t8, at(cur, 8, RFC_KEY_512, 'sha512'), now)?.counter).toBe(cur);
    expect(totp.checkOtp(t8, at(cur, 8, RFC_KEY_512, 'sha1'), now)).toBeNull();
  });

  it('previousOtp is the value of the last accepted step', () => {
    expect(totp.previousOtp(t())).toBeUndefined();
    expect(totp.previousOtp(t({ count: cur }))).toBe(at(cur));
    expect(totp.previousOtp(t({ count: 1, otplen: 8 }))).toBe('94287082');
  });

  it('usedOtp recognises the values of the last accepted step and the 19 before it', () => {
    expect(totp.usedOtp(t(), at(cur))).toBe(false);
    expect(totp.usedOtp(t({ count: cur }), at(cur))).toBe(true);
    expect(totp.usedOtp(t({ count: cur }), at(cur - 19))).toBe(true);
    expect(totp.usedOtp(t({ count: cur }), at(cur - 20))).toBe(false);
    expect(totp.usedOtp(t({ count: cur }), at(cur + 1))).toBe(false);
  });
});

describe('OathTokenType.enroll: seed (reference 3.3)', () => {
  it('takes otpkey as hex (either case)', async () => {
    const e = await hotp.enroll(request({ otpkey: RFC_KEY_HEX }));
    expect(e.key?.equals(RFC_KEY)).toBe(true);
    expect(e.otplen).toBe(6);
    expect(e.info).toEqual({ hashlib: 'sha1' });
    const upper = await hotp.enroll(request({ otpkey: RFC_KEY_HEX.toUpperCase() }));
    expect(upper.key?.equals(RFC_KEY)).toBe(true);
    const short = await hotp.enroll(request({ otpkey: '3132333435' }));
    expect(short.key?.toString('hex')).toBe('3132333435');
  });

  it('refuses an otpkey that is not hex', async () => {
    for (const otpkey of ['313', 'xyz123', RFC_KEY_B32, '31 32', '0x3132']) {
      await expect(hotp.enroll(request({ otpkey })), otpkey).rejects.toBeInstanceOf(ParameterError);
    }
  });

  it('generates a key sized by hashlib (20/32/64), also without genkey', async () => {
    expect((await hotp.enroll(request({ genkey: '1' }))).key?.length).toBe(20);
    expect((await hotp.enroll(request({}))).key?.length).toBe(20);
    expect((await hotp.enroll(request({ genkey: '1', hashlib: 'sha256' }))).key?.length).toBe(32);
    expect((await totp.enroll(request({ genkey: '1', hashlib: 'sha512' }))).key?.length).toBe(64);
    const a = await hotp.enroll(request({ genkey: '1' }));
    const b = await hotp.enroll(request({ genkey: '1' }));
    expect(a.key?.equals(b.key as Buffer)).toBe(false);
  });

  it('genkey wins over a given otpkey', async () => {
    for (const genkey of ['1', 'true', 'True']) {
      const e = await hotp.enroll(request({ genkey, otpkey: RFC_KEY_HEX }));
      expect(e.key?.length).toBe(20);
      expect(e.key?.equals(RFC_KEY), genkey).toBe(false);
    }
    const e = await hotp.enroll(request({ genkey: '0', otpkey: RFC_KEY_HEX }));
    expect(e.key?.equals(RFC_KEY)).toBe(true);
  });

  it('honours keysize within 10–128 bytes', async () => {
    expect((await hotp.enroll(request({ genkey: '1', keysize: '16' }))).key?.length).toBe(16);
    expect((await hotp.enroll(request({ genkey: '1', keysize: '10' }))).key?.length).toBe(10);
    expect((await hotp.enroll(request({ genkey: '1', keysize: '128' }))).key?.length).toBe(128);
    for (const keysize of ['9', '129', '0', '-20', '16.5', 'abc']) {
      await expect(hotp.enroll(request({ genkey: '1', keysize })), keysize).rejects.toThrow(
        'keysize must be 10 to 128 bytes',
      );
    }
  });

  it('accepts otplen 6 and 8 only, defaulting to DefaultOtpLen', async () => {
    expect((await hotp.enroll(request({ genkey: '1', otplen: '8' }))).otplen).toBe(8);
    expect((await hotp.enroll(request({ genkey: '1', otplen: '6' }))).otplen).toBe(6);
    for (const otplen of ['7', '4', '10', 'six', '6.0x']) {
      await expect(hotp.enroll(request({ genkey: '1', otplen })), otplen).rejects.toBeInstanceOf(
        ParameterError,
      );
    }
    expect((await hotp.enroll(request({ genkey: '1' }, { DefaultOtpLen: '8' }))).otplen).toBe(8);
    expect((await totp.enroll(request({ genkey: '1' }, { DefaultOtpLen: '8' }))).otplen).toBe(8);
    expect((await hotp.enroll(request({ genkey: '1', otplen: '6' }, { DefaultOtpLen: '8' }))).otplen).toBe(6);
    await expect(hotp.enroll(request({ genkey: '1' }, { DefaultOtpLen: '7' }))).rejects.toBeInstanceOf(
      ParameterError,
    );
  });

  it('validates hashlib (case-insensitive) and takes the <type>.hashlib default', async () => {
    expect((await hotp.enroll(request({ genkey: '1', hashlib: 'SHA256' }))).info.hashlib).toBe('sha256');
    expect((await hotp.enroll(request({ genkey: '1', hashlib: 'sha512' }))).info.hashlib).toBe('sha512');
    for (const hashlib of ['md5', 'sha384', 'sha-1']) {
      await expect(hotp.enroll(request({ genkey: '1', hashlib })), hashlib).rejects.toThrow(
        `Unsupported hashlib '${hashlib}'`,
      );
    }
    const h = await hotp.enroll(
      request({ genkey: '1' }, { 'hotp.hashlib': 'sha256', 'totp.hashlib': 'sha512' }),
    );
    expect(h.info.hashlib).toBe('sha256');
    expect(h.key?.length).toBe(32);
    const t = await totp.enroll(
      request({ genkey: '1' }, { 'hotp.hashlib': 'sha256', 'totp.hashlib': 'sha512' }),
    );
    expect(t.info.hashlib).toBe('sha512');
    expect(t.key?.length).toBe(64);
    expect(
      (await totp.enroll(request({ genkey: '1', hashlib: 'sha1' }, { 'totp.hashlib': 'sha512' }))).info,
    ).toEqual(expect.objectContaining({ hashlib: 'sha1' }));
  });

  it('takes otpkeyformat=base32check: Base32(key ‖ SHA-1(key)[0:4])', async () => {
    const text = base32check(RFC_KEY);
    const e = await hotp.enroll(request({ otpkey: text, otpkeyformat: 'base32check' }));
    expect(e.key?.equals(RFC_KEY)).toBe(true);
    const lower = await hotp.enroll(request({ otpkey: text.toLowerCase(), otpkeyformat: 'BASE32CHECK' }));
    expect(lower.key?.equals(RFC_KEY)).toBe(true);
    const other = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const o = await totp.enroll(request({ otpkey: base32check(other), otpkeyformat: 'base32check' }));
    expect(o.key?.equals(other)).toBe(true);
  });

  it('refuses base32check with a bad checksum, too short or not Base32', async () => {
    const raw = Buffer.concat([RFC_KEY, createHash('sha1').update(RFC_KEY).digest().subarray(0, 4)]);
    raw[raw.length - 1] = (raw[raw.length - 1] as number) ^ 0x01;
    await expect(
      hotp.enroll(request({ otpkey: base32Encode(raw), otpkeyformat: 'base32check' })),
    ).rejects.toThrow('Malformed base32check data: Incorrect checksum');
    await expect(hotp.enroll(request({ otpkey: RFC_KEY_B32, otpkeyformat: 'base32check' }))).rejects.toThrow(
      'Incorrect checksum',
    );
    await expect(hotp.enroll(request({ otpkey: 'MZXW6YQ', otpkeyformat: 'base32check' }))).rejects.toThrow(
      'too short',
    );
    await expect(
      hotp.enroll(request({ otpkey: 'GEZD1NBV', otpkeyformat: 'base32check' })),
    ).rejects.toBeInstanceOf(ParameterError);
    // A hex otpkey is not Base32 (0, 1, 8, 9) without the format.
    await expect(hotp.enroll(request({ otpkey: base32check(RFC_KEY) }))).rejects.toBeInstanceOf(
      ParameterError,
    );
  });

  it('enrolls a seed that then checks', async () => {
    const e = await hotp.enroll(request({ otpkey: RFC_KEY_HEX }));
    const s = state({ key: e.key as Buffer, otplen: e.otplen as number, info: e.info });
    expect(hotp.checkOtp(s, '755224')).toEqual({ counter: 0, newCount: 1 });
    const t = await totp.enroll(request({ genkey: '1', hashlib: 'sha256', otplen: '8', timeStep: '60' }));
    const ts = state({ type: 'totp', key: t.key as Buffer, otplen: 8, info: t.info });
    const now = new Date(1_700_000_025_000);
    const otp = hotpValue(t.key as Buffer, Math.floor(1_700_000_025 / 60), 8, 'sha256');
    expect(totp.checkOtp(ts, otp, now)?.counter).toBe(28333333);
  });
});

describe('TotpType.enroll: tokeninfo', () => {
  it('stores timeStep 30, timeWindow 180, timeShift 0 by default', async () => {
    const e = await totp.enroll(request({ genkey: '1' }, {}, 'TOTP0001'));
    expect(e.info).toEqual({ hashlib: 'sha1', timeStep: '30', timeWindow: '180', timeShift: '0' });
  });

  it('takes the parameters, then the totp.* settings', async () => {
    const p = await totp.enroll(
      request({ genkey: '1', timeStep: '60', timeWindow: '300', timeShift: '-12' }),
    );
    expect(p.info).toEqual({ hashlib: 'sha1', timeStep: '60', timeWindow: '300', timeShift: '-12' });
    const s = await totp.enroll(
      request({ genkey: '1' }, { 'totp.timeStep': '60', 'totp.timeWindow': '240' }),
    );
    expect(s.info).toEqual({ hashlib: 'sha1', timeStep: '60', timeWindow: '240', timeShift: '0' });
    const both = await totp.enroll(request({ genkey: '1', timeStep: '30' }, { 'totp.timeStep': '60' }));
    expect(both.info.timeStep).toBe('30');
  });

  it('refuses a timeStep other than 30 or 60', async () => {
    for (const timeStep of ['45', '15', '0', '30s', 'abc']) {
      await expect(totp.enroll(request({ genkey: '1', timeStep })), timeStep).rejects.toThrow(
        'timeStep must be 30 or 60',
      );
    }
    await expect(totp.enroll(request({ genkey: '1' }, { 'totp.timeStep': '15' }))).rejects.toBeInstanceOf(
      ParameterError,
    );
  });

  it('hotp stores only hashlib', async () => {
    const e = await hotp.enroll(request({ genkey: '1', timeStep: '60' }, { 'totp.timeStep': '60' }));
    expect(e.info).toEqual({ hashlib: 'sha1' });
  });
});

describe('OathTokenType.enroll: detail (reference 3.3)', () => {
  const PNG = 'data:image/png;base64,';

  function expectPng(img: string) {
    expect(img.startsWith(PNG)).toBe(true);
    const bytes = Buffer.from(img.slice(PNG.length), 'base64');
    expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  }

  it('hotp: otpkey, googleurl and oathurl with QR codes', async () => {
    const e = await hotp.enroll(request({ otpkey: RFC_KEY_HEX }));
    const d = detailOf(e.detail);
    expect(Object.keys(d).sort()).toEqual(['googleurl', 'oathurl', 'otpkey']);
    expect(d.otpkey.description).toBe('OTP seed');
    expect(d.otpkey.value).toBe(`seed://${RFC_KEY_HEX}`);
    expect(d.otpkey.value_b32).toBe(RFC_KEY_B32);
    expect(d.googleurl.description).toBe('URL for google Authenticator');
    expect(d.googleurl.value).toBe(
      `otpauth://hotp/OATH0001A3F2?secret=${RFC_KEY_B32}&counter=1&digits=6&creator=privacyidea&issuer=privacyIDEA&serial=OATH0001A3F2`,
    );
    expect(d.oathurl.description).toBe('URL for OATH token');
    expect(d.oathurl.value).toBe(`oathtoken:///addToken?name=OATH0001A3F2&lockdown=true&key=${RFC_KEY_HEX}`);
    for (const k of ['otpkey', 'googleurl', 'oathurl'] as const) expectPng(d[k].img);
  });

  it('value_b32 and the secret carry no padding', async () => {
    const key = Buffer.from('00112233445566778899aabbccddeeff', 'hex');
    const e = await hotp.enroll(request({ otpkey: key.toString('hex') }));
    const d = detailOf(e.detail);
    expect(d.otpkey.value_b32).toBe(base32Encode(key));
    expect(d.otpkey.value_b32).toHaveLength(26);
    expect(d.otpkey.value_b32).not.toContain('=');
    expect(d.googleurl.value).toContain(`?secret=${base32Encode(key)}&counter=1&`);
    expect(d.googleurl.value).not.toContain('%3D');
  });

  it('a generated key is returned too', async () => {
    const e = await hotp.enroll(request({ genkey: '1' }));
    const d = detailOf(e.detail);
    const hex = (e.key as Buffer).toString('hex');
    expect(d.otpkey.value).toBe(`seed://${hex}`);
    expect(d.otpkey.value_b32).toBe(base32Encode(e.key as Buffer));
    expect(d.oathurl.value.endsWith(`&key=${hex}`)).toBe(true);
  });

  it('hotp: algorithm only for non-sha1, after counter; digits is the otplen', async () => {
    const e = await hotp.enroll(request({ otpkey: RFC_KEY_HEX, hashlib: 'sha256', otplen: '8' }));
    expect(detailOf(e.detail).googleurl.value).toBe(
      `otpauth://hotp/OATH0001A3F2?secret=${RFC_KEY_B32}&counter=1&algorithm=SHA256&digits=8&creator=privacyidea&issuer=privacyIDEA&serial=OATH0001A3F2`,
    );
    const s512 = await hotp.enroll(request({ otpkey: RFC_KEY_HEX, hashlib: 'sha512' }));
    expect(detailOf(s512.detail).googleurl.value).toContain('&counter=1&algorithm=SHA512&digits=6&');
    const s1 = await hotp.enroll(request({ otpkey: RFC_KEY_HEX, hashlib: 'sha1' }));
    expect(detailOf(s1.detail).googleurl.value).not.toContain('algorithm');
  });

  it('totp: period and no counter', async () => {
    const e = await totp.enroll(request({ otpkey: RFC_KEY_HEX }, {}, 'TOTP0001'));
    const d = detailOf(e.detail);
    expect(d.googleurl.value).toBe(
      `otpauth://totp/TOTP0001?secret=${RFC_KEY_B32}&period=30&digits=6&creator=privacyidea&issuer=privacyIDEA&serial=TOTP0001`,
    );
    expect(d.oathurl.value).toBe(`oathtoken:///addToken?name=TOTP0001&lockdown=true&key=${RFC_KEY_HEX}`);
    expect(d.otpkey.value).toBe(`seed://${RFC_KEY_HEX}`);
    const s = await totp.enroll(
      request({ otpkey: RFC_KEY_HEX, hashlib: 'sha512', otplen: '8', timeStep: '60' }, {}, 'TOTP0001'),
    );
    expect(detailOf(s.detail).googleurl.value).toBe(
      `otpauth://totp/TOTP0001?secret=${RFC_KEY_B32}&algorithm=SHA512&period=60&digits=8&creator=privacyidea&issuer=privacyIDEA&serial=TOTP0001`,
    );
    const fromSettings = await totp.enroll(
      request({ otpkey: RFC_KEY_HEX }, { 'totp.timeStep': '60' }, 'TOTP0001'),
    );
    expect(detailOf(fromSettings.detail).googleurl.value).toContain('&period=60&');
  });

  it('quotes the serial in the label and the query', async () => {
    const e = await hotp.enroll(request({ otpkey: RFC_KEY_HEX }, {}, 'my token&x'));
    const d = detailOf(e.detail);
    expect(d.googleurl.value.startsWith('otpauth://hotp/my%20token%26x?secret=')).toBe(true);
    expect(d.googleurl.value.endsWith('&serial=my%20token%26x')).toBe(true);
    expect(d.oathurl.value).toBe(
      `oathtoken:///addToken?name=my%20token%26x&lockdown=true&key=${RFC_KEY_HEX}`,
    );
  });
});
