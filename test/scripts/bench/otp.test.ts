// The benchmark driver's own HOTP (scripts/bench/otp.ts): every HOTP request carries a value it
// computed, so a wrong HOTP would make the scenarios fail (or, for scenario 3, pass by accident).
import { describe, expect, it } from 'vitest';
import { hotp, staticPassword, tokenKey } from '../../../scripts/bench/otp.ts';
import { RFC4226_HOTP, RFC4226_KEY } from '../../helpers/otp.ts';

describe('bench otp', () => {
  it('RFC 4226 appendix D test values', () => {
    expect(RFC4226_HOTP.map((_, counter) => hotp(RFC4226_KEY, counter))).toEqual(RFC4226_HOTP);
  });

  it('8 digits and counters above 2^32', () => {
    const key = RFC4226_KEY;
    // RFC 4226's truncated values for counters 0 and 1, as 8 digits (DBC2 mod 10^8).
    expect(hotp(key, 0, 8)).toBe('84755224');
    expect(hotp(key, 1, 8)).toBe('94287082');
    // A counter beyond 32 bits goes into all 8 bytes (not wrapped to its low word).
    expect(hotp(key, 2 ** 32)).not.toBe(hotp(key, 0));
    expect(hotp(key, 2 ** 32)).toMatch(/^\d{6}$/);
  });

  it('keys and static passwords are deterministic per prefix and index', () => {
    expect(tokenKey('ho', 3)).toHaveLength(20);
    expect(tokenKey('ho', 3).equals(tokenKey('ho', 3))).toBe(true);
    expect(tokenKey('ho', 3).equals(tokenKey('ho', 4))).toBe(false);
    expect(tokenKey('ho', 3).equals(tokenKey('hp', 3))).toBe(false);
    expect(staticPassword('pw', 0)).toMatch(/^[0-9a-f]{12}$/);
    expect(staticPassword('pw', 0)).toBe(tokenKey('pw', 0).toString('hex').slice(0, 12));
  });
});
