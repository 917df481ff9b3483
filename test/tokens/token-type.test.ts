// The members of the token-type interface that the validate service reads instead of type names:
// the order types are tried in, AutoResync, and the 4eyes exclusion (checksOtherTokens).
import { describe, expect, it } from 'vitest';
import { findTokenType, tokenTypes } from '../../src/tokens/index.ts';

describe('token type members used by /validate', () => {
  it("tries types in privacyIDEA's weigh_token_type order: the first letter's code", () => {
    for (const t of tokenTypes()) expect(t.tryOrder).toBe(t.type.charCodeAt(0));
  });

  it('gives AutoResync to HOTP only (not to types built on it, such as paper)', () => {
    const resyncing = tokenTypes().filter((t) => t.autoResync !== undefined);
    expect(resyncing.map((t) => t.type)).toEqual(['hotp']);
    expect(findTokenType('paper')?.autoResync).toBeUndefined();
  });

  it('marks only 4eyes as a type that checks other tokens', () => {
    expect(
      tokenTypes()
        .filter((t) => t.checksOtherTokens)
        .map((t) => t.type),
    ).toEqual(['4eyes']);
  });
});
