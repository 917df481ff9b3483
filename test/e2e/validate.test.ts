// /validate over HTTP (issue 5; reference 4): the check on the user and serial paths with their
// exact messages, PIN handling, HOTP/TOTP/spass/pw/registration, the fail counter, challenge-
// response, triggerchallenge, polltransaction, samlcheck, radiuscheck, the authentication and
// authorization policies, login_mode=privacyIDEA, and values computed by Debian's oathtool.
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { deletePolicy, type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { setConfig } from '../../src/core/system/config.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { markAnswered } from '../../src/core/validate/challenge-store.ts';
import { removeConfig } from '../helpers/config.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { passlibArgon2 } from '../helpers/passlib-argon2.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

/** RFC 4226 test seed ("12345678901234567890"). */
const KEY = '3132333435363738393031323334353637383930';

/** RFC 4226 computed here, independently of src/tokens. */

describe.each(testDialects())('/validate on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  let now = new Date('2026-03-01T12:00:00Z');

  useTokenServer(
    dialect,
    {
      clock: () => now,
      realms: {
        realm1: [
          pwUser('alice', 1001, 'Alice Smith,,0171,0301,alice@example.com'),
          pwUser('bob', 1002),
          pwUser('carol', 1003),
          pwUser('dave', 1004),
        ],
        realm2: [pwUser('erin', 2001)],
      },
      resolvers: { realm1: 'res1', realm2: 'res2' },
      reset: ['policies', 'tokens'],
    },
    (t) => ({ s, op, admin } = t),
  );
  afterEach(async () => {
    await removeConfig(s.rt, ['PrependPin', 'IncFailCountOnFalsePin']);
    now = new Date('2026-03-01T12:00:00Z');
  });

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const enroll = async (params: Record<string, string>) => (await initToken(op, params)).serial;
  const hotpFor = (user: string, pin = '1234', realm = 'realm1') =>
    enroll({ type: 'hotp', otpkey: KEY, pin, user, realm });
  const check = async (params: Record<string, string>, path = '/validate/check') => {
    const r = await validateOk(s, params, path);
    expect(r.json.id).toBe(2);
    return r.json;
  };
  const setToken = (serial: string, values: { active?: number; revoked?: number; maxfail?: number }) =>
    s.rt.store.db.updateTable('token').set(values).where('serial', '=', serial).execute();
  const tokenRow = (serial: string) =>
    s.rt.store.db.selectFrom('token').selectAll().where('serial', '=', serial).executeTakeFirst();
  const info = async (serial: string) => {
    const row = await tokenRow(serial);
    const rows = await s.rt.store.db
      .selectFrom('tokeninfo')
      .selectAll()
      .where('token_id', '=', row!.id)
      .execute();
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  };

  it('validates the parameters with the reference messages', async () => {
    const serial = await hotpFor('alice');
    const e = (p: Record<string, string>) => s.call('POST', '/validate/check', p);
    expectServiceError(await e({ pass: 'x' }), 905, 'You need to specify a serial, user or credential_id.');
    expectServiceError(await e({ serial: 'OATH*', pass: 'x' }), 905, 'Invalid serial number.');
    expectServiceError(await e({ user: 'al%', pass: 'x' }), 905, 'Invalid user.');
    expectServiceError(
      await e({ serial: 'NOPE0001', pass: 'x' }),
      601,
      'The requested token could not be found.',
    );
    expectServiceError(await e({ user: 'nobody', pass: 'x' }), 904, 'User <nobody@realm1> does not exist.');
    expectServiceError(
      await e({ user: 'erin', realm: 'realm2', serial, pass: 'x' }),
      905,
      'Given serial does not belong to given user!',
    );
    expectServiceError(
      await e({ user: 'alice', realm: 'nope', pass: 'x' }),
      904,
      'User <alice@nope> does not exist.',
    );
    // A missing pass is a rejection, never a 500.
    expect((await check({ user: 'alice' })).result.value).toBe(false);
  });

  it('accepts PIN+HOTP once, within the look-ahead window, with detail and counters', async () => {
    const serial = await hotpFor('alice');
    const r = await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(r.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
    expect(r.detail).toMatchObject({ message: 'matching 1 tokens', serial, type: 'hotp', otplen: 6 });
    const again = await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(again.result).toMatchObject({ value: false, authentication: 'REJECT' });
    expect(again.detail).toMatchObject({
      message: 'wrong otp value. previous otp used again',
      serial,
      type: 'hotp',
    });
    // Counter 1..10 is the window: 6 is inside, afterwards 3 (behind) is refused.
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 6)}` })).result.value).toBe(true);
    const behind = await check({ user: 'alice', pass: `1234${hotp(KEY, 3)}` });
    expect(behind.detail.message).toBe('wrong otp value');
    const far = await check({ user: 'alice', pass: `1234${hotp(KEY, 30)}` });
    expect(far.detail.message).toBe('wrong otp value');
    expect((await check({ user: 'alice', pass: `9999${hotp(KEY, 7)}` })).detail).toEqual({
      message: 'wrong otp pin',
      threadid: expect.any(Number),
    });
    expect(await info(serial)).toMatchObject({ count_auth_success: '2', count_auth: '6' });
    // user@realm, realm\user and the serial path.
    expect((await check({ user: 'alice@realm1', pass: `1234${hotp(KEY, 7)}` })).result.value).toBe(true);
    expect((await check({ user: 'realm1\\alice', pass: `1234${hotp(KEY, 8)}` })).result.value).toBe(true);
    expect((await check({ serial, pass: `1234${hotp(KEY, 9)}` })).result.value).toBe(true);
    expect((await check({ serial, user: 'alice', pass: `1234${hotp(KEY, 10)}` })).result.value).toBe(true);
    expect((await check({ serial, otponly: '1', pass: hotp(KEY, 11) })).result.value).toBe(true);
  });

  it("re-hashes an imported PIN of other argon2id parameters with authsrv's at its first right check", async () => {
    const serial = await hotpFor('alice');
    const imported = passlibArgon2('4711');
    await s.rt.store.db
      .updateTable('token')
      .set({ pin_hash: imported })
      .where('serial', '=', serial)
      .execute();
    expect((await check({ user: 'alice', pass: `0000${hotp(KEY, 0)}` })).detail.message).toBe(
      'wrong otp pin',
    );
    expect((await tokenRow(serial))!.pin_hash).toBe(imported);
    expect((await check({ user: 'alice', pass: `4711${hotp(KEY, 1)}` })).result.value).toBe(true);
    const rehashed = (await tokenRow(serial))!.pin_hash;
    expect(rehashed).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await check({ user: 'alice', pass: `4711${hotp(KEY, 2)}` })).result.value).toBe(true);
    expect((await check({ user: 'alice', pass: `4712${hotp(KEY, 3)}` })).detail.message).toBe(
      'wrong otp pin',
    );
    expect((await tokenRow(serial))!.pin_hash).toBe(rehashed);
  });

  it('splits OTP first when PrependPin is false', async () => {
    await hotpFor('alice');
    await setConfig(op, [{ key: 'PrependPin', value: 'false' }]);
    expect((await check({ user: 'alice', pass: `${hotp(KEY, 0)}1234` })).result.value).toBe(true);
  });

  it('checks TOTP on the server clock, refuses a replay, accepts the next step', async () => {
    const serial = await enroll({ type: 'totp', otpkey: KEY, pin: 'tp', user: 'bob', realm: 'realm1' });
    const step = Math.floor(now.getTime() / 30_000);
    const r = await check({ user: 'bob', pass: `tp${hotp(KEY, step)}` });
    expect(r.detail).toMatchObject({ message: 'matching 1 tokens', serial, type: 'totp' });
    expect((await check({ user: 'bob', pass: `tp${hotp(KEY, step)}` })).result.value).toBe(false);
    now = new Date(now.getTime() + 30_000);
    expect((await check({ user: 'bob', pass: `tp${hotp(KEY, step + 1)}` })).result.value).toBe(true);
    // Far outside the window (default 180 s).
    expect((await check({ user: 'bob', pass: `tp${hotp(KEY, step + 40)}` })).result.value).toBe(false);
  });

  it('checks spass (PIN only), pw (PIN+password) and a single-use registration code', async () => {
    const sp = await enroll({ type: 'spass', pin: 'static-secret', user: 'carol', realm: 'realm1' });
    const r = await check({ user: 'carol', pass: 'static-secret' });
    expect(r.detail).toMatchObject({ message: 'matching 1 tokens', serial: sp, type: 'spass' });
    expect((await check({ user: 'carol', pass: 'static' })).detail.message).toBe('wrong otp pin');

    await enroll({ type: 'pw', otpkey: 'Passw0rd!', pin: 'p', user: 'dave', realm: 'realm1' });
    expect((await check({ user: 'dave', pass: 'pPassw0rd!' })).result.value).toBe(true);
    expect((await check({ user: 'dave', pass: 'pPassw0rd?' })).detail.message).toBe('wrong otp value');

    const reg = await initToken(op, { type: 'registration', user: 'bob', realm: 'realm1' });
    const code = reg.detail.registrationcode as string;
    expect((await check({ user: 'bob', pass: code })).result.value).toBe(true);
    expect(await tokenRow(reg.serial)).toBeUndefined();
    expect((await check({ user: 'bob', pass: code })).detail.message).toBe('The user has no tokens assigned');
  });

  it('counts failures up to maxfail, then answers Failcounter exceeded; disabled and revoked tokens', async () => {
    const serial = await hotpFor('alice');
    await setToken(serial, { maxfail: 3 });
    for (let i = 0; i < 3; i++)
      expect((await check({ user: 'alice', pass: '0000000000' })).detail.message).toBe('wrong otp pin');
    expect((await tokenRow(serial))!.failcount).toBe(3);
    expect((await info(serial)).failcounter_exceeded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d\+0000$/);
    const locked = await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(locked.result.value).toBe(false);
    expect(locked.detail.message).toBe('Failcounter exceeded');
    await setToken(serial, { maxfail: 10, active: 0 });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).detail.message).toBe(
      'Token is disabled',
    );
    await setToken(serial, { revoked: 1 });
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'alice', pass: '1234' }),
      1007,
      'This action is not possible, since the token is locked',
    );
  });

  it('does not count a wrong PIN when IncFailCountOnFalsePin is false; resets on success', async () => {
    const serial = await hotpFor('alice');
    await setConfig(op, [{ key: 'IncFailCountOnFalsePin', value: 'false' }]);
    await check({ user: 'alice', pass: 'xx000000' });
    expect((await tokenRow(serial))!.failcount).toBe(0);
    await check({ user: 'alice', pass: '1234000000' });
    expect((await tokenRow(serial))!.failcount).toBe(1);
    await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect((await tokenRow(serial))!.failcount).toBe(0);
  });

  it('answers a user without tokens and an unknown user according to the policies', async () => {
    expect((await check({ user: 'bob', pass: 'x' })).detail.message).toBe('The user has no tokens assigned');
    await policy('pnt', { scope: 'authentication', action: 'passOnNoToken' });
    const pnt = await check({ user: 'bob', pass: 'x' });
    expect(pnt.result.value).toBe(true);
    expect(pnt.detail.message).toBe("user has no token, accepted due to 'pnt'");
    await deletePolicy(op, 'pnt');
    await policy('pt', { scope: 'authentication', action: 'passthru=userstore' });
    expect((await check({ user: 'bob', pass: 'bobpw' })).detail.message).toBe(
      "against userstore due to 'pt'",
    );
    expect((await check({ user: 'bob', pass: 'wrong' })).detail.message).toBe(
      'The user has no tokens assigned',
    );
    await policy('pnu', { scope: 'authentication', action: 'passOnNoUser' });
    const pnu = await check({ user: 'ghost', pass: 'x' });
    expect(pnu.result.value).toBe(true);
    expect(pnu.detail.message).toBe("user does not exist, accepted due to 'pnu'");
  });

  it('checks the PIN part per otppin: userstore and none', async () => {
    await hotpFor('alice');
    await policy('op', { scope: 'authentication', action: 'otppin=userstore' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).detail.message).toBe(
      'wrong otp pin',
    );
    expect((await check({ user: 'alice', pass: `alicepw${hotp(KEY, 0)}` })).result.value).toBe(true);
    await policy('op', { scope: 'authentication', action: 'otppin=none' });
    expect((await check({ user: 'alice', pass: hotp(KEY, 1) })).result.value).toBe(true);
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 2)}` })).detail.message).toBe(
      'wrong otp pin',
    );
  });

  it('runs challenge-response for hotp: PIN triggers, transaction_id or state answers once', async () => {
    const serial = await hotpFor('alice');
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    const c = await check({ user: 'alice', pass: '1234' });
    expect(c.result).toMatchObject({ value: false, authentication: 'CHALLENGE' });
    const tid = c.detail.transaction_id as string;
    expect(tid).toMatch(/^\d{20}$/);
    expect(c.detail).toMatchObject({
      message: 'please enter otp: ',
      messages: ['please enter otp: '],
      transaction_ids: [tid],
      serial,
      type: 'hotp',
      client_mode: 'interactive',
      multi_challenge: [
        {
          serial,
          transaction_id: tid,
          type: 'hotp',
          client_mode: 'interactive',
          message: 'please enter otp: ',
        },
      ],
    });
    const wrong = await check({ user: 'alice', transaction_id: tid, pass: '000000' });
    expect(wrong.detail).toMatchObject({
      message: 'Response did not match the challenge.',
      serial,
      type: 'hotp',
    });
    const good = await check({ user: 'alice', transaction_id: tid, pass: hotp(KEY, 0) });
    expect(good.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
    expect(good.detail.message).toBe('Found matching challenge');
    // The transaction is gone: answering it again is an unknown transaction.
    expect((await check({ user: 'alice', transaction_id: tid, pass: hotp(KEY, 1) })).detail.message).toBe(
      'wrong otp pin',
    );
    // `state` is the alias; challenge_text replaces the message; an expired challenge does not match.
    await policy('txt', { scope: 'authentication', action: 'challenge_text=Your code\\, please' });
    const c2 = await check({ serial, pass: '1234' });
    expect(c2.detail.message).toBe('Your code, please');
    expect((await check({ serial, state: c2.detail.transaction_id, pass: hotp(KEY, 1) })).result.value).toBe(
      true,
    );
    const c3 = await check({ user: 'alice', pass: '1234' });
    now = new Date(now.getTime() + 121_000);
    const late = await check({ user: 'alice', transaction_id: c3.detail.transaction_id, pass: hotp(KEY, 2) });
    expect(late.detail.message).toBe('Response did not match the challenge.');
  });

  it('shares one transaction among the challenges of several tokens; any one may answer', async () => {
    const key2 = '00112233445566778899aabbccddeeff00112233';
    const a = await hotpFor('alice');
    const b = await enroll({ type: 'hotp', otpkey: key2, pin: '1234', user: 'alice', realm: 'realm1' });
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    const c = await check({ user: 'alice', pass: '1234' });
    const tid = c.detail.transaction_id as string;
    expect(c.detail.transaction_ids).toEqual([tid, tid]);
    expect(c.detail.messages).toEqual(['please enter otp: ', 'please enter otp: ']);
    expect(c.detail.message).toBe('please enter otp: ');
    expect(c.detail.multi_challenge.map((m: { serial: string }) => m.serial).sort()).toEqual([a, b].sort());
    expect(c.detail.serial).toBe(c.detail.multi_challenge[1].serial);
    const wrong = await check({ user: 'alice', transaction_id: tid, pass: '000000' });
    expect(wrong.detail.message).toBe('Response did not match for 2 tokens.');
    const good = await check({ user: 'alice', transaction_id: tid, pass: hotp(key2, 0) });
    expect(good.detail).toMatchObject({ message: 'Found matching challenge', serial: b });
    expect(await s.rt.store.db.selectFrom('challenge').selectAll().execute()).toEqual([]);
    // PIN+OTP of two tokens at once: the one matching decides; a wrong value for both is counted on both.
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).detail).toMatchObject({ serial: a });
    await deletePolicy(op, 'cr');
    expect((await check({ user: 'alice', pass: '1234000000' })).detail).toEqual({
      message: 'wrong otp value',
      threadid: expect.any(Number),
    });
  });

  it('increases the fail counter on a challenge when the policy says so', async () => {
    const serial = await hotpFor('alice');
    await policy('cr', {
      scope: 'authentication',
      action: 'challenge_response=hotp, increase_failcounter_on_challenge',
    });
    expect((await check({ user: 'alice', pass: '1234' })).result.authentication).toBe('CHALLENGE');
    expect((await tokenRow(serial))!.failcount).toBe(1);
  });

  it('tells a valid answer of a token that became unfit why it cannot be used; a locked one tells nothing', async () => {
    const serial = await hotpFor('alice');
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    const c = await check({ user: 'alice', pass: '1234' });
    await setToken(serial, { active: 0 });
    await s.rt.store.db.updateTable('token').set({ failcount: 1 }).where('serial', '=', serial).execute();
    const r = await check({ user: 'alice', transaction_id: c.detail.transaction_id, pass: hotp(KEY, 0) });
    expect(r.result.value).toBe(false);
    expect(r.detail).toMatchObject({
      message: 'Challenge matches, but token is not fit for challenge. Token is disabled',
      serial,
      type: 'hotp',
    });
    // The value is used up all the same; the fail counter is not reset.
    const after = await tokenRow(serial);
    expect(Number(after!.count)).toBe(1);
    expect(after!.failcount).toBe(1);
    // Unless DefaultResetFailCount says every counter step clears it.
    await setConfig(op, [{ key: 'DefaultResetFailCount', value: 'True' }]);
    try {
      await setToken(serial, { active: 1 });
      const c1 = await check({ user: 'alice', pass: '1234' });
      await setToken(serial, { active: 0 });
      const r1 = await check({ user: 'alice', transaction_id: c1.detail.transaction_id, pass: hotp(KEY, 1) });
      expect(r1.detail.message).toMatch(/^Challenge matches, but token is not fit/);
      expect((await tokenRow(serial))!.failcount).toBe(0);
    } finally {
      await removeConfig(s.rt, ['DefaultResetFailCount']);
    }

    // A token at maxfail: whether the answer was right stays unknown (no oracle for a locked token).
    await setToken(serial, { active: 1 });
    const c2 = await check({ user: 'alice', pass: '1234' });
    await setToken(serial, { maxfail: 1 });
    await s.rt.store.db.updateTable('token').set({ failcount: 1 }).where('serial', '=', serial).execute();
    const locked = await check({
      user: 'alice',
      transaction_id: c2.detail.transaction_id,
      pass: hotp(KEY, 2),
    });
    expect(locked.result.value).toBe(false);
    expect(locked.detail.message).toBe('Failcounter exceeded');
    expect(Number((await tokenRow(serial))!.count)).toBe(2);
  });

  it('refuses a token outside its validity period (start and end, minute precision, any offset)', async () => {
    const serial = await hotpFor('alice');
    // The test clock is 2026-03-01T12:00Z.
    const set = (values: Record<string, string>) =>
      s.call('POST', '/token/set', { serial, ...values }, admin);
    ok(await set({ validity_period_end: '2026-03-01T11:59+0000' }));
    const late = await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(late.result.value).toBe(false);
    expect(late.detail.message).toBe('Outside validity period');
    expect(Number((await tokenRow(serial))!.count)).toBe(0);
    // 13:30 at +0130 is 12:00Z: still valid in that minute.
    ok(await set({ validity_period_end: '2026-03-01T13:30+0130' }));
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).result.value).toBe(true);
    ok(await set({ validity_period_end: '', validity_period_start: '2026-03-01T12:01+0000' }));
    const early = await check({ user: 'alice', pass: `1234${hotp(KEY, 1)}` });
    expect(early.detail.message).toBe('Outside validity period');
    now = new Date('2026-03-01T12:01:30Z');
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 1)}` })).result.value).toBe(true);
  });

  it('resynchronises a HOTP token answering a challenge when AutoResync is on', async () => {
    const serial = await hotpFor('alice');
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    await setConfig(op, [{ key: 'AutoResync', value: 'True' }]);
    try {
      const first = await check({ user: 'alice', pass: '1234' });
      // Counter 20 is beyond the look-ahead window of 10: remembered, not accepted.
      const far = await check({
        user: 'alice',
        transaction_id: first.detail.transaction_id,
        pass: hotp(KEY, 20),
      });
      expect(far.result.value).toBe(false);
      const second = await check({ user: 'alice', pass: '1234' });
      const next = await check({
        user: 'alice',
        transaction_id: second.detail.transaction_id,
        pass: hotp(KEY, 21),
      });
      expect(next.result.value).toBe(true);
      expect(next.detail.message).toBe('Found matching challenge');
      expect(Number((await tokenRow(serial))!.count)).toBe(22);
    } finally {
      await removeConfig(s.rt, ['AutoResync']);
    }
  });

  it("resets the fail counters of all the user's tokens with reset_all_user_tokens", async () => {
    const a = await hotpFor('alice');
    const b = await enroll({ type: 'spass', pin: 'sp', user: 'alice', realm: 'realm1' });
    await check({ user: 'alice', pass: 'nothing-at-all' });
    expect((await tokenRow(b))!.failcount).toBe(1);
    await policy('r', { scope: 'authentication', action: 'reset_all_user_tokens' });
    expect((await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` })).result.value).toBe(true);
    expect((await tokenRow(a))!.failcount).toBe(0);
    expect((await tokenRow(b))!.failcount).toBe(0);
  });

  it('triggers challenges for an administrator and polls transactions', async () => {
    const serial = await hotpFor('alice');
    const t = await s.call('POST', '/validate/triggerchallenge', { user: 'alice' }, admin);
    expect(t.json.id).toBe(2);
    expect(t.json.result).toMatchObject({ status: true, value: 1, authentication: 'CHALLENGE' });
    const tid = t.json.detail.transaction_id as string;
    expect(t.json.detail).toMatchObject({
      serial,
      type: 'hotp',
      client_mode: 'interactive',
      message: 'please enter otp: ',
      messages: ['please enter otp: '],
      transaction_ids: [tid],
      threadid: expect.any(Number),
    });
    expect(t.json.detail.multi_challenge).toHaveLength(1);
    // A user whose tokens cannot do challenges.
    await enroll({ type: 'spass', pin: 'x', user: 'bob', realm: 'realm1' });
    const none = await s.call('GET', '/validate/triggerchallenge', { user: 'bob' }, admin);
    expect(none.json.result).toMatchObject({ value: 0, authentication: 'REJECT' });
    expect(none.json.detail).toMatchObject({
      messages: [],
      transaction_ids: [],
      threadid: expect.any(Number),
    });
    expect((await s.call('POST', '/validate/triggerchallenge', { user: 'alice' })).status).toBe(401);
    await policy('adm', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('POST', '/validate/triggerchallenge', { user: 'alice' }, admin),
      303,
      'Admin actions are defined, but the action triggerchallenge is not allowed!',
    );
    await deletePolicy(op, 'adm');

    const poll = async (path: string, params: Record<string, string> = {}) => {
      const r = await s.call('GET', path, params);
      expect(r.json.id).toBe(2);
      return r.json;
    };
    expect((await poll(`/validate/polltransaction/${tid}`)).result).toMatchObject({
      value: false,
      authentication: 'REJECT',
    });
    expect((await poll('/validate/polltransaction', { transaction_id: '123' })).detail.challenge_status).toBe(
      'pending',
    );
    await markAnswered(s.rt, tid);
    const p = await poll('/validate/polltransaction', { transaction_id: tid });
    expect(p.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
    expect(p.detail.challenge_status).toBe('accept');
    // The answered challenge lets an empty pass finish the authentication.
    expect((await check({ user: 'alice', transaction_id: tid, pass: '' })).detail.message).toBe(
      'Found matching challenge',
    );
    expect((await poll(`/validate/polltransaction/${tid}`)).result.value).toBe(false);
    expectServiceError(
      await s.call('GET', '/validate/polltransaction'),
      905,
      "Missing parameter: 'transaction_id'",
    );
  });

  it('answers samlcheck with auth and the user attributes, never a password', async () => {
    await hotpFor('alice');
    const r = await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` }, '/validate/samlcheck');
    expect(r.result.authentication).toBe('ACCEPT');
    expect(r.result.value.auth).toBe(true);
    expect(r.result.value.attributes).toMatchObject({
      username: 'alice',
      realm: 'realm1',
      resolver: 'res1',
      email: 'alice@example.com',
      givenname: 'Alice',
      surname: 'Smith',
    });
    expect(JSON.stringify(r.result.value.attributes)).not.toMatch(/password|\$6\$/i);
    const fail = await check({ user: 'alice', pass: 'bad' }, '/validate/samlcheck');
    expect(fail.result).toMatchObject({ value: { auth: false, attributes: {} }, authentication: 'REJECT' });
  });

  it('answers radiuscheck with an empty 204 or 400', async () => {
    await hotpFor('alice');
    const good = await s.call('POST', '/validate/radiuscheck', {
      user: 'alice',
      pass: `1234${hotp(KEY, 0)}`,
    });
    expect(good.status).toBe(204);
    expect(good.text).toBe('');
    const bad = await s.call('GET', '/validate/radiuscheck', { user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    expect(bad.status).toBe(400);
    expect(bad.text).toBe('');
    expectServiceError(await s.call('POST', '/validate/radiuscheck', { pass: 'x' }), 905);
  });

  it('applies the authorization policies after the check', async () => {
    const serial = await hotpFor('alice');
    await policy('deny', { scope: 'authorization', action: 'authorized=deny_access' });
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 0)}` }),
      401,
      'User is not authorized to authenticate under these conditions.',
    );
    await deletePolicy(op, 'deny');
    await policy('tt', { scope: 'authorization', action: 'tokentype=totp spass' });
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 1)}` }),
      303,
      'Tokentype not allowed for authentication!',
    );
    await deletePolicy(op, 'tt');
    await policy('sr', { scope: 'authorization', action: 'serial=TOTP.*' });
    expectServiceError(
      await s.call('POST', '/validate/check', { user: 'alice', pass: `1234${hotp(KEY, 2)}` }),
      303,
      'Serial is not allowed for authentication!',
    );
    await deletePolicy(op, 'sr');
    await policy('resp', {
      scope: 'authorization',
      action: 'add_user_in_response, add_resolver_in_response',
    });
    const r = await check({ user: 'alice', pass: `1234${hotp(KEY, 3)}` });
    expect(r.detail).toMatchObject({ 'user-resolver': 'res1', 'user-realm': 'realm1', serial });
    expect(r.detail.user).toMatchObject({ username: 'alice', email: 'alice@example.com' });
    await policy('nd', { scope: 'authorization', action: 'no_detail_on_success, no_detail_on_fail' });
    const quiet = await check({ user: 'alice', pass: `1234${hotp(KEY, 4)}` });
    expect(quiet.result.authentication).toBe('ACCEPT');
    expect(quiet.detail).toBeUndefined();
    expect((await check({ user: 'alice', pass: 'nope' })).detail).toBeUndefined();
  });

  it('honours type only with application_tokentype', async () => {
    await hotpFor('alice');
    await enroll({ type: 'spass', pin: 'sp', user: 'alice', realm: 'realm1' });
    expect((await check({ user: 'alice', type: 'totp', pass: 'sp' })).result.value).toBe(true);
    await policy('app', { scope: 'authorization', action: 'application_tokentype' });
    expect((await check({ user: 'alice', type: 'totp', pass: 'sp' })).detail.message).toBe(
      'The user has no tokens assigned',
    );
    expect((await check({ user: 'alice', type: 'spass', pass: 'sp' })).result.value).toBe(true);
  });

  it('hides specific messages with hide_specific_error_message', async () => {
    await hotpFor('alice');
    await policy('hide', { scope: 'authentication', action: 'hide_specific_error_message' });
    const r = await check({ user: 'alice', pass: '0000000000' });
    expect(r.detail).toEqual({ message: 'Authentication failed.', threadid: expect.any(Number) });
    // An unknown user is a REJECT like a wrong PIN (test/e2e/enumeration.test.ts has every case).
    const ghost = await check({ user: 'ghost', pass: 'x' });
    expect(ghost.result).toEqual({ status: true, value: false, authentication: 'REJECT' });
    expect(ghost.detail).toEqual({ message: 'Authentication failed.', threadid: expect.any(Number) });
  });

  it('records the check in the audit log', async () => {
    const serial = await hotpFor('alice');
    await check({ user: 'alice', pass: `1234${hotp(KEY, 0)}` });
    const row = await s.rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('serial', '=', serial)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      user: 'alice',
      realm: 'realm1',
      resolver: 'res1',
      token_type: 'hotp',
      info: 'matching 1 tokens',
    });
  });

  it('logs a user in with PIN+OTP under login_mode=privacyIDEA', async () => {
    await hotpFor('alice');
    await policy('pi', { scope: 'webui', action: 'login_mode=privacyIDEA' });
    expect((await s.call('POST', '/auth', { username: 'alice', password: 'alicepw' })).status).toBe(401);
    const r = await s.call('POST', '/auth', { username: 'alice', password: `1234${hotp(KEY, 0)}` });
    expect(r.status).toBe(200);
    expect(r.json.result.value).toMatchObject({ role: 'user', username: 'alice', realm: 'realm1' });
    expect(
      (await s.call('POST', '/auth', { username: 'alice', password: `1234${hotp(KEY, 0)}` })).status,
    ).toBe(401);
  });

  it('logs a user in with challenge-response under login_mode=privacyIDEA: PIN first, then OTP', async () => {
    await hotpFor('alice');
    await policy('pi', { scope: 'webui', action: 'login_mode=privacyIDEA' });
    await policy('cr', { scope: 'authentication', action: 'challenge_response=hotp' });
    const first = await s.call('POST', '/auth', { username: 'alice', password: '1234' });
    expect(first.status).toBe(200);
    expect(first.json.id).toBe(2);
    expect(first.json.result).toEqual({ status: true, value: false, authentication: 'CHALLENGE' });
    expect(first.json.detail).toMatchObject({ loginmode: 'privacyIDEA', message: 'please enter otp: ' });
    expect(first.json.detail.multi_challenge).toHaveLength(1);
    const tid = first.json.detail.transaction_id as string;

    // A wrong answer: 401 with the check's detail; the challenge stays answerable.
    const wrong = await s.call('POST', '/auth', {
      username: 'alice',
      password: '000000',
      transaction_id: tid,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json.result.error.code).toBe(4031);
    expect(wrong.json.detail.message).toBe('Response did not match the challenge.');

    const second = await s.call('POST', '/auth', {
      username: 'alice',
      password: hotp(KEY, 0),
      transaction_id: tid,
    });
    expect(second.status).toBe(200);
    expect(second.json.result.authentication).toBe('ACCEPT');
    expect(second.json.result.value).toMatchObject({ role: 'user', username: 'alice', auth: true });
    expect(second.json.detail.loginmode).toBe('privacyIDEA');
    // The JWT works.
    const token = second.json.result.value.token as string;
    expect(ok(await s.call('GET', '/token/', {}, token)).count).toBe(1);
    // Answered once only.
    const again = await s.call('POST', '/auth', {
      username: 'alice',
      password: hotp(KEY, 1),
      transaction_id: tid,
    });
    expect(again.status).toBe(401);

    // With the user store deciding, a transaction_id never logs anybody in.
    await deletePolicy(op, 'pi');
    const store = await s.call('POST', '/auth', {
      username: 'alice',
      password: 'alicepw',
      transaction_id: tid,
    });
    expect(store.status).toBe(401);
    expect((await s.call('POST', '/auth', { username: 'alice', password: 'alicepw' })).status).toBe(200);
  });

  it('accepts values computed by Debian oathtool (HOTP and TOTP)', async () => {
    let version: string;
    try {
      version = execFileSync('oathtool', ['--version'], { encoding: 'utf8' });
    } catch {
      throw new Error(
        'oathtool is not installed: apt-get install -y oathtool (the CI script .ci/run installs it)',
      );
    }
    expect(version).toMatch(/oathtool/);
    const oath = (...args: string[]) => execFileSync('oathtool', args, { encoding: 'utf8' }).trim();
    const key = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
    await enroll({ type: 'hotp', otpkey: key, otplen: '8', pin: 'op', user: 'carol', realm: 'realm1' });
    expect(
      (await check({ user: 'carol', pass: `op${oath('--hotp', '-d', '8', '-c', '0', key)}` })).result.value,
    ).toBe(true);
    expect(
      (await check({ user: 'carol', pass: `op${oath('--hotp', '-d', '8', '-c', '3', key)}` })).result.value,
    ).toBe(true);
    expect(
      (await check({ user: 'carol', pass: `op${oath('--hotp', '-d', '8', '-c', '2', key)}` })).result.value,
    ).toBe(false);
    const when = now.toISOString().replace(/\.\d+Z$/, 'Z');
    await enroll({ type: 'totp', otpkey: key, pin: 'tt', user: 'dave', realm: 'realm1' });
    const value = oath('--totp', `--now=${when}`, key);
    expect((await check({ user: 'dave', pass: `tt${value}` })).result.value).toBe(true);
    expect((await check({ user: 'dave', pass: `tt${value}` })).result.value).toBe(false);
  });
});
