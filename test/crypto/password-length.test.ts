// The longest password the hashes take: anything longer is refused at once, whatever the format.
import { describe, expect, it } from 'vitest';
import { makeCryptHash, shaCrypt, verifyCryptHash } from '../../src/crypto/crypt-hashes.ts';
import { hashPassword, verifyPassword } from '../../src/crypto/password-hash.ts';
import { MAX_PASSWORD_LENGTH, overlongPassword } from '../../src/crypto/password-length.ts';
import { ParameterError } from '../../src/errors.ts';

const SHA512 =
  '$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1';

describe('overlongPassword', () => {
  it('takes MAX_PASSWORD_LENGTH characters of any kind, and refuses more bytes than those can take', () => {
    expect(MAX_PASSWORD_LENGTH).toBe(4096);
    expect(overlongPassword('x'.repeat(MAX_PASSWORD_LENGTH))).toBe(false);
    expect(overlongPassword('😀'.repeat(MAX_PASSWORD_LENGTH))).toBe(false);
    expect(overlongPassword('€'.repeat(MAX_PASSWORD_LENGTH + 1))).toBe(false); // 3 bytes each
    expect(overlongPassword('😀'.repeat(MAX_PASSWORD_LENGTH + 1))).toBe(true);
    expect(overlongPassword('x'.repeat(4 * MAX_PASSWORD_LENGTH + 1))).toBe(true);
  });
});

describe('an overlong password', () => {
  const huge = 'x'.repeat(100_000);

  it('is not the password of any stored hash, and is refused at once', async () => {
    const t = Date.now();
    for (const stored of [
      SHA512,
      await makeCryptHash('bcrypt', 'x'),
      await hashPassword('x'),
      '{SSHA}Woq642AcpYBkRUSo2rJa7qRsad/tXh1w',
    ]) {
      expect(await verifyCryptHash(stored, huge), stored).toBe(false);
    }
    expect(await verifyPassword(huge, await hashPassword('x'))).toBe(false);
    // Before the limit, the SHA-crypt check alone took about 15 seconds.
    expect(Date.now() - t).toBeLessThan(5000);
  });

  it('cannot be hashed: a ParameterError', async () => {
    await expect(hashPassword(huge)).rejects.toThrow(ParameterError);
    await expect(makeCryptHash('sha512crypt', huge)).rejects.toThrow(ParameterError);
    await expect(makeCryptHash('ssha256', huge)).rejects.toThrow(/at most 4096 characters/);
    await expect(shaCrypt(huge, '$6$salt')).rejects.toThrow(ParameterError);
  });
});
