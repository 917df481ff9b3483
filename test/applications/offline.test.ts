// The offline application: passlib's $pbkdf2-sha512$ format (adapted base64, 10 bytes of salt, a
// 64-byte key) recomputed with node:crypto's pbkdf2Sync; the count and rounds options; what an
// issue and a refill hand out, by counter; the refill's refusals.
import { pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { IssuingToken } from '../../src/applications/index.ts';
import { ab64, offlineApplication, offlineOptions, pbkdf2Sha512 } from '../../src/applications/offline.ts';

const ab64Decode = (s: string) => Buffer.from(s.replace(/\./g, '+'), 'base64');

/** A token whose value of counter c is `v<c>`, at counter 10. */
const token = (over: Partial<IssuingToken> = {}): IssuingToken => ({
  serial: 'OATH1',
  type: 'hotp',
  active: true,
  info: {},
  username: 'alice',
  options: { count: '3', rounds: '4' },
  counter: 10,
  counterValues: (from, n) => Array.from({ length: n }, (_, i) => `v${from + i}`),
  hmacResponse: () => undefined,
  pin: 'pin',
  otp: '',
  prependPin: true,
  ...over,
});

function verifies(hash: string, secret: string): boolean {
  const [, , rounds, salt, key] = hash.split('$');
  const derived = pbkdf2Sync(secret, ab64Decode(salt!), Number(rounds), 64, 'sha512');
  return derived.equals(ab64Decode(key!));
}

describe('offline application', () => {
  it("writes passlib's pbkdf2_sha512 format", async () => {
    expect(ab64(Buffer.from([0xfb, 0xff]))).toBe('.'.concat('/8'));
    const h = await pbkdf2Sha512('secret', 7);
    expect(h).toMatch(/^\$pbkdf2-sha512\$7\$[A-Za-z0-9./]{14}\$[A-Za-z0-9./]{86}$/);
    expect(ab64Decode(h.split('$')[3]!)).toHaveLength(10);
    expect(verifies(h, 'secret')).toBe(true);
    expect(verifies(h, 'secreT')).toBe(false);
    expect(await pbkdf2Sha512('secret', 7)).not.toBe(h);
  });

  it('reads count and rounds with the defaults and refuses bad values', () => {
    expect(offlineOptions({})).toEqual({ count: 100, rounds: 6549 });
    expect(offlineOptions({ count: '5', rounds: '1000' })).toEqual({ count: 5, rounds: 1000 });
    for (const [name, value] of [
      ['count', '0'],
      ['count', '501'],
      ['count', '1.5'],
      ['rounds', 'x'],
      ['rounds', '20001'],
    ] as const) {
      expect(() => offlineApplication.checkOption?.(name, value)).toThrow(/whole number/);
    }
    expect(() => offlineApplication.checkOption?.('user', 'anything')).not.toThrow();
  });

  it('issues count values from the counter, PIN first or last, and a refill token', async () => {
    const issue = await offlineApplication.issue!(token());
    expect(issue?.counter).toBe(13);
    expect(issue?.secretInfo.refilltoken).toMatch(/^[0-9a-f]{80}$/);
    expect(issue?.item).toMatchObject({ user: 'alice', username: 'alice', count: '3', rounds: '4' });
    const response = issue?.item.response as Record<string, string>;
    expect(Object.keys(response)).toEqual(['10', '11', '12']);
    expect(verifies(response['11']!, 'pinv11')).toBe(true);
    const last = await offlineApplication.issue!(token({ prependPin: false }));
    expect(verifies((last!.item.response as Record<string, string>)['10']!, 'v10pin')).toBe(true);
    expect(await offlineApplication.issue!(token({ active: false }))).toBeUndefined();
    expect(await offlineApplication.issue!(token({ counterValues: () => undefined }))).toBeUndefined();
  });

  it('refills the values used up to the OTP given, for the stored refill token only', async () => {
    const info = { refilltoken: 'r1' };
    const r = await offlineApplication.refill!(token({ info, otp: 'v8' }), 'r1');
    // Issued before: counters 7, 8, 9; 7 and 8 are used up.
    expect(Object.keys(r.item.response as object)).toEqual(['10', '11']);
    expect(r.counter).toBe(12);
    expect(r.secretInfo.refilltoken).not.toBe('r1');
    await expect(offlineApplication.refill!(token({ info, otp: 'v8' }), 'r2')).rejects.toThrow(
      'Token is not an offline token or refill token is incorrect',
    );
    await expect(offlineApplication.refill!(token({ otp: 'v8' }), '')).rejects.toThrow('refill token');
    await expect(offlineApplication.refill!(token({ info, otp: 'v10' }), 'r1')).rejects.toThrow(
      'You provided a wrong OTP value.',
    );
    await expect(offlineApplication.refill!(token({ info, otp: 'v6' }), 'r1')).rejects.toThrow(
      'You provided a wrong OTP value.',
    );
  });
});
