// RFC 4226 / RFC 6238 values of src/tokens/oath.ts, from the RFCs' own tables, cross-checked against
// the OATH Toolkit's `oathtool` (Debian package `oathtool`, which must be installed).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { findCounter, HASHLIBS, type Hashlib, hotpValue, isHashlib, sameOtp } from '../../src/tokens/oath.ts';
import { RFC4226_HOTP, RFC4226_KEY } from '../helpers/otp.ts';

/** RFC 4226 Appendix D: the secret "12345678901234567890". */

/** RFC 4226 Appendix D: the truncated 31-bit values ("Decimal") for counters 0–9. */
const RFC4226_TRUNCATED = [
  1284755224, 1094287082, 137359152, 1726969429, 1640338314, 868254676, 1918287922, 82162583, 673399871,
  645520489,
];

/** RFC 6238 Appendix B: the seeds of 20, 32 and 64 bytes. */
const RFC6238_KEYS: Record<Hashlib, Buffer> = {
  sha1: Buffer.from('12345678901234567890', 'ascii'),
  sha256: Buffer.from('12345678901234567890123456789012', 'ascii'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234', 'ascii'),
};

/** RFC 6238 Appendix B: time (s) → 8-digit TOTP for SHA1, SHA256, SHA512 (T0 = 0, X = 30). */
const RFC6238_TOTP: [number, Record<Hashlib, string>][] = [
  [59, { sha1: '94287082', sha256: '46119246', sha512: '90693936' }],
  [1111111109, { sha1: '07081804', sha256: '68084774', sha512: '25091201' }],
  [1111111111, { sha1: '14050471', sha256: '67062674', sha512: '99943326' }],
  [1234567890, { sha1: '89005924', sha256: '91819424', sha512: '93441116' }],
  [2000000000, { sha1: '69279037', sha256: '90698825', sha512: '38618901' }],
  [20000000000, { sha1: '65353130', sha256: '77737706', sha512: '47863826' }],
];

/** RFC 6238 Appendix B: the time step counter T (hex) of each listed time. */
const RFC6238_STEPS: [number, number][] = [
  [59, 0x1],
  [1111111109, 0x23523ec],
  [1111111111, 0x23523ed],
  [1234567890, 0x273ef07],
  [2000000000, 0x3f940aa],
  [20000000000, 0x27bc86aa],
];

function oathtool(...args: string[]): string {
  return execFileSync('oathtool', args, { encoding: 'utf8' }).trim();
}

describe('hotpValue: RFC 4226 Appendix D', () => {
  for (const [counter, expected] of RFC4226_HOTP.entries()) {
    it(`counter ${counter} → ${expected}`, () => {
      expect(hotpValue(RFC4226_KEY, counter, 6)).toBe(expected);
      expect(hotpValue(RFC4226_KEY, counter, 6, 'sha1')).toBe(expected);
    });
  }

  it('8 digits are the truncated value modulo 10^8, zero-padded', () => {
    for (const [counter, truncated] of RFC4226_TRUNCATED.entries()) {
      const expected = String(truncated % 10 ** 8).padStart(8, '0');
      expect(hotpValue(RFC4226_KEY, counter, 8), `counter ${counter}`).toBe(expected);
      expect(hotpValue(RFC4226_KEY, counter, 6), `counter ${counter}`).toBe(
        String(truncated % 10 ** 6).padStart(6, '0'),
      );
    }
  });

  it('zero-pads values with leading zeros (RFC 6238: SHA1 at 1111111109 is 07081804)', () => {
    expect(hotpValue(RFC4226_KEY, Math.floor(1111111109 / 30), 8)).toBe('07081804');
    expect(hotpValue(RFC4226_KEY, Math.floor(1111111109 / 30), 7)).toBe('7081804');
  });
});

describe('hotpValue: RFC 6238 Appendix B', () => {
  for (const [time, step] of RFC6238_STEPS) {
    it(`time ${time} is step 0x${step.toString(16)}`, () => {
      expect(Math.floor(time / 30)).toBe(step);
    });
  }

  for (const [time, values] of RFC6238_TOTP) {
    for (const hashlib of HASHLIBS) {
      it(`${hashlib} at ${time} → ${values[hashlib]} (and ${values[hashlib].slice(-6)} with 6 digits)`, () => {
        const counter = Math.floor(time / 30);
        expect(hotpValue(RFC6238_KEYS[hashlib], counter, 8, hashlib)).toBe(values[hashlib]);
        expect(hotpValue(RFC6238_KEYS[hashlib], counter, 6, hashlib)).toBe(values[hashlib].slice(-6));
      });
    }
  }

  it('the three seeds have the lengths of the RFC (20, 32, 64 bytes)', () => {
    expect(RFC6238_KEYS.sha1.length).toBe(20);
    expect(RFC6238_KEYS.sha256.length).toBe(32);
    expect(RFC6238_KEYS.sha512.length).toBe(64);
  });
});

describe('hotpValue: cross-check with oathtool', () => {
  it('is installed', () => {
    expect(oathtool('--version')).toMatch(/^oathtool \(OATH Toolkit\)/);
  });

  it('agrees on HOTP counters 0–9 (6 and 8 digits)', () => {
    const hex = RFC4226_KEY.toString('hex');
    expect(oathtool('--hotp', '-d', '6', '-c', '5', hex)).toBe(hotpValue(RFC4226_KEY, 5, 6));
    const window6 = oathtool('--hotp', '-d', '6', '-w', '9', '-c', '0', hex).split('\n');
    expect(window6).toEqual(RFC4226_HOTP);
    const window8 = oathtool('--hotp', '-d', '8', '-w', '9', '-c', '0', hex).split('\n');
    expect(window8).toEqual(Array.from({ length: 10 }, (_, c) => hotpValue(RFC4226_KEY, c, 8)));
  });

  it('agrees on large counters and on short seeds (which otplib would refuse)', () => {
    const shortKey = Buffer.from('3132333435', 'hex');
    expect(oathtool('--hotp', '-d', '6', '-c', '0', shortKey.toString('hex'))).toBe(
      hotpValue(shortKey, 0, 6),
    );
    expect(oathtool('--hotp', '-d', '6', '-c', '4294967296', RFC4226_KEY.toString('hex'))).toBe(
      hotpValue(RFC4226_KEY, 4294967296, 6),
    );
  });

  for (const hashlib of HASHLIBS) {
    it(`agrees on TOTP with ${hashlib} (8 and 6 digits, 30 and 60 s steps)`, () => {
      const key = RFC6238_KEYS[hashlib];
      const hex = key.toString('hex');
      for (const time of [59, 1111111109, 1234567890, 20000000000]) {
        const mode = `--totp=${hashlib}`;
        expect(oathtool(mode, '-d', '8', '-N', `@${time}`, hex), `t=${time}`).toBe(
          hotpValue(key, Math.floor(time / 30), 8, hashlib),
        );
        expect(oathtool(mode, '-d', '6', '-N', `@${time}`, hex), `t=${time}`).toBe(
          hotpValue(key, Math.floor(time / 30), 6, hashlib),
        );
        expect(oathtool(mode, '-s', '60', '-d', '6', '-N', `@${time}`, hex), `t=${time}, 60 s`).toBe(
          hotpValue(key, Math.floor(time / 60), 6, hashlib),
        );
      }
    });
  }
});

describe('isHashlib', () => {
  it('knows exactly sha1, sha256 and sha512 (lower case)', () => {
    expect([...HASHLIBS]).toEqual(['sha1', 'sha256', 'sha512']);
    for (const h of HASHLIBS) expect(isHashlib(h)).toBe(true);
    for (const h of ['SHA1', 'md5', 'sha384', '', 'sha-256']) expect(isHashlib(h), h).toBe(false);
  });
});

describe('sameOtp', () => {
  it('compares values, also of different lengths', () => {
    expect(sameOtp('123456', '123456')).toBe(true);
    expect(sameOtp('123456', '123457')).toBe(false);
    expect(sameOtp('123456', '1234567')).toBe(false);
    expect(sameOtp('', '')).toBe(true);
    expect(sameOtp('', '1')).toBe(false);
  });
});

describe('findCounter', () => {
  it('finds the counter of a value within [from, from + count)', () => {
    expect(findCounter(RFC4226_KEY, '969429', 0, 10, 6, 'sha1')).toBe(3);
    expect(findCounter(RFC4226_KEY, '969429', 3, 1, 6, 'sha1')).toBe(3);
    expect(findCounter(RFC4226_KEY, '520489', 0, 10, 6, 'sha1')).toBe(9);
  });

  it('answers -1 outside the range', () => {
    expect(findCounter(RFC4226_KEY, '969429', 4, 10, 6, 'sha1')).toBe(-1);
    expect(findCounter(RFC4226_KEY, '520489', 0, 9, 6, 'sha1')).toBe(-1);
    expect(findCounter(RFC4226_KEY, '969429', 0, 0, 6, 'sha1')).toBe(-1);
    expect(findCounter(RFC4226_KEY, '000000', 0, 10, 6, 'sha1')).toBe(-1);
  });

  it('never tries negative counters', () => {
    expect(findCounter(RFC4226_KEY, '755224', -5, 6, 6, 'sha1')).toBe(0);
    expect(findCounter(RFC4226_KEY, '287082', -5, 6, 6, 'sha1')).toBe(-1);
  });

  it('uses digits and hashlib', () => {
    expect(findCounter(RFC4226_KEY, '94287082', 0, 5, 8, 'sha1')).toBe(1);
    expect(findCounter(RFC6238_KEYS.sha256, '46119246', 0, 5, 8, 'sha256')).toBe(1);
    expect(findCounter(RFC6238_KEYS.sha256, '46119246', 0, 5, 8, 'sha1')).toBe(-1);
  });
});
