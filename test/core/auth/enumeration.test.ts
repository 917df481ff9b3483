// Enumeration at /auth: which refusals hide_specific_error_message answers generically, and the
// password hashes an unknown login name or realm costs (counted, never timed).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  HIDDEN_LOGIN_MESSAGE,
  HiddenLoginError,
  hidingLoginFailures,
  spendAsForARealm,
  spendAsForAUser,
} from '../../../src/core/auth/enumeration.ts';
import { deletePolicy, setPolicy } from '../../../src/core/policy/index.ts';
import { hashesStarted } from '../../../src/crypto/index.ts';
import { AuthError, ERR, ParameterError, PolicyError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('enumeration at /auth on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());
  afterEach(async () => {
    await deletePolicy(t.ctx, 'hide').catch(() => undefined);
  });

  const who = async () => ({ login: 'alice', realm: 'r1', client: '192.0.2.1' });
  const failing = (e: Error) => hidingLoginFailures(t.rt, who, async () => Promise.reject(e));
  const wrong = () => new AuthError('Authentication failure. Wrong credentials', ERR.WrongCredentials);

  it('passes every failure through without the policy, and a success always', async () => {
    await expect(failing(wrong())).rejects.toThrow('Authentication failure. Wrong credentials');
    expect(await hidingLoginFailures(t.rt, who, async () => 'ok')).toBe('ok');
  });

  it('hides wrong credentials, unknown realms and disabled logins under the policy', async () => {
    await setPolicy(t.ctx, 'hide', { scope: 'authentication', action: 'hide_specific_error_message' });
    for (const e of [wrong(), new PolicyError('The login for this user is disabled.')]) {
      const hidden = await failing(e).catch((x: unknown) => x);
      expect(hidden).toBeInstanceOf(HiddenLoginError);
      expect((hidden as HiddenLoginError).message).toBe(HIDDEN_LOGIN_MESSAGE);
      expect((hidden as HiddenLoginError).code).toBe(ERR.WrongCredentials);
      expect((hidden as HiddenLoginError).httpStatus).toBe(401);
      expect((hidden as HiddenLoginError).reason).toBe(e.message);
    }
    // What tells nobody anything stays: a missing user name, an overlong password.
    await expect(
      failing(new AuthError('Authentication failure. Missing Username', ERR.MissingUsername)),
    ).rejects.toThrow('Missing Username');
    await expect(failing(new ParameterError('too long'))).rejects.toThrow('too long');
  });

  it('matches the policy on the login name tried', async () => {
    await setPolicy(t.ctx, 'hide', {
      scope: 'authentication',
      action: 'hide_specific_error_message',
      user: 'bob',
    });
    await expect(failing(wrong())).rejects.toThrow('Wrong credentials');
  });

  it('spends one argon2id check for an unknown user of a realm without a costly store, two for an unknown realm', async () => {
    const count = async (run: () => Promise<void>) => {
      const before = hashesStarted();
      await run();
      return hashesStarted() - before;
    };
    await spendAsForAUser(t.rt, undefined, 'warm-up'); // makes the decoy once
    expect(await count(() => spendAsForAUser(t.rt, 'no-such-realm', 'pw'))).toBe(1);
    expect(await count(() => spendAsForAUser(t.rt, undefined, 'pw'))).toBe(1);
    expect(await count(() => spendAsForARealm('pw'))).toBe(2);
  });
});
