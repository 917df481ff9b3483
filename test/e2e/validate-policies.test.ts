// The authentication and authorization policies of /validate over HTTP (issue 5; reference 4.1,
// 4.2.1, 4.2.3, 4.3): set_realm, setrealm, mangle, auth_cache, auth_max_fail, auth_max_success,
// last_auth, force_challenge_response, preferred_client_mode, challenge_text_header/footer,
// disabled_token_types, authorization tokeninfo and api_key_required, with their exact messages.
import { afterEach, describe, expect, it } from 'vitest';
import { issueJwt } from '../../src/core/auth/auth.ts';
import type { Context, Role } from '../../src/core/context.ts';
import { deletePolicy, type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { setTokenInfo } from '../../src/core/token/store/index.ts';
import { check as coreCheck } from '../../src/core/validate/check.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';

const START = new Date('2026-03-01T12:00:00Z');

describe.each(testDialects())('/validate policies on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let now = START;

  useTokenServer(
    dialect,
    {
      clock: () => now,
      realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)], realm2: [pwUser('erin', 2001)] },
      reset: ['policies', 'tokens', 'audit'],
    },
    (t) => ({ s, op } = t),
  );
  afterEach(() => {
    now = START;
  });

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const enroll = async (params: Record<string, string>) => (await initToken(op, params)).serial;
  const hotpFor = (user: string, pin = '1234', realm = 'realm1') =>
    enroll({ type: 'hotp', otpkey: KEY, pin, user, realm });
  const check = async (params: Record<string, string>, path = '/validate/check') =>
    (await validateOk(s, params, path)).json;
  const later = (seconds: number) => {
    now = new Date(now.getTime() + seconds * 1000);
  };
  const tokenInfo = async (serial: string) => {
    const row = await s.rt.store.db
      .selectFrom('token')
      .select('id')
      .where('serial', '=', serial)
      .executeTakeFirstOrThrow();
    const rows = await s.rt.store.db
      .selectFrom('tokeninfo')
      .selectAll()
      .where('token_id', '=', row.id)
      .execute();
    return { id: row.id, info: Object.fromEntries(rows.map((r) => [r.key, r.value])) };
  };

  it('rewrites the realm with set_realm and setrealm; conflicting setrealm policies are refused', async () => {
    const serial = await hotpFor('erin', '1234', 'realm2');
    // erin is unknown in the default realm realm1 until a policy moves the request to realm2.
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'erin', pass: `1234${hotp(KEY, 0)}` }),
      904,
      'User <erin@realm1> does not exist.',
    );
    await policy('sr', { scope: 'authentication', action: 'set_realm=realm2', realm: 'realm1' });
    const r = await check({ user: 'erin', pass: `1234${hotp(KEY, 0)}` });
    expect(r.detail).toMatchObject({ message: 'matching 1 tokens', serial });
    await deletePolicy(op, 'sr');

    await policy('az', { scope: 'authorization', action: 'setrealm=realm2', user: 'erin' });
    expect((await check({ user: 'erin', pass: `1234${hotp(KEY, 1)}` })).result.value).toBe(true);
    await policy('az2', { scope: 'authorization', action: 'setrealm=realm1', user: 'erin' });
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'erin', pass: `1234${hotp(KEY, 2)}` }),
      303,
      'I do not know, to which realm I should set the new realm. Conflicting policies exist.',
    );
  });

  it('rewrites user, realm and pass with mangle', async () => {
    const serial = await hotpFor('alice');
    await policy('m', {
      scope: 'authentication',
      action: 'mangle=user/^corp-(.*)$/\\1/ pass/^X// realm/^.*$/realm1/',
    });
    const r = await check({ user: 'corp-alice', realm: 'realm2', pass: `X1234${hotp(KEY, 0)}` });
    expect(r.detail).toMatchObject({ message: 'matching 1 tokens', serial });
    const row = await s.rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('serial', '=', serial)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ user: 'alice', realm: 'realm1' });
    // A name the regex does not match stays as it is.
    expect((await check({ user: 'alice', pass: `X1234${hotp(KEY, 1)}` })).result.value).toBe(true);
  });

  it('accepts a repeated password from auth_cache within its window and count', async () => {
    await hotpFor('alice');
    const pass = `1234${hotp(KEY, 0)}`;
    await policy('ac', { scope: 'authentication', action: 'auth_cache=1h/2' });
    expect((await check({ user: 'alice', pass })).detail.message).toBe('matching 1 tokens');
    for (let i = 0; i < 2; i++) {
      const r = await check({ user: 'alice', pass });
      expect(r.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
      expect(r.detail.message).toBe('Authenticated by AuthCache.');
    }
    // The third use from the cache is over the count: the token itself refuses the used OTP.
    expect((await check({ user: 'alice', pass })).detail.message).toBe(
      'wrong otp value. previous otp used again',
    );
    // A wrong password is never cached.
    expect((await check({ user: 'alice', pass: 'wrong' })).result.value).toBe(false);
    expect((await check({ user: 'alice', pass: 'wrong' })).detail.message).toBe('wrong otp pin');

    await policy('ac', { scope: 'authentication', action: 'auth_cache=4h/5m' });
    const next = `1234${hotp(KEY, 1)}`;
    expect((await check({ user: 'alice', pass: next })).detail.message).toBe('matching 1 tokens');
    later(4 * 60);
    expect((await check({ user: 'alice', pass: next })).detail.message).toBe('Authenticated by AuthCache.');
    later(6 * 60);
    expect((await check({ user: 'alice', pass: next })).result.value).toBe(false);

    await policy('ac', { scope: 'authentication', action: 'auth_cache=1h' });
    const third = `1234${hotp(KEY, 2)}`;
    expect((await check({ user: 'alice', pass: third })).result.value).toBe(true);
    later(59 * 60);
    expect((await check({ user: 'alice', pass: third })).detail.message).toBe('Authenticated by AuthCache.');
    later(2 * 60);
    expect((await check({ user: 'alice', pass: third })).result.value).toBe(false);
  });

  it('refuses after auth_max_fail failures in the period, counted in the audit log', async () => {
    await hotpFor('alice');
    await policy('mf', { scope: 'authorization', action: 'auth_max_fail=2/5m' });
    for (let i = 0; i < 2; i++)
      expect((await check({ user: 'alice', pass: 'nope' })).result.value).toBe(false);
    const refused = await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(refused.result).toMatchObject({ value: false, authentication: 'REJECT' });
    expect(refused.detail.message).toBe('Only 2 failed authentications per 0:05:00 allowed.');
    // bob is not affected; after the period alice may again.
    await hotpFor('bob');
    expect((await check({ user: 'bob', pass: `1234${hotp(KEY, 0)}` })).result.value).toBe(true);
    later(6 * 60);
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).result.value).toBe(true);
  });

  it('refuses after auth_max_success successes in the period, /auth logins included', async () => {
    await hotpFor('alice');
    await policy('ms', { scope: 'authorization', action: 'auth_max_success=3/1h' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).result.value).toBe(true);
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 1)}` })).result.value).toBe(true);
    expect((await s.call('POST', '/auth', { username: 'alice', password: 'alicepw' })).status).toBe(200);
    const refused = await check({ user: 'alice', pass: `1234${hotp(KEY, 2)}` });
    expect(refused.result.value).toBe(false);
    expect(refused.detail.message).toBe('Only 3 successful authentications per 1:00:00 allowed.');
    await policy('ms', { scope: 'authorization', action: 'auth_max_success=9/2d' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 2)}` })).result.value).toBe(true);
    await policy('ms', { scope: 'authorization', action: 'auth_max_success=1/1d' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 3)}` })).detail.message).toBe(
      'Only 1 successful authentications per 1 day, 0:00:00 allowed.',
    );
  });

  it('stamps last_auth on success and refuses a token that last authenticated too long ago', async () => {
    const serial = await hotpFor('alice');
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).result.value).toBe(true);
    const stamped = (await tokenInfo(serial)).info.last_auth!;
    expect(stamped).toMatch(/^2026-0[23]-\d{2} \d{2}:\d{2}:00\.000000[+-]\d{4}$/);
    await policy('la', { scope: 'authorization', action: 'last_auth=1h' });
    later(30 * 60);
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 1)}` })).result.value).toBe(true);
    const recent = (await tokenInfo(serial)).info.last_auth!;
    later(2 * 3600);
    const refused = await check({ user: 'alice', pass: `1234${hotp(KEY, 2)}` });
    expect(refused.result).toMatchObject({ value: false, authentication: 'REJECT' });
    expect(refused.detail).toMatchObject({
      message: `The last successful authentication was ${recent}. It is too long ago.`,
      serial,
    });
    // The serial path applies it too; the stamp is not renewed by a refusal.
    const bySerial = await check({ serial, pass: `1234${hotp(KEY, 3)}` });
    expect(bySerial.detail.message).toBe(
      `The last successful authentication was ${recent}. It is too long ago.`,
    );
    await policy('la', { scope: 'authorization', action: 'last_auth=1d' });
    expect((await check({ serial, pass: `1234${hotp(KEY, 4)}` })).result.value).toBe(true);
  });

  it('allows only challenge-response with force_challenge_response', async () => {
    await hotpFor('alice');
    await policy('cr', {
      scope: 'authentication',
      action: 'challenge_response=hotp, force_challenge_response',
    });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).detail.message).toBe(
      'wrong otp pin',
    );
    const challenge = await check({ user: 'alice', pass: '1234' });
    expect(challenge.result.authentication).toBe('CHALLENGE');
    const answer = await check({
      user: 'alice',
      pass: hotp(KEY, 0),
      transaction_id: challenge.detail.transaction_id,
    });
    expect(answer.detail.message).toBe('Found matching challenge');
    expect(answer.result.value).toBe(true);
  });

  it('adds preferred_client_mode and wraps the messages in challenge_text_header/footer', async () => {
    await hotpFor('alice');
    await hotpFor('alice');
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    const plain = await check({ user: 'alice', pass: '1234' });
    expect(plain.detail.preferred_client_mode).toBe('interactive');
    expect(plain.detail.message).toBe('please enter otp: ');

    await policy('pcm', { scope: 'authentication', action: 'preferred_client_mode=poll webauthn' });
    expect((await check({ user: 'alice', pass: '1234' })).detail.preferred_client_mode).toBe('interactive');
    await policy('pcm', { scope: 'authentication', action: 'preferred_client_mode=poll interactive' });
    expect((await check({ user: 'alice', pass: '1234' })).detail.preferred_client_mode).toBe('interactive');

    await policy('hf', {
      scope: 'authentication',
      action: 'challenge_text_header=Choose one:<ul>, challenge_text_footer=</ul>',
    });
    expect((await check({ user: 'alice', pass: '1234' })).detail.message).toBe(
      'Choose one:<ul><li>please enter otp: </li>\n</ul>',
    );
    await policy('hf', {
      scope: 'authentication',
      action: 'challenge_text_header=Your tokens:, challenge_text_footer=Thanks',
    });
    expect((await check({ user: 'alice', pass: '1234' })).detail.message).toBe(
      'Your tokens:\nplease enter otp: \nThanks',
    );
    // Only answers with challenges are touched.
    expect((await check({ user: 'alice', pass: 'nope' })).detail).not.toHaveProperty('preferred_client_mode');
    expect((await check({ user: 'alice', pass: 'nope' })).detail.message).toBe('wrong otp pin');
  });

  it('ignores the token types of disabled_token_types', async () => {
    await hotpFor('alice');
    await policy('dt', { scope: 'authentication', action: 'disabled_token_types=hotp totp' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).detail.message).toBe(
      'No suitable token found for authentication.',
    );
    await enroll({ type: 'spass', pin: 'sp', user: 'alice', realm: 'realm1' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).detail.message).toBe(
      'wrong otp pin',
    );
    expect((await check({ user: 'alice', pass: 'sp' })).result.value).toBe(true);
  });

  it('requires the tokeninfo of the authorization policy tokeninfo', async () => {
    const serial = await hotpFor('alice');
    await policy('ti', { scope: 'authorization', action: 'tokeninfo=location/^off/' });
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 0)}` }),
      303,
      'Tokeninfo field location with contents does not match regular expression.',
    );
    const { id } = await tokenInfo(serial);
    await setTokenInfo(s.rt, s.rt.store.db, id, { location: 'office' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 1)}` })).result.value).toBe(true);
    // A failed check is not looked at.
    expect((await check({ user: 'alice', pass: 'nope' })).detail.message).toBe('wrong otp pin');
  });

  it('requires an API key of role validate with api_key_required', async () => {
    await hotpFor('alice');
    await policy('ak', { scope: 'authorization', action: 'api_key_required' });
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 0)}` }),
      303,
      'No valid API key was passed.',
    );
    expectServiceError(
      await s.call('GET', '/validate/polltransaction', { transaction_id: '123' }),
      303,
      'No valid API key was passed.',
    );
    const caller = { username: 'pam', realm: 'API', authtype: 'password' as const, client: '' };
    const apiKey = await issueJwt(s.rt, { ...caller, role: 'validate' as unknown as Role }, []);
    const adminJwt = await issueJwt(s.rt, { ...caller, role: 'admin' }, []);
    // Over HTTP the key comes in Authorization (or PI-Authorization).
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 0)}` }, adminJwt),
      303,
      'A correct JWT was passed, but it was no API key.',
    );
    const viaHttp = await s.call(
      'POST',
      '/validate/check',
      { user: 'alice', pass: `1234${hotp(KEY, 0)}` },
      apiKey,
    );
    expect(viaHttp.json.result.value).toBe(true);
    expect(ok(await s.call('GET', '/validate/polltransaction', { transaction_id: '123' }, apiKey))).toBe(
      false,
    );
    const input = { user: 'alice', pass: `1234${hotp(KEY, 1)}`, client: '127.0.0.1' };
    await expect(coreCheck(s.rt, { ...input, apiKey: { authorization: 'garbage' } })).rejects.toThrow(
      'No valid API key was passed.',
    );
    await expect(coreCheck(s.rt, { ...input, apiKey: { authorization: adminJwt } })).rejects.toThrow(
      'A correct JWT was passed, but it was no API key.',
    );
    expect((await coreCheck(s.rt, { ...input, apiKey: { authorization: apiKey } })).value).toBe(true);
    // The policy guards the endpoint: a check from elsewhere (the CLI, /auth) needs no key.
    expect((await coreCheck(s.rt, { ...input, pass: `1234${hotp(KEY, 2)}` })).value).toBe(true);
    // Policies for other users leave bob's checks open.
    await policy('ak', { scope: 'authorization', action: 'api_key_required', user: 'alice' });
    await hotpFor('bob');
    expect((await check({ user: 'bob', pass: `1234${hotp(KEY, 0)}` })).result.value).toBe(true);
  });
});
