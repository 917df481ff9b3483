// YubikeyType (Yubico OTP in AES mode, reference 3.1): modhex, the CRC, the counter that refuses
// replays, the private uid and public id learned on first use, and enrollment. Checked against
// OTPs of a real Yubikey (privacyIDEA's test data) and against OTPs built here.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';
import {
  CRC_RESIDUAL,
  decodeYubicoOtp,
  modhexDecode,
  modhexEncode,
  YubikeyType,
  yubicoCrc,
} from '../../src/tokens/yubikey.ts';
import { buildOtp, type OtpFields } from '../helpers/yubico.ts';

const yubikey = new YubikeyType();

function state(
  key: Buffer,
  over: { otplen?: number; count?: number; info?: Record<string, string> } = {},
): TokenState {
  return {
    serial: 'UBAM00000001_1',
    type: 'yubikey',
    otplen: over.otplen ?? 44,
    count: over.count ?? 0,
    countWindow: 10,
    syncWindow: 1000,
    info: over.info ?? {},
    key: () => key,
  };
}

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'UBAM0001', params, settings: { get: () => undefined }, now: new Date() };
}

const KEY = Buffer.from('0123456789abcdef0123456789abcdef', 'hex');
const PUBLIC_ID = 'vvccccdfhlfg';
const UID = 'a1b2c3d4e5f6';

/** privacyIDEA's tests/test_lib_tokens_yubikey.py: a real Yubikey, otplen 48. */
const REAL_KEY = Buffer.from('9163508031b20d2fbb1868954e041729', 'hex');
const REAL_PREFIX = 'ecebeeejedecebeg';
const REAL_OTPS = [
  'fcniufvgvjturjgvinhebbbertjnihit',
  'tbkfkdhnfjbjnkcbtbcckklhvgkljifu',
  'ktvkekfgufndgbfvctgfrrkinergbtdj',
  'jbefledlhkvjjcibvrdfcfetnjdjitrn',
  'druecevifbfufgdegglttghghhvhjcbh',
  'nvfnejvhkcililuvhntcrrulrfcrukll',
  'kttkktdergcenthdredlvbkiulrkftuk',
  'hutbgchjucnjnhlcnfijckbniegbglrt',
  'vneienejjnedbfnjnnrfhhjudjgghckl',
].map((o) => REAL_PREFIX + o);

describe('modhex and the CRC', () => {
  it('encodes and decodes modhex', () => {
    expect(modhexEncode(Buffer.from('0123456789abcdef', 'hex'))).toBe('cbdefghijklnrtuv');
    expect(modhexDecode('cbdefghijklnrtuv')?.toString('hex')).toBe('0123456789abcdef');
    expect(modhexDecode('CBDE')?.toString('hex')).toBe('0123');
    expect(modhexDecode('cba')).toBeUndefined();
    expect(modhexDecode('cbax')).toBeUndefined();
    expect(modhexDecode('0123')).toBeUndefined();
  });

  it('leaves the residual 0xf0b8 over a block with its complemented CRC', () => {
    const data = randomBytes(14);
    const crc = Buffer.alloc(2);
    crc.writeUInt16LE(~yubicoCrc(data) & 0xffff);
    expect(yubicoCrc(Buffer.concat([data, crc]))).toBe(CRC_RESIDUAL);
  });
});

describe('YubikeyType.checkOtp with OTPs of a real Yubikey', () => {
  it('accepts the OTPs in order with growing counters and refuses each again', () => {
    let count = 0;
    let info: Record<string, string> = {};
    let last = -1;
    for (const otp of REAL_OTPS) {
      const s = state(REAL_KEY, { otplen: 48, count, info });
      const m = yubikey.checkOtp(s, otp);
      expect(m).not.toBeNull();
      expect(m!.counter).toBeGreaterThan(last);
      expect(m!.newCount).toBe(m!.counter + 1);
      last = m!.counter;
      count = m!.newCount;
      info = { ...info, ...m!.info };
      expect(yubikey.checkOtp(state(REAL_KEY, { otplen: 48, count, info }), otp)).toBeNull();
    }
    expect(info['yubikey.prefix']).toBe(REAL_PREFIX);
    expect(info['yubikey.tokenid']).toMatch(/^[0-9a-f]{12}$/);
    // An older OTP after a newer one is a replay.
    expect(yubikey.checkOtp(state(REAL_KEY, { otplen: 48, count, info }), REAL_OTPS[2]!)).toBeNull();
  });

  it('refuses them with another key, another stored uid or another public id', () => {
    const otp = REAL_OTPS[0]!;
    expect(yubikey.checkOtp(state(KEY, { otplen: 48 }), otp)).toBeNull();
    expect(
      yubikey.checkOtp(state(REAL_KEY, { otplen: 48, info: { 'yubikey.tokenid': '000000000000' } }), otp),
    ).toBeNull();
    expect(
      yubikey.checkOtp(state(REAL_KEY, { otplen: 48, info: { 'yubikey.prefix': 'cccccccccccccccc' } }), otp),
    ).toBeNull();
  });
});

