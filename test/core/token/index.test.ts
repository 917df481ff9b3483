// "Adding a token type is one file plus one registry line" (issue 15): ToyType, a type that exists
// only in the tests (test/helpers/toy-token-type.ts), is registered by one line in a test registry.
// The policy definitions then carry its enroll right, its own actions and the actions of every
// type, and the token service enrolls (with its parameter defaults, enrollment policies, PIN rules
// and verify_enrollment), verifies, resynchronizes, finds by OTP and imports it through the
// TokenType interface alone. Randomness comes from the runtime: the generated seed is pinned.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enrollableTypes } from '../../../src/core/auth/index.ts';
import { type Context, type Random, withCaller } from '../../../src/core/context.ts';
import { policyDefinitions, setPolicy } from '../../../src/core/policy/index.ts';
import { importTokens, initToken, resyncToken, serialByOtp } from '../../../src/core/token/index.ts';
import { findToken } from '../../../src/core/token/store/index.ts';
import { PolicyError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { hotp } from '../../helpers/otp.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

vi.mock('../../../src/tokens/registry.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/tokens/registry.ts')>();
  const { ToyType } = await import('../../helpers/toy-token-type.ts');
  // The one registry line.
  return { ...real, ...real.registryOf([...real.tokenTypes(), new ToyType()]) };
});

/** Every byte drawn is 7, every number the smallest allowed. */
const PINNED: Random = {
  bytes: (size) => Buffer.alloc(size, 7),
  int: (min, max) => (max === undefined ? 0 : min),
  uuid: () => '00000000-0000-4000-8000-000000000000',
};
const KEY = '07'.repeat(20);

describe.each(testDialects())('a token type registered by one line on %s', (dialect) => {
  let t: TestRuntime;
  /** An administrator who logged in: the admin policies apply (the CLI operator is exempt). */
  let admin: Context;

  beforeAll(async () => {
    t = await openTestRuntime(dialect, { random: PINNED });
    admin = withCaller(t.rt, {
      role: 'admin',
      username: 'admin',
      realm: '',
      authtype: 'password',
      client: '',
    });
    await setPolicy(t.ctx, 'toy-admin', {
      scope: 'admin',
      action: 'enrollTOY, enrollpin, resync, importtokens, toy_otplen=8, toy_otp_pin_minlength=4',
    });
    await setPolicy(t.ctx, 'toy-enrollment', {
      scope: 'enrollment',
      action: 'verify_enrollment=toy, toy_greeting=hi, toy_max_token_per_user=2',
    });
  });
  afterAll(async () => t.close());

  it('has its enroll right, its own actions and the actions of every type in the definitions', async () => {
    const { actionDef } = policyDefinitions();
    expect(actionDef('admin', 'enrollTOY')).toMatchObject({
      type: 'bool',
      description: 'Enroll Toy: a token type of the tests.',
      group: 'enrollment',
    });
    expect(actionDef('user', 'enrollTOY')?.type).toBe('bool');
    expect(actionDef('admin', 'toy_otplen')?.type).toBe('int');
    expect(actionDef('enrollment', 'toy_greeting')?.type).toBe('str');
    expect(actionDef('admin', 'toy_otp_pin_minlength')?.type).toBe('int');
    expect(actionDef('user', 'toy_otp_pin_contents')?.type).toBe('str');
    expect(actionDef('enrollment', 'toy_max_token_per_user')?.type).toBe('int');
    expect(actionDef('enrollment', 'toy_otplen')).toBeUndefined();
    expect(await enrollableTypes(admin)).toEqual({ toy: 'Enroll Toy: a token type of the tests.' });
  });

  it('is enrolled with its PIN rule, its parameter default, its enrollment policy and a pinned seed', async () => {
    await expect(initToken(admin, { type: 'toy', serial: 'TOY1', genkey: '1', pin: '12' })).rejects.toThrow(
      new PolicyError('The minimum OTP PIN length is 4'),
    );
    const { detail } = await initToken(admin, { type: 'toy', serial: 'TOY1', genkey: '1', pin: '1234' });
    expect(detail).toMatchObject({
      serial: 'TOY1',
      rollout_state: 'verify',
      greeting: 'hi',
      otpkey: { value: `seed://${KEY}` },
      verify: { message: 'Please enter a valid OTP value of the new token.' },
    });
    const token = (await findToken(t.ctx, 'TOY1'))!;
    expect(token.row.otplen).toBe(8);
    expect(token.info).toMatchObject({ toy: 'enrolled', tokenkind: 'software' });
  });

  it('verifies its enrollment, resynchronizes and is found by an OTP value', async () => {
    const verified = await initToken(admin, { type: 'toy', serial: 'TOY1', verify: hotp(KEY, 0, 8) });
    expect(verified.detail).toEqual({ serial: 'TOY1', rollout_state: 'enrolled' });
    expect(await resyncToken(admin, { serial: 'TOY1' }, hotp(KEY, 100, 8), hotp(KEY, 101, 8))).toBe(true);
    expect(Number((await findToken(t.ctx, 'TOY1'))!.row.count)).toBe(102);
    expect(await serialByOtp(admin, hotp(KEY, 105, 8), { window: 10 })).toEqual({ serial: 'TOY1', count: 1 });
    expect(Number((await findToken(t.ctx, 'TOY1'))!.row.count)).toBe(106);
  });

  it('is imported from a token file, with what its type reads of the entry', async () => {
    const secret = Buffer.from(KEY, 'hex').toString('base64');
    const content = `<?xml version="1.0" encoding="UTF-8"?>
<KeyContainer Version="1.0" xmlns="urn:ietf:params:xml:ns:keyprov:pskc">
  <KeyPackage>
    <DeviceInfo><SerialNo>TOY9</SerialNo></DeviceInfo>
    <Key Id="TOY9" Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:toy">
      <AlgorithmParameters><ResponseFormat Length="6" Encoding="DECIMAL"/></AlgorithmParameters>
      <Data><Secret><PlainValue>${secret}</PlainValue></Secret><Counter><PlainValue>7</PlainValue></Counter></Data>
    </Key>
  </KeyPackage>
</KeyContainer>`;
    const result = await importTokens(admin, { type: 'pskc', content });
    expect(result).toMatchObject({ n_imported: 1, imported: ['TOY9'] });
    const token = (await findToken(t.ctx, 'TOY9'))!;
    expect(token.row.tokentype).toBe('toy');
    expect(Number(token.row.count)).toBe(7);
    expect(token.info).toMatchObject({ toy: 'imported', tokenkind: 'hardware' });
  });
});
