// Enumeration at the checks: which outcomes and errors hide_specific_error_message answers as the
// generic REJECT, and what the audit keeps of them.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compiledPolicies, deletePolicy, setPolicy } from '../../../src/core/policy/index.ts';
import {
  type CheckProgress,
  HIDDEN_MESSAGE,
  hiddenFailure,
  hidesOutcome,
  NOT_THE_USERS_TOKEN,
} from '../../../src/core/validate/enumeration.ts';
import { RequestPolicies } from '../../../src/core/validate/policies.ts';
import {
  ERR,
  ParameterError,
  PolicyError,
  ResourceNotFoundError,
  TokenAdminError,
  UserError,
} from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('enumeration at the checks on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());
  afterEach(async () => {
    await deletePolicy(t.ctx, 'hide').catch(() => undefined);
  });

  const hide = (user?: string) =>
    setPolicy(t.ctx, 'hide', {
      scope: 'authentication',
      action: 'hide_specific_error_message',
      ...(user ? { user } : {}),
    });
  const seen: CheckProgress = { who: { login: 'ghost', realm: 'r1' }, client: '192.0.2.1', serial: 'S1' };
  const policies = async () => new RequestPolicies(await compiledPolicies(t.rt), t.rt, seen.who, seen.client);
  const telling = () => [
    new UserError('User <ghost@r1> does not exist.'),
    new ResourceNotFoundError('The requested token could not be found.'),
    new ParameterError(NOT_THE_USERS_TOKEN),
    new TokenAdminError('This action is not possible, since the token is locked', ERR.TokenLocked),
  ];

  it('hides a failure, never a success or a challenge, and only under the policy', async () => {
    const fail = { value: false, detail: { message: 'wrong otp pin' } };
    const challenge = { value: false, detail: { message: 'please enter otp', multi_challenge: [{}] } };
    expect(hidesOutcome(fail, await policies())).toBe(false);
    await hide();
    expect(hidesOutcome(fail, await policies())).toBe(true);
    expect(hidesOutcome(challenge, await policies())).toBe(false);
    expect(hidesOutcome({ value: true, detail: {} }, await policies())).toBe(false);
  });

  it('turns the telling errors into the generic REJECT, the reason in the audit', async () => {
    await hide();
    const set = await compiledPolicies(t.rt);
    for (const e of telling()) {
      expect(hiddenFailure(t.rt, set, seen, e)).toEqual({
        value: false,
        detail: { message: HIDDEN_MESSAGE },
        user: undefined,
        audit: { user: 'ghost', realm: 'r1', resolver: '', serial: 'S1', tokenType: '', info: e.message },
      });
    }
    // Malformed requests and policy refusals tell nothing of users or tokens: they stay errors.
    for (const e of [new ParameterError('Invalid serial number.'), new PolicyError('no'), new Error('bug')])
      expect(() => hiddenFailure(t.rt, set, seen, e)).toThrow(e.message);
  });

  it('rethrows every error without the policy, or when it is for another user', async () => {
    for (const user of [undefined, 'bob']) {
      if (user) await hide(user);
      const set = await compiledPolicies(t.rt);
      for (const e of telling()) expect(() => hiddenFailure(t.rt, set, seen, e)).toThrow(e.message);
    }
  });
});
