// The HS256 JWTs this server issued (admin/user logins, API keys), checked with jose. Every request
// of the admin API carries one, and the same token comes back with each request of a session, so
// the claims of a token whose signature was checked are kept (per secret, a bounded number) and a
// repeated token costs its time checks only: jose's HMAC check through WebCrypto costs 60–90 µs.
import { type JWTPayload, jwtVerify } from 'jose';

/** Tokens kept per secret; the oldest checked is dropped first. */
export const MAX_VERIFIED_TOKENS = 1000;

const verified = new WeakMap<Uint8Array, Map<string, JWTPayload>>();

/**
 * The claims of `token` when its HS256 signature is the secret's and it is valid at `now` (an `exp`
 * claim is required); otherwise jose's error (JWTExpired, JWSSignatureVerificationFailed, …).
 */
export async function verifiedClaims(secret: Uint8Array, token: string, now: Date): Promise<JWTPayload> {
  let kept = verified.get(secret);
  if (!kept) {
    kept = new Map();
    verified.set(secret, kept);
  }
  const hit = kept.get(token);
  // jose's rules with its default tolerance of 0: valid while exp > now and nbf <= now (whole seconds).
  const seconds = Math.floor(now.getTime() / 1000);
  if (
    hit &&
    typeof hit.exp === 'number' &&
    hit.exp > seconds &&
    (hit.nbf === undefined || hit.nbf <= seconds)
  )
    return hit;
  // Not kept, or no longer valid: jose decides, and throws its own error.
  const { payload } = await jwtVerify(token, secret, {
    algorithms: ['HS256'],
    currentDate: now,
    requiredClaims: ['exp'],
  });
  kept.delete(token);
  if (kept.size >= MAX_VERIFIED_TOKENS) kept.delete(kept.keys().next().value as string);
  kept.set(token, Object.freeze(payload));
  return payload;
}
