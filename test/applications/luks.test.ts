// The luks application: a YubiKey TOTP token's (serial UBOM…) untruncated HMAC of the challenge,
// given or 32 random bytes, recomputed here with node:crypto; the slot and partition options; no
// item for other tokens; clear errors for a bad challenge or slot.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AttachedToken } from '../../src/applications/index.ts';
import { luksApplication } from '../../src/applications/luks.ts';

const SEED = Buffer.from('3132333435363738393031323334353637383930', 'hex');
const hmac = (challenge: Buffer) => createHmac('sha1', SEED).update(challenge).digest();

const token = (over: Partial<AttachedToken> = {}): AttachedToken => ({
  serial: 'UBOM0001',
  type: 'totp',
  active: true,
  info: {},
  username: 'alice',
  options: { slot: '2', partition: '/dev/sda5' },
  hmacResponse: hmac,
  ...over,
});

describe('luks application', () => {
  it('answers the given challenge with its full HMAC, the slot and the partition', () => {
    const challenge = 'a1'.repeat(32);
    expect(luksApplication.authItem(token(), { challenge })).toEqual({
      slot: '2',
      partition: '/dev/sda5',
      challenge,
      response: hmac(Buffer.from(challenge, 'hex')).toString('hex'),
    });
  });

  it('makes a random 32-byte challenge when none is given, and slot 1 by default', () => {
    const a = luksApplication.authItem(token({ options: {} }), {}) as Record<string, string>;
    const b = luksApplication.authItem(token({ options: {} }), {}) as Record<string, string>;
    expect(a.challenge).toMatch(/^[0-9a-f]{64}$/);
    expect(a.challenge).not.toBe(b.challenge);
    expect(a.response).toBe(hmac(Buffer.from(a.challenge as string, 'hex')).toString('hex'));
    expect(a.response).toHaveLength(40);
    expect(a.slot).toBe('1');
    expect(a).not.toHaveProperty('partition');
  });

  it('gives nothing for a token that is not an active YubiKey TOTP token', () => {
    expect(luksApplication.authItem(token({ serial: 'TOTP0001' }), {})).toBeUndefined();
    expect(luksApplication.authItem(token({ type: 'hotp' }), {})).toBeUndefined();
    expect(luksApplication.authItem(token({ active: false }), {})).toBeUndefined();
    expect(luksApplication.authItem(token({ hmacResponse: () => undefined }), {})).toBeUndefined();
  });

  it('refuses a challenge that is not hex or too long, and a slot that is not 0 to 7', () => {
    for (const challenge of ['xyz', 'abc', 'ab'.repeat(65)]) {
      expect(() => luksApplication.authItem(token(), { challenge })).toThrow(
        'The challenge must be hexadecimal, 1 to 64 bytes.',
      );
    }
    for (const slot of ['8', '-1', 'one', '1.5']) {
      expect(() => luksApplication.checkOption?.('slot', slot)).toThrow(
        'The option slot must be a LUKS key slot',
      );
    }
    expect(() => luksApplication.checkOption?.('slot', '0')).not.toThrow();
    expect(() => luksApplication.checkOption?.('partition', 'anything')).not.toThrow();
  });
});
