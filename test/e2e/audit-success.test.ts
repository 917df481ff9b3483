// The success column of the authentication endpoints' audit rows (issue 16 item 10; reference 7.4
// with privacyIDEA's api/validate.py and api/auth.py): the outcome of the authentication, not of
// the request. A check or a login succeeds only when it accepts (a REJECT or a CHALLENGE is no
// success), a triggerchallenge when it created challenges, a poll when the challenge was
// answered. Failed-login reports, SIEM queries and auth_max_fail count success=0.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { markAnswered } from '../../src/core/validate/challenge-store.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';

const KEY = '3132333435363738393031323334353637383930';

describe.each(testDialects())('the success of authentications in the audit on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)] },
      reset: ['policies', 'tokens', 'audit'],
    },
    (t) => ({ s, op, admin } = t),
  );

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const hotpFor = async (user: string) =>
    (await initToken(op, { type: 'hotp', otpkey: KEY, pin: '1234', user, realm: 'realm1' })).serial;
  /** The success and authentication columns of the row the request wrote. */
  async function row(method: string, path: string, params: Record<string, string>, token?: string) {
    await s.call(method, path, params, token);
    const r = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'authentication'])
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirstOrThrow();
    return [r.success, r.authentication];
  }

  it('records a check, samlcheck and radiuscheck as a success only when it accepts', async () => {
    await hotpFor('alice');
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    for (const path of ['/validate/check', '/validate/samlcheck', '/validate/radiuscheck']) {
      expect(await row('POST', path, { user: 'alice', pass: '0000000000' })).toEqual([0, 'REJECT']);
      expect(await row('POST', path, { user: 'ghost', pass: 'x' })).toEqual([0, '']);
      expect(await row('POST', path, { user: 'alice', pass: '1234' })).toEqual([0, 'CHALLENGE']);
    }
    expect(await row('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 0)}` })).toEqual([
      1,
      'ACCEPT',
    ]);
    expect(await row('POST', '/validate/samlcheck', { user: 'alice', pass: `1234${hotp(KEY, 1)}` })).toEqual([
      1,
      'ACCEPT',
    ]);
    expect(
      await row('POST', '/validate/radiuscheck', { user: 'alice', pass: `1234${hotp(KEY, 2)}` }),
    ).toEqual([1, 'ACCEPT']);
  });

  it('records a triggerchallenge as a success when it created challenges, a poll when answered', async () => {
    await hotpFor('alice');
    expect(await row('POST', '/validate/triggerchallenge', { user: 'alice' }, admin)).toEqual([
      1,
      'CHALLENGE',
    ]);
    expect(await row('POST', '/validate/triggerchallenge', { user: 'bob' }, admin)).toEqual([0, 'REJECT']);
    const tid = (
      await s.rt.store.db.selectFrom('challenge').select('transaction_id').executeTakeFirstOrThrow()
    ).transaction_id;
    expect(await row('GET', '/validate/polltransaction', { transaction_id: tid })).toEqual([0, 'REJECT']);
    await markAnswered(s.rt, tid);
    expect(await row('GET', '/validate/polltransaction', { transaction_id: tid })).toEqual([1, 'ACCEPT']);
    expect(await row('POST', '/validate/check', { user: 'alice', transaction_id: tid, pass: '' })).toEqual([
      1,
      'ACCEPT',
    ]);
  });

  it('records a login as a success only when it issued a token', async () => {
    await hotpFor('bob');
    await policy('pi', { scope: 'webui', action: 'login_mode=privacyIDEA', realm: 'realm1', user: 'bob' });
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    expect(await row('POST', '/auth', { username: 'alice', password: 'alicepw' })).toEqual([1, 'ACCEPT']);
    expect(await row('POST', '/auth', { username: 'alice', password: 'wrong' })).toEqual([0, 'REJECT']);
    expect(await row('POST', '/auth', { username: 'bob', password: '1234' })).toEqual([0, 'CHALLENGE']);
  });

  it('counts the failed logins of a user with the failed checks for auth_max_fail', async () => {
    await hotpFor('alice');
    await policy('mf', { scope: 'authorization', action: 'auth_max_fail=2/1h' });
    for (const username of ['alice', 'alice@realm1'])
      expect((await s.call('POST', '/auth', { username, password: 'wrong' })).status).toBe(401);
    const refused = await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(refused.json.detail.message).toBe('Only 2 failed authentications per 1:00:00 allowed.');
  });

  it('counts neither a success nor a failure for a login that only asked for a challenge', async () => {
    await hotpFor('bob');
    await policy('pi', { scope: 'webui', action: 'login_mode=privacyIDEA', realm: 'realm1', user: 'bob' });
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    // A login that only asked for a challenge is neither a success nor a failure.
    for (let i = 0; i < 2; i++)
      expect(
        (await s.call('POST', '/auth', { username: 'bob', password: '1234' })).json.result.authentication,
      ).toBe('CHALLENGE');
    await policy('limits', { scope: 'authorization', action: 'auth_max_success=2/1h, auth_max_fail=1/1h' });
    const ok = await s.call('POST', '/validate/check', { user: 'bob', pass: `1234${hotp(KEY, 0)}` });
    expect(ok.json.result.value).toBe(true);
    const wrong = await s.call('POST', '/validate/check', { user: 'bob', pass: '0000000000' });
    expect(wrong.json.detail.message).toBe('wrong otp pin');
    const refused = await s.call('POST', '/validate/check', { user: 'bob', pass: `1234${hotp(KEY, 1)}` });
    expect(refused.json.detail.message).toBe('Only 1 failed authentications per 1:00:00 allowed.');
  });
});
