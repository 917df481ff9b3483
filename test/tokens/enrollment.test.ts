// genkey is read with privacyIDEA's is_true by every type that takes it (issue 15: before, hotp,
// totp, motp, indexedsecret and yubikey knew three true texts, pw only '1', two-step four).
import { describe, expect, it } from 'vitest';
import { isTrue } from '../../src/is-true.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import type { EnrollRequest } from '../../src/tokens/token-type.ts';

/** A valid otpkey of each type that accepts one, with the parameters its enrollment needs. */
const GIVEN: Record<string, Record<string, string>> = {
  hotp: { otpkey: '3132333435363738393031323334353637383930' },
  totp: { otpkey: '3132333435363738393031323334353637383930' },
  motp: { otpkey: '0123456789abcdef', motppin: '1234' },
  indexedsecret: { otpkey: 'my secret text' },
  yubikey: { otpkey: '0123456789abcdef0123456789abcdef' },
  pw: { otpkey: 'a given password' },
};

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'GENKEY01', params, settings: { get: () => undefined }, now: new Date(0) };
}

async function keyOf(type: string, params: Record<string, string>): Promise<string> {
  const enrollment = await findTokenType(type)!.enroll(request(params));
  return enrollment.key!.toString('hex');
}

describe('isTrue', () => {
  it("is privacyIDEA's is_true", () => {
    for (const v of ['1', 'True', 'true', 'TRUE', true, 1]) expect(isTrue(v), String(v)).toBe(true);
    for (const v of ['yes', 'on', 't', 'TrUe', ' 1', '1 ', '0', 'false', '', false, 0, 2, null, undefined])
      expect(isTrue(v), String(v)).toBe(false);
  });
});

describe.each(Object.keys(GIVEN))('genkey of %s', (type) => {
  const given = GIVEN[type]!;

  it('generates a key for every true text, ignoring the given otpkey', async () => {
    const stored = await keyOf(type, given);
    for (const genkey of ['1', 'True', 'true', 'TRUE']) {
      expect(await keyOf(type, { ...given, genkey }), genkey).not.toBe(stored);
    }
  });

  it('keeps the given otpkey for any other text', async () => {
    const stored = await keyOf(type, given);
    for (const genkey of ['0', 'false', 'False', 'yes', 'on', '']) {
      expect(await keyOf(type, { ...given, genkey }), genkey).toBe(stored);
    }
  });
});
