// IndexedSecretType (reference 3.1): a PIN-only request always starts a challenge asking for
// random positions of the secret; only the answer to that challenge authenticates.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { IndexedSecretType } from '../../src/tokens/indexedsecret.ts';
import type { ChallengeOptions, EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const ix = new IndexedSecretType();
const SECRET = 'abcdefghijklmnopqrstuvwxyz';

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'PIIX0001', params, settings: { get: () => undefined }, now: new Date() };
}

function state(secret: string, count = 0): TokenState {
  return {
    serial: 'PIIX0001',
    type: 'indexedsecret',
    otplen: 6,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info: {},
    key: () => Buffer.from(secret, 'utf8'),
  };
}

function policies(values: Record<string, string> = {}): ChallengeOptions {
  return { policy: (a) => values[a] };
}

describe('IndexedSecretType.enroll', () => {
  it('is indexedsecret with the prefix PIIX and always challenges', () => {
    expect(ix.type).toBe('indexedsecret');
    expect(ix.prefix).toBe('PIIX');
    expect(ix.challengeAlways).toBe(true);
    expect(ix.challengeCapable).toBe(true);
  });

  it('keeps the otpkey as the secret text and does not return it', async () => {
    const e = await ix.enroll(request({ otpkey: 'my secret ä' }));
    expect(e.key?.toString('utf8')).toBe('my secret ä');
    expect(e.detail).toEqual({});
  });

  it('generates 40 hex characters without otpkey or with genkey, and returns them', async () => {
    const cases: Record<string, string>[] = [{}, { genkey: '1', otpkey: 'ignored' }];
    for (const params of cases) {
      const e = await ix.enroll(request(params));
      const secret = e.key!.toString('utf8');
      expect(secret).toMatch(/^[0-9a-f]{40}$/);
      expect((e.detail.otpkey as { value: string }).value).toBe(`seed://${secret}`);
    }
  });

  it('refuses a secret longer than 1024 characters', async () => {
    await expect(ix.enroll(request({ otpkey: 'x'.repeat(1025) }))).rejects.toThrow(ParameterError);
  });
});

describe('IndexedSecretType challenge and response', () => {
  it('asks for 2 random 1-based positions with the default message', () => {
    for (let i = 0; i < 50; i++) {
      const c = ix.challenge(state(SECRET), policies());
      expect(c.data).toMatch(/^\d+,\d+$/);
      const positions = c.data!.split(',').map(Number);
      for (const p of positions) {
        expect(p).toBeGreaterThanOrEqual(1);
        expect(p).toBeLessThanOrEqual(SECRET.length);
      }
      expect(c.message).toBe(`Please enter the positions ${c.data} from your secret.`);
      expect(c.extra).toEqual({ attributes: { random_positions: positions } });
    }
  });

  it('reads indexedsecret_count and indexedsecret_challenge_text from the policies', () => {
    const c = ix.challenge(
      state(SECRET),
      policies({ indexedsecret_count: '4', indexedsecret_challenge_text: 'Give me {0}\\, please' }),
    );
    expect(c.data!.split(',')).toHaveLength(4);
    expect(c.message).toBe(`Give me ${c.data}, please`);
  });

  it('accepts the characters at the positions asked, in order', () => {
    expect(ix.checkResponse(state(SECRET, 3), 'ce', '3,5')).toEqual({ counter: 0, newCount: 3 });
    expect(ix.checkResponse(state(SECRET), 'zaa', '26,1,1')).not.toBeNull();
    expect(ix.checkResponse(state('äöü'), 'üä', '3,1')).not.toBeNull();
  });

  it('answers a challenge it made', () => {
    const s = state(SECRET);
    const c = ix.challenge(s, policies());
    const answer = c
      .data!.split(',')
      .map((p) => SECRET[Number(p) - 1])
      .join('');
    expect(ix.checkResponse(s, answer, c.data!)).not.toBeNull();
  });

  it('refuses wrong characters, the wrong order, wrong lengths and bad data', () => {
    expect(ix.checkResponse(state(SECRET), 'ec', '3,5')).toBeNull();
    expect(ix.checkResponse(state(SECRET), 'cf', '3,5')).toBeNull();
    expect(ix.checkResponse(state(SECRET), 'c', '3,5')).toBeNull();
    expect(ix.checkResponse(state(SECRET), 'cee', '3,5')).toBeNull();
    expect(ix.checkResponse(state(SECRET), 'c', '')).toBeNull();
    expect(ix.checkResponse(state(SECRET), 'a', '0')).toBeNull();
    expect(ix.checkResponse(state(SECRET), 'a', '27')).toBeNull();
  });

  it('never authenticates in one shot', () => {
    expect(ix.checkOtp()).toBeNull();
  });
});
