import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { open, seal } from '../../src/crypto/secret-box.ts';

const key = randomBytes(32);

/** Flips one bit of the decoded payload at `index` (iv 0–11, tag 12–27, ciphertext 28–). */
function flip(sealed: string, index: number): string {
  const raw = Buffer.from(sealed.slice('aesgcm1:'.length), 'base64');
  raw[index]! ^= 0x01;
  return `aesgcm1:${raw.toString('base64')}`;
}

describe('secret box', () => {
  it('round-trips and marks its format', () => {
    const sealed = seal(key, 'geheim');
    expect(sealed.startsWith('aesgcm1:')).toBe(true);
    expect(open(key, sealed)).toBe('geheim');
    expect(open(key, seal(key, ''))).toBe('');
  });

  it('detects a changed nonce, tag or ciphertext', () => {
    const sealed = seal(key, 'a token seed of some length');
    for (const index of [0, 11, 12, 27, 28, 40]) {
      expect(() => open(key, flip(sealed, index)), `byte ${index}`).toThrow();
    }
  });

  it('detects a truncated or extended value', () => {
    const sealed = seal(key, 'a token seed');
    const raw = Buffer.from(sealed.slice(8), 'base64');
    expect(() => open(key, `aesgcm1:${raw.subarray(0, raw.length - 1).toString('base64')}`)).toThrow();
    expect(() => open(key, `aesgcm1:${Buffer.concat([raw, Buffer.from([0])]).toString('base64')}`)).toThrow();
    expect(() => open(key, `aesgcm1:${raw.subarray(0, 20).toString('base64')}`)).toThrow();
    expect(() => open(key, 'aesgcm1:')).toThrow();
  });

  it('rejects the wrong key and values not made by seal', () => {
    const sealed = seal(key, 'secret');
    expect(() => open(randomBytes(32), sealed)).toThrow();
    expect(() => open(key, 'secret')).toThrow(/not an encrypted value/);
    expect(() => open(key, sealed.replace('aesgcm1:', 'aesgcm2:'))).toThrow();
  });
});
