// Randomness comes from the request (issue 15): every type that draws a seed, password, TAN,
// position or question draws it from EnrollRequest.random or ChallengeOptions.random, so that a
// runtime with a pinned `random` pins what the types make; without one, node:crypto's is used.
import { describe, expect, it } from 'vitest';
import type { TypeRandom } from '../../src/tokens/random.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';
import { planTwoStep } from '../../src/tokens/two-step.ts';

/** Every byte 0xab; every number the largest allowed. */
const PINNED: TypeRandom = {
  bytes: (size) => Buffer.alloc(size, 0xab),
  int: (min, max) => (max === undefined ? min - 1 : max - 1),
};

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'RAND0001', params, settings: { get: () => undefined }, now: new Date(0), random: PINNED };
}

async function keyOf(type: string, params: Record<string, string> = {}) {
  return (await findTokenType(type)!.enroll(request(params))).key?.toString('hex');
}

function stateOf(type: string, key: Buffer): TokenState {
  return {
    serial: 'RAND0001',
    type,
    otplen: 6,
    count: 0,
    countWindow: 10,
    syncWindow: 1000,
    info: {},
    key: () => key,
  };
}

describe('randomness of the token types', () => {
  it('seeds of hotp, totp, daypassword, paper, motp, yubikey and indexedsecret', async () => {
    for (const type of ['hotp', 'totp', 'daypassword', 'paper'])
      expect(await keyOf(type), type).toBe('ab'.repeat(20));
    expect(await keyOf('motp', { motppin: '1234' })).toBe(
      Buffer.from(`${'ab'.repeat(8)}:1234`).toString('hex'),
    );
    expect(await keyOf('yubikey')).toBe('ab'.repeat(16));
    expect(await keyOf('indexedsecret')).toBe(Buffer.from('ab'.repeat(20)).toString('hex'));
  });

  it('the server part of a two-step enrollment', async () => {
    const twoStep = await planTwoStep('hotp', { '2stepinit': '1' }, undefined, {
      mode: async () => 'allow',
      size: async () => undefined,
    });
    const e = await findTokenType('hotp')!.enroll({ ...request({}), twoStep });
    expect(e.key?.toString('hex')).toBe('ab'.repeat(20));
  });

  it('passwords of pw (also with a contents policy), registration and applspec; TANs', async () => {
    const last = '123456789abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ'.at(-1)!;
    const password = async (type: string, params: Record<string, string> = {}) =>
      (await findTokenType(type)!.enroll(request(params))).key?.toString('utf8');
    expect(await password('pw')).toBe(last.repeat(12));
    expect(await password('registration')).toBe(last.repeat(24));
    expect(await password('applspec', { service_id: 'mail' })).toBe(last.repeat(23));
    const withContents = async () =>
      (
        await findTokenType('pw')!.enroll({
          ...request({}),
          policy: (a) => ({ 'pw.length': '8', 'pw.contents': 'cns' })[a],
        })
      ).key?.toString('utf8');
    expect(await withContents()).toBe(await withContents());
    const tan = await findTokenType('tan')!.enroll(request({ tantoken_count: '1' }));
    expect(tan.detail.tans).toEqual(['999999']);
  });

  it('the positions of an indexedsecret challenge and the question of a questionnaire', () => {
    const opts = { policy: () => undefined, random: PINNED };
    const positions = findTokenType('indexedsecret')!.challenge(
      stateOf('indexedsecret', Buffer.from('abcdef')),
      opts,
    );
    expect(positions.data).toBe('6,6');
    const questions = Buffer.from(JSON.stringify({ first: 'a', second: 'b', third: 'c' }));
    expect(findTokenType('question')!.challenge(stateOf('question', questions), opts).data).toBe('third');
  });

  it("falls back to node:crypto's without a random", async () => {
    const unpinned = async () => {
      const { random: _, ...req } = request({});
      return (await findTokenType('hotp')!.enroll(req)).key?.toString('hex');
    };
    expect(await unpinned()).not.toBe(await unpinned());
    expect(await unpinned()).not.toBe('ab'.repeat(20));
  });
});