describe('YubikeyType.checkOtp with built OTPs', () => {
  const otp = (f: Partial<OtpFields> = {}, publicId = PUBLIC_ID) =>
    buildOtp(KEY, publicId, { uid: UID, usage: 5, session: 3, ...f });

  it('accepts a valid OTP: counter = usage << 8 | session, count = counter + 1, learns uid and prefix', () => {
    const m = yubikey.checkOtp(state(KEY), otp());
    expect(m).toEqual({
      counter: (5 << 8) | 3,
      newCount: (5 << 8) | 4,
      info: { 'yubikey.tokenid': UID, 'yubikey.prefix': PUBLIC_ID },
    });
  });

  it('decodes the block fields', () => {
    expect(decodeYubicoOtp(KEY, otp({ usage: 0x1234, session: 0xab }).slice(-32))).toEqual({
      uid: UID,
      counter: 0x1234ab,
    });
  });

  it('learns nothing it knows already, and accepts upper-case modhex', () => {
    const info = { 'yubikey.tokenid': UID, 'yubikey.prefix': PUBLIC_ID };
    const m = yubikey.checkOtp(state(KEY, { info }), otp().toUpperCase());
    expect(m).toEqual({ counter: (5 << 8) | 3, newCount: (5 << 8) | 4 });
  });

  it('refuses replays and older counters, accepts newer ones', () => {
    const used = (5 << 8) | 4;
    expect(yubikey.checkOtp(state(KEY, { count: used }), otp())).toBeNull();
    expect(yubikey.checkOtp(state(KEY, { count: used }), otp({ usage: 4, session: 200 }))).toBeNull();
    expect(yubikey.checkOtp(state(KEY, { count: used }), otp({ session: 4 }))?.counter).toBe(used);
    expect(yubikey.checkOtp(state(KEY, { count: used }), otp({ usage: 6, session: 0 }))?.counter).toBe(
      6 << 8,
    );
  });

  it('refuses a broken CRC, a wrong uid, a wrong prefix, a wrong length and non-modhex', () => {
    expect(yubikey.checkOtp(state(KEY), otp({ badCrc: true }))).toBeNull();
    expect(yubikey.checkOtp(state(KEY, { info: { 'yubikey.tokenid': 'ffffffffffff' } }), otp())).toBeNull();
    expect(yubikey.checkOtp(state(KEY, { info: { 'yubikey.prefix': 'cccccccccccc' } }), otp())).toBeNull();
    expect(yubikey.checkOtp(state(KEY), otp().slice(1))).toBeNull();
    expect(yubikey.checkOtp(state(KEY, { otplen: 48 }), otp())).toBeNull();
    expect(yubikey.checkOtp(state(KEY), `${otp().slice(0, -1)}a`)).toBeNull();
    expect(yubikey.checkOtp(state(KEY), `${otp().slice(0, 11)}x${otp().slice(12)}`)).toBeNull();
  });

  it('works without a public id (otplen 32)', () => {
    const m = yubikey.checkOtp(state(KEY, { otplen: 32 }), otp({}, ''));
    expect(m?.info).toEqual({ 'yubikey.tokenid': UID });
  });
});

describe('YubikeyType.enroll', () => {
  it('is yubikey with the prefix UBAM, challenges only by policy', () => {
    expect(yubikey.type).toBe('yubikey');
    expect(yubikey.prefix).toBe('UBAM');
    expect(yubikey.challengeAlways).toBe(false);
    expect(yubikey.enrollAction).toBe('enrollYUBIKEY');
  });

  it('takes the AES key and the otplen, returning no secret', async () => {
    const e = await yubikey.enroll(request({ otpkey: KEY.toString('hex').toUpperCase(), otplen: '48' }));
    expect(e.key?.equals(KEY)).toBe(true);
    expect(e.otplen).toBe(48);
    expect(e.info).toEqual({});
    expect(e.detail).toEqual({});
  });

  it('defaults otplen to 44, or 32 + the length of a given public id, and stores id and uid', async () => {
    expect((await yubikey.enroll(request({ otpkey: KEY.toString('hex') }))).otplen).toBe(44);
    const e = await yubikey.enroll(
      request({ otpkey: KEY.toString('hex'), 'yubikey.prefix': REAL_PREFIX, 'yubikey.tokenid': UID }),
    );
    expect(e.otplen).toBe(48);
    expect(e.info).toEqual({ 'yubikey.prefix': REAL_PREFIX, 'yubikey.tokenid': UID });
  });

  it('generates a key with genkey and returns it', async () => {
    const e = await yubikey.enroll(request({ genkey: '1' }));
    expect(e.key).toHaveLength(16);
    const otpkey = e.detail.otpkey as { value: string; img: string };
    expect(otpkey.value).toBe(`seed://${e.key!.toString('hex')}`);
    expect(otpkey.img).toMatch(/^data:image\/png;base64,/);
  });

  it('refuses a key that is not 16 bytes of hex, a bad public id, uid or otplen', async () => {
    await expect(yubikey.enroll(request({ otpkey: 'abcd' }))).rejects.toThrow(ParameterError);
    await expect(yubikey.enroll(request({ otpkey: 'x'.repeat(32) }))).rejects.toThrow(ParameterError);
    const k = KEY.toString('hex');
    await expect(yubikey.enroll(request({ otpkey: k, 'yubikey.prefix': 'abc1' }))).rejects.toThrow(
      ParameterError,
    );
    await expect(yubikey.enroll(request({ otpkey: k, 'yubikey.tokenid': '12' }))).rejects.toThrow(
      ParameterError,
    );
    await expect(yubikey.enroll(request({ otpkey: k, otplen: '6' }))).rejects.toThrow(ParameterError);
    await expect(
      yubikey.enroll(request({ otpkey: k, otplen: '44', 'yubikey.prefix': REAL_PREFIX })),
    ).rejects.toThrow(ParameterError);
  });

  it('enrolls a token that accepts its OTPs', async () => {
    const e = await yubikey.enroll(request({ genkey: '1', 'yubikey.prefix': PUBLIC_ID }));
    const s = { ...state(e.key!, { otplen: e.otplen!, info: e.info }) };
    expect(
      yubikey.checkOtp(s, buildOtp(e.key!, PUBLIC_ID, { uid: UID, usage: 1, session: 0 })),
    ).not.toBeNull();
  });
});
