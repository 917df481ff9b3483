// autoassignment over HTTP (reference 4.2.3 #1): a failed /validate/check of a user without tokens
// assigns the first unassigned token of the user's realm whose OTP matches (enrollment policy
// `autoassignment` = any_pin | userstore); the PIN part becomes the token's PIN.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

const KEY1 = '3132333435363738393031323334353637383930';
const KEY2 = '3132333435363738393031323334353637383931';

/** RFC 4226, computed independently of src/tokens. */

describe.each(testDialects())('autoassignment on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)], realm2: [pwUser('erin', 2001)] },
      reset: ['policies', 'tokens'],
    },
    (t) => ({ s, op, admin } = t),
  );

  const autoassignment = (value: string) =>
    setPolicy(op, 'aa', { scope: 'enrollment', action: `autoassignment=${value}` });
  const pool = async (serial: string, otpkey: string, realm = 'realm1') =>
    ok(await s.call('POST', '/token/init', { type: 'hotp', serial, otpkey, realm }, admin));
  const check = async (user: string, pass: string, realm = 'realm1') =>
    (await validateOk(s, { user, realm, pass })).json;
  const owner = async (serial: string) => {
    const v = ok(await s.call('GET', '/token/', { serial }, admin));
    return v.tokens[0].username as string;
  };

  it('any_pin: assigns the token whose OTP matches, with the PIN part as its PIN', async () => {
    await autoassignment('any_pin');
    await pool('AA1', KEY1);
    await pool('AA2', KEY2);
    const r = await check('alice', `mypin${hotp(KEY2, 0)}`);
    expect(r.result.value).toBe(true);
    expect(r.result.authentication).toBe('ACCEPT');
    expect(r.detail).toMatchObject({
      serial: 'AA2',
      otplen: 6,
      type: 'hotp',
      message: 'Token assigned to user via Autoassignment',
    });
    expect(await owner('AA2')).toBe('alice');
    expect(await owner('AA1')).toBe('');
    // The OTP was used up; the PIN is the one given.
    expect((await check('alice', `mypin${hotp(KEY2, 0)}`)).result.value).toBe(false);
    expect((await check('alice', `other${hotp(KEY2, 1)}`)).result.value).toBe(false);
    const next = await check('alice', `mypin${hotp(KEY2, 2)}`);
    expect(next.result.value).toBe(true);
    expect(next.detail.message).toBe('matching 1 tokens');
    // Alice now has a token: the other pool token is not given to her.
    expect((await check('alice', `mypin${hotp(KEY1, 0)}`)).result.value).toBe(false);
    expect(await owner('AA1')).toBe('');
  });

  it('userstore: the PIN part must be the user-store password', async () => {
    await autoassignment('userstore');
    await pool('AA1', KEY1);
    const bad = await check('alice', `wrongpw${hotp(KEY1, 0)}`);
    expect(bad.result.value).toBe(false);
    expect(await owner('AA1')).toBe('');
    const r = await check('alice', `alicepw${hotp(KEY1, 0)}`);
    expect(r.result.value).toBe(true);
    expect(r.detail).toMatchObject({ serial: 'AA1', message: 'Token assigned to user via Autoassignment' });
    expect(await owner('AA1')).toBe('alice');
    expect((await check('alice', `alicepw${hotp(KEY1, 1)}`)).result.value).toBe(true);
  });

  it('does not assign to a user who has tokens, nor on a wrong OTP, nor without the policy', async () => {
    await pool('AA1', KEY1);
    // No policy.
    expect((await check('alice', `pin${hotp(KEY1, 0)}`)).result.value).toBe(false);
    expect(await owner('AA1')).toBe('');
    await autoassignment('any_pin');
    // Wrong OTP.
    const wrong = await check('alice', 'pin000000');
    expect(wrong.result.value).toBe(false);
    expect(wrong.detail.message).toBe('The user has no tokens assigned');
    expect(await owner('AA1')).toBe('');
    // Bob owns a token already.
    ok(
      await s.call(
        'POST',
        '/token/init',
        { type: 'spass', serial: 'BOBS', pin: 'b', user: 'bob', realm: 'realm1' },
        admin,
      ),
    );
    expect((await check('bob', `pin${hotp(KEY1, 1)}`)).result.value).toBe(false);
    expect(await owner('AA1')).toBe('');
    // A token of another realm is not tried.
    expect((await check('erin', `pin${hotp(KEY1, 2)}`, 'realm2')).result.value).toBe(false);
    expect(await owner('AA1')).toBe('');
    // The pool token still works for a user of its realm.
    expect((await check('alice', `pin${hotp(KEY1, 3)}`)).result.value).toBe(true);
    expect(await owner('AA1')).toBe('alice');
  });

  it('skips a disabled pool token', async () => {
    await autoassignment('any_pin');
    await pool('AA1', KEY1);
    ok(await s.call('POST', '/token/disable/AA1', {}, admin));
    expect((await check('alice', `pin${hotp(KEY1, 0)}`)).result.value).toBe(false);
    expect(await owner('AA1')).toBe('');
  });
});
