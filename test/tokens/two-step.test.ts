// Two-step enrollment decisions and key derivation (src/tokens/two-step.ts), and HOTP AutoResync
// (src/tokens/hotp.ts) as pure functions.
import { createHmac, pbkdf2Sync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ParameterError, PolicyError } from '../../src/errors.ts';
import { HotpType } from '../../src/tokens/hotp.ts';
import type { TokenState } from '../../src/tokens/token-type.ts';
import {
  deriveTwoStepKey,
  planTwoStep,
  type TwoStepLookup,
  twoStepInit,
  twoStepKey,
} from '../../src/tokens/two-step.ts';

const lookup = (values: Record<string, string>): TwoStepLookup => ({
  mode: async (a) => values[a],
  size: async (a) => values[a],
});

describe('planTwoStep', () => {
  it('ignores 2stepinit without the policy and refuses one-step enrollment with force', async () => {
    expect(await planTwoStep('hotp', { '2stepinit': '1' }, undefined, lookup({}))).toBeUndefined();
    expect(await planTwoStep('hotp', {}, undefined, lookup({ hotp_2step: 'allow' }))).toBeUndefined();
    await expect(planTwoStep('hotp', {}, undefined, lookup({ hotp_2step: 'force' }))).rejects.toBeInstanceOf(
      PolicyError,
    );
    expect(await planTwoStep('totp', {}, undefined, lookup({ hotp_2step: 'force' }))).toBeUndefined();
  });

  it('takes the sizes from the enrollment scope, with defaults 20/8/10000', async () => {
    expect(
      await planTwoStep('hotp', { '2stepinit': 'true' }, undefined, lookup({ hotp_2step: 'allow' })),
    ).toEqual({
      step: 'init',
      sizes: { serverSize: 20, clientSize: 8, difficulty: 10000 },
    });
    const plan = await planTwoStep(
      'totp',
      { '2stepinit': '1' },
      undefined,
      lookup({
        totp_2step: 'force',
        totp_2step_serversize: '32',
        totp_2step_clientsize: 'x',
        totp_2step_difficulty: '9',
      }),
    );
    expect(plan).toEqual({ step: 'init', sizes: { serverSize: 32, clientSize: 8, difficulty: 9 } });
  });

  it('completes a clientwait token of the type from its tokeninfo, whatever the policy', async () => {
    const prior = {
      type: 'hotp',
      rolloutState: 'clientwait',
      info: {
        '2step_serversize': '20',
        '2step_clientsize': '4',
        '2step_difficulty': '100',
        '2step_output': '32',
      },
      key: () => Buffer.alloc(20, 1),
    };
    const plan = await planTwoStep('hotp', { otpkey: '01020304' }, prior, lookup({ hotp_2step: 'force' }));
    expect(plan).toMatchObject({ step: 'finish', keyLength: 32, sizes: { clientSize: 4, difficulty: 100 } });
    await expect(planTwoStep('hotp', { '2stepinit': '1' }, prior, lookup({}))).rejects.toBeInstanceOf(
      ParameterError,
    );
    // another type, or an enrolled token: no second step
    expect(await planTwoStep('totp', {}, prior, lookup({}))).toBeUndefined();
    expect(await planTwoStep('hotp', {}, { ...prior, rolloutState: '' }, lookup({}))).toBeUndefined();
  });
});

describe('two-step keys', () => {
  it('derives PBKDF2-HMAC-SHA1 over the hex of the server part; checks the client length', async () => {
    const server = Buffer.from('00112233445566778899aabbccddeeff00112233', 'hex');
    const client = Buffer.from('a1a2a3a4a5a6a7a8', 'hex');
    const expected = pbkdf2Sync('00112233445566778899aabbccddeeff00112233', client, 10000, 20, 'sha1');
    expect(await deriveTwoStepKey(server, client, 10000, 20)).toEqual(expected);
    const sizes = { serverSize: 20, clientSize: 8, difficulty: 10000 };
    const finish = { step: 'finish' as const, sizes, serverPart: server, keyLength: 20 };
    expect(await twoStepKey(finish, client.toString('hex'))).toEqual(expected);
    await expect(twoStepKey(finish, 'a1a2')).rejects.toThrow(ParameterError);
    await expect(twoStepKey(finish, undefined)).rejects.toThrow(ParameterError);
    await expect(twoStepKey(finish, 'zz'.repeat(8))).rejects.toThrow(ParameterError);
    expect(await twoStepKey({ step: 'init', sizes: { ...sizes, serverSize: 12 } }, undefined)).toHaveLength(
      12,
    );
  });

  it('the first step announces salt, output and difficulty and waits for the client', () => {
    const first = twoStepInit({ serverSize: 20, clientSize: 8, difficulty: 10000 }, 32);
    expect(first.detail).toEqual({ '2step_salt': 8, '2step_output': 32, '2step_difficulty': 10000 });
    expect(first.rolloutState).toBe('clientwait');
    expect(first.info['2step_output']).toBe('32');
  });
});

describe('HOTP AutoResync', () => {
  const key = Buffer.from('3132333435363738393031323334353637383930', 'hex');
  const value = (c: number) => {
    const msg = Buffer.alloc(8);
    msg.writeBigUInt64BE(BigInt(c));
    const h = createHmac('sha1', key).update(msg).digest();
    const o = h[h.length - 1]! & 0xf;
    return String((h.readUInt32BE(o) & 0x7fffffff) % 1e6).padStart(6, '0');
  };
  const token = (info: Record<string, string> = {}): TokenState => ({
    serial: 'H',
    type: 'hotp',
    otplen: 6,
    count: 0,
    countWindow: 10,
    syncWindow: 1000,
    info,
    key: () => key,
  });
  const hotp = new HotpType();
  const now = new Date(1_000_000_000_000);

  it('remembers a value within the sync window, accepts the next one before dueDate', () => {
    expect(hotp.autoResync(token(), value(40), now, 300)).toEqual({
      match: null,
      remember: { otp1c: '40', dueDate: '1000000300' },
    });
    const remembered = token({ otp1c: '40', dueDate: '1000000300' });
    expect(hotp.autoResync(remembered, value(41), now, 300)).toEqual({
      match: { counter: 41, newCount: 42 },
      forget: true,
    });
    expect(hotp.autoResync(remembered, value(42), now, 300)).toEqual({ match: null, forget: true });
    expect(hotp.autoResync(remembered, value(41), new Date(1_000_000_300_000), 300)).toEqual({
      match: null,
      forget: true,
    });
    expect(hotp.autoResync(remembered, value(1500), now, 300)).toEqual({ match: null });
  });
});
