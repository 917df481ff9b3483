// TanType (reference 3.1, 4.5): TANs given or generated at enrollment, each usable once in any
// order; a check returns the TANs left as the new secret.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { encodeTans, TanType, tansOf } from '../../src/tokens/tan.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const tan = new TanType();

function request(params: Record<string, string>, config: Record<string, string> = {}): EnrollRequest {
  return { serial: 'PITN0001', params, settings: { get: (k) => config[k] }, now: new Date() };
}

function state(key: Buffer, otplen = 6, count = 0): TokenState {
  return {
    serial: 'PITN0001',
    type: 'tan',
    otplen,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info: {},
    key: () => key,
  };
}

describe('TanType.enroll', () => {
  it('is tan with the prefix PITN, challenges only by policy', () => {
    expect(tan.type).toBe('tan');
    expect(tan.prefix).toBe('PITN');
    expect(tan.challengeAlways).toBe(false);
    expect(tan.hasOtp).toBe(true);
  });

  it('takes the TANs given, separated by spaces or commas; the otplen is their length', async () => {
    const e = await tan.enroll(request({ tans: '1111 2222, 3333,4444\n5555' }));
    expect(e.otplen).toBe(4);
    expect(e.detail.tans).toEqual(['1111', '2222', '3333', '4444', '5555']);
    expect(e.detail.otps).toEqual({ '0': '1111', '1': '2222', '2': '3333', '3': '4444', '4': '5555' });
    expect(tansOf(state(e.key!, 4))).toEqual(['1111', '2222', '3333', '4444', '5555']);
  });

  it('generates 100 distinct 6-digit TANs by default', async () => {
    const e = await tan.enroll(request({}));
    const tans = e.detail.tans as string[];
    expect(tans).toHaveLength(100);
    expect(new Set(tans).size).toBe(100);
    for (const t of tans) expect(t).toMatch(/^\d{6}$/);
    expect(e.otplen).toBe(6);
    expect(tansOf(state(e.key!))).toEqual(tans);
  });

  it('generates tantoken_count or tancount TANs of otplen digits', async () => {
    const a = await tan.enroll(request({ tantoken_count: '5', otplen: '8' }));
    expect(a.detail.tans).toHaveLength(5);
    expect(a.otplen).toBe(8);
    for (const t of a.detail.tans as string[]) expect(t).toMatch(/^\d{8}$/);
    expect((await tan.enroll(request({ tancount: '7' }))).detail.tans).toHaveLength(7);
    expect((await tan.enroll(request({}, { DefaultOtpLen: '8' }))).otplen).toBe(8);
  });

  it('refuses bad input', async () => {
    const cases: Record<string, string>[] = [
      { tans: ' , ' },
      { tans: '1111 222' },
      { tans: '1111 1111' },
      { tancount: '0' },
      { tancount: 'x' },
      { tancount: '100000' },
      { otplen: '7' },
    ];
    for (const params of cases) {
      await expect(tan.enroll(request(params))).rejects.toThrow(ParameterError);
    }
  });
});

describe('TanType.checkOtp', () => {
  const key = encodeTans(['123456', '234567', '345678']);

  it("accepts privacyIDEA's salted TAN hashes (imported) once, and clear TANs beside them", () => {
    // tan.tan1 of MIGTAN01 in test/fixtures/privacyidea-3.11: the TAN 590316.
    const hashed = 'c1ba91b4:49608fb325af7f9624029e3c00dba3893465518a3560113e3b5ac7ed0c79c1de';
    const k = encodeTans([hashed, '111111']);
    expect(tan.checkOtp(state(k, 6, 0), '590317')).toBeNull();
    const m = tan.checkOtp(state(k, 6, 0), '590316');
    expect(m?.counter).toBe(0);
    expect(tansOf(state(m!.newKey!))).toEqual(['111111']);
    expect(tan.checkOtp(state(m!.newKey!, 6, 1), '590316')).toBeNull();
    expect(tan.checkOtp(state(k, 6, 0), '111111')?.counter).toBe(1);
  });

  it('accepts any unused TAN and returns the list without it', () => {
    const m = tan.checkOtp(state(key, 6, 4), '234567');
    expect(m).not.toBeNull();
    expect(m!.counter).toBe(1);
    expect(m!.newCount).toBe(5);
    expect(tansOf(state(m!.newKey!))).toEqual(['123456', '345678']);
  });

  it('accepts each TAN once, in any order, until none is left', () => {
    let k = key;
    let count = 0;
    for (const t of ['345678', '123456', '234567']) {
      const m = tan.checkOtp(state(k, 6, count), t);
      expect(m).not.toBeNull();
      expect(tan.checkOtp(state(m!.newKey!, 6, m!.newCount), t)).toBeNull();
      k = m!.newKey!;
      count = m!.newCount;
    }
    expect(tansOf(state(k))).toEqual([]);
    expect(count).toBe(3);
    expect(tan.checkOtp(state(k, 6, count), '123456')).toBeNull();
  });

  it('refuses an unknown TAN, a wrong length and an unreadable secret', () => {
    expect(tan.checkOtp(state(key), '999999')).toBeNull();
    expect(tan.checkOtp(state(key), '12345')).toBeNull();
    expect(tan.checkOtp(state(key, 5), '12345')).toBeNull();
    expect(tan.checkOtp(state(Buffer.alloc(0)), '123456')).toBeNull();
    expect(tan.checkOtp(state(Buffer.from('not json')), '123456')).toBeNull();
  });

  it('works on an enrolled token', async () => {
    const e = await tan.enroll(request({ tancount: '3' }));
    const tans = e.detail.tans as string[];
    expect(tan.checkOtp(state(e.key!, e.otplen), tans[2]!)).not.toBeNull();
  });
});
