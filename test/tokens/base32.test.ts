// RFC 4648 Base32 of src/tokens/base32.ts: the RFC's test vectors (section 10), round trips, and
// what authenticator apps do with the encoded seed (oathtool -b as the independent decoder).
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { base32Decode, base32Encode } from '../../src/tokens/base32.ts';

/** RFC 4648 section 10, BASE32 test vectors, with their padding. */
const VECTORS: [string, string][] = [
  ['', ''],
  ['f', 'MY======'],
  ['fo', 'MZXQ===='],
  ['foo', 'MZXW6==='],
  ['foob', 'MZXW6YQ='],
  ['fooba', 'MZXW6YTB'],
  ['foobar', 'MZXW6YTBOI======'],
];

describe('base32Encode', () => {
  for (const [plain, encoded] of VECTORS) {
    it(`"${plain}" → "${encoded.replace(/=+$/, '')}" (no padding)`, () => {
      expect(base32Encode(Buffer.from(plain, 'ascii'))).toBe(encoded.replace(/=+$/, ''));
    });
  }

  it('encodes the RFC 4226 seed as authenticator apps expect', () => {
    expect(base32Encode(Buffer.from('12345678901234567890', 'ascii'))).toBe(
      'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
    );
  });

  it('encodes all bit patterns with the RFC 4648 alphabet', () => {
    expect(base32Encode(Buffer.alloc(5, 0))).toBe('AAAAAAAA');
    expect(base32Encode(Buffer.alloc(5, 0xff))).toBe('77777777');
    expect(base32Encode(Buffer.from([0x00, 0x44, 0x32, 0x14, 0xc7, 0x42, 0x54, 0xb6, 0x35, 0xcf]))).toBe(
      'ABCDEFGHIJKLMNOP',
    );
    expect(base32Encode(Buffer.from('84653a56d7c675be77df', 'hex'))).toBe('QRSTUVWXYZ234567');
  });

  it('is decoded by oathtool to the same seed', () => {
    for (const size of [10, 16, 20, 32, 64]) {
      const key = randomBytes(size);
      const viaHex = execFileSync('oathtool', ['--hotp', '-c', '7', key.toString('hex')], {
        encoding: 'utf8',
      });
      const viaB32 = execFileSync('oathtool', ['--hotp', '-b', '-c', '7', base32Encode(key)], {
        encoding: 'utf8',
      });
      expect(viaB32, `${size} bytes`).toBe(viaHex);
    }
  });
});

describe('base32Decode', () => {
  for (const [plain, encoded] of VECTORS) {
    it(`"${encoded}" → "${plain}" (with and without padding)`, () => {
      expect(base32Decode(encoded).toString('ascii')).toBe(plain);
      expect(base32Decode(encoded.replace(/=+$/, '')).toString('ascii')).toBe(plain);
    });
  }

  it('accepts lower case and white space', () => {
    expect(base32Decode('mzxw6ytboi').toString('ascii')).toBe('foobar');
    expect(base32Decode('MZXW 6YTB OI').toString('ascii')).toBe('foobar');
    expect(base32Decode(' gezd gnbv gy3t qojq gezd gnbv gy3t qojq\n').toString('ascii')).toBe(
      '12345678901234567890',
    );
  });

  it('rejects characters outside the alphabet with a ParameterError', () => {
    for (const bad of ['MZXW1', 'MZXW0', 'MZXW8', 'MZXW9', 'MZ-XW', 'MZXW6!', 'MZXW6ä']) {
      expect(() => base32Decode(bad), bad).toThrow(ParameterError);
    }
    expect(() => base32Decode('MZ1W6')).toThrow("'1' is not a Base32 character");
    try {
      base32Decode('1');
      expect.unreachable();
    } catch (e) {
      expect((e as ParameterError).code).toBe(905);
    }
  });
});

describe('base32 round trip', () => {
  it('decode(encode(x)) = x for every length 0–70', () => {
    for (let n = 0; n <= 70; n++) {
      const data = randomBytes(n);
      const text = base32Encode(data);
      expect(text, `${n} bytes`).toMatch(/^[A-Z2-7]*$/);
      expect(text.length, `${n} bytes`).toBe(Math.ceil((n * 8) / 5));
      expect(base32Decode(text).equals(data), `${n} bytes`).toBe(true);
    }
  });

  it('encode(decode(t)) = t for canonical unpadded text', () => {
    for (const t of [
      'MY',
      'MZXQ',
      'MZXW6',
      'MZXW6YQ',
      'MZXW6YTB',
      'MZXW6YTBOI',
      'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ',
    ]) {
      expect(base32Encode(base32Decode(t))).toBe(t);
    }
  });
});
