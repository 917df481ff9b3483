import { randomBytes } from 'node:crypto';
import { errors, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { MAX_VERIFIED_TOKENS, verifiedClaims } from '../../src/crypto/jwt-verify.ts';

const T0 = new Date('2026-01-01T10:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function token(secret: Uint8Array, claims: Record<string, unknown>, exp = T0.getTime() / 1000 + 60) {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(exp).sign(secret);
}

describe('verifiedClaims', () => {
  it('returns the claims of a valid token, again from what it kept', async () => {
    const secret = randomBytes(32);
    const t = await token(secret, { role: 'admin', username: 'a' });
    const first = await verifiedClaims(secret, t, T0);
    expect(first).toMatchObject({ role: 'admin', username: 'a' });
    const again = await verifiedClaims(secret, t, at(30));
    expect(again).toBe(first);
    expect(Object.isFrozen(again)).toBe(true);
  });

  it('a kept token stops being valid at its exp, with jose’s JWTExpired', async () => {
    const secret = randomBytes(32);
    const t = await token(secret, { role: 'admin' });
    await verifiedClaims(secret, t, T0);
    await expect(verifiedClaims(secret, t, at(59))).resolves.toBeDefined();
    await expect(verifiedClaims(secret, t, at(60))).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  it('a kept token is not valid before its nbf', async () => {
    const secret = randomBytes(32);
    const t = await new SignJWT({ role: 'admin' })
      .setProtectedHeader({ alg: 'HS256' })
      .setNotBefore(T0.getTime() / 1000 + 10)
      .setExpirationTime(T0.getTime() / 1000 + 60)
      .sign(secret);
    await expect(verifiedClaims(secret, t, at(5))).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed);
    await expect(verifiedClaims(secret, t, at(10))).resolves.toBeDefined();
    await expect(verifiedClaims(secret, t, at(5))).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed);
  });

  it('what one secret kept does not vouch for a token under another secret', async () => {
    const secret = randomBytes(32);
    const other = randomBytes(32);
    const t = await token(secret, { role: 'admin' });
    await verifiedClaims(secret, t, T0);
    await expect(verifiedClaims(other, t, T0)).rejects.toBeInstanceOf(errors.JWSSignatureVerificationFailed);
  });

  it('a changed token is checked, not matched against a kept one', async () => {
    const secret = randomBytes(32);
    const t = await token(secret, { role: 'user' });
    await verifiedClaims(secret, t, T0);
    const [h, p, s] = t.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ role: 'admin', exp: 9e9 })).toString('base64url')}.${s}`;
    expect(p).not.toBe(forged.split('.')[1]);
    await expect(verifiedClaims(secret, forged, T0)).rejects.toBeInstanceOf(
      errors.JWSSignatureVerificationFailed,
    );
  });

  it('keeps at most MAX_VERIFIED_TOKENS tokens per secret: the oldest checked goes first', async () => {
    const secret = randomBytes(32);
    const tokens = await Promise.all(
      Array.from({ length: MAX_VERIFIED_TOKENS + 1 }, (_, i) => token(secret, { n: i })),
    );
    const first = await verifiedClaims(secret, tokens[0]!, T0);
    expect(await verifiedClaims(secret, tokens[0]!, T0)).toBe(first);
    for (const t of tokens.slice(1)) await verifiedClaims(secret, t, T0);
    // Dropped: checked anew, so a new (equal) claims object.
    const later = await verifiedClaims(secret, tokens[0]!, T0);
    expect(later).not.toBe(first);
    expect(later).toEqual(first);
  });

  it('a token without exp is refused', async () => {
    const secret = randomBytes(32);
    const t = await new SignJWT({ role: 'admin' }).setProtectedHeader({ alg: 'HS256' }).sign(secret);
    await expect(verifiedClaims(secret, t, T0)).rejects.toBeInstanceOf(errors.JWTClaimValidationFailed);
  });
});
