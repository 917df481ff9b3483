// The OTP PIN policies over HTTP as privacyIDEA applies them (reference 3.3, 3.5, 5.5):
// otp_pin_minlength, otp_pin_maxlength and otp_pin_contents with their exact ERR303 texts, the four
// modes of otp_pin_contents (plain, +grouping, -exclusion, [characters]), unknown specifiers, the
// per-type actions `<type>_otp_pin_…` before the generic ones, `otppin` before `pin`, no check on
// rollover and verify, random PINs that fit the contents, and refused PINs that change nothing.
// Policies are written as the CLI operator so that a test never locks itself out.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { verifyPassword } from '../../src/crypto/password-hash.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { initOk, tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok, userToken } from '../helpers/user-stores.ts';

const SEED = '3132333435363738393031323334353637383930';
const otp = (counter: number) => hotpValue(Buffer.from(SEED, 'hex'), counter, 6);
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const NOT_ALLOWED = 'Not allowed character in PIN!';
const MISSING = (charset: string) => `Missing character in PIN: ${charset}`;
const UNKNOWN = 'Unknown character specifier in PIN policy.';
const MIN = (n: number) => `The minimum OTP PIN length is ${n}`;
const MAX = (n: number) => `The maximum OTP PIN length is ${n}`;

describe.each(testDialects())('OTP PIN policies over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    { realms: { realm1: [pwUser('alice', 1001)] }, reset: ['policies', 'tokens over api'] },
    (t) => ({ s, op, admin } = t),
  );

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const adminPins = (action: Record<string, string>) =>
    policy('pins', { scope: 'admin', action: { '*': true, ...action } });
  const call = (path: string, params: Record<string, string>, token = admin) =>
    s.call('POST', path, params, token);
  const init = async (params: Record<string, string>, token = admin) =>
    (await initOk(s, params, token)).json.detail;
  const row = (serial: string) => tokenRow(s, serial);
  const hasPin = async (serial: string, pin: string) => verifyPassword(pin, (await row(serial)).pin_hash);
  const setpin = (serial: string, otppin: string, token = admin) =>
    call(`/token/setpin/${serial}`, { otppin }, token);

  /** PINs refused (with their message) and accepted by setpin under otp_pin_contents = value. */
  async function contents(value: string, refused: [string, string][], accepted: string[]): Promise<void> {
    await adminPins({ otp_pin_contents: value });
    for (const [pin, message] of refused) expectServiceError(await setpin('PC', pin), 303, message);
    for (const pin of accepted) {
      expect(ok(await setpin('PC', pin)), `${value}: ${pin}`).toBe(1);
      expect(await hasPin('PC', pin)).toBe(true);
    }
  }

  it('plain: every listed class is required; characters outside c, n, s are not allowed', async () => {
    await init({ serial: 'PC', genkey: '1' });
    await contents(
      'cn',
      [
        ['abcd', MISSING(DIGITS)],
        ['1234', MISSING(LETTERS)],
        ['!!!!', `${MISSING(LETTERS)},${MISSING(DIGITS)}`],
        ['ab 1', NOT_ALLOWED],
        ['äbc1', NOT_ALLOWED],
        ['äää', `${NOT_ALLOWED},${MISSING(LETTERS)},${MISSING(DIGITS)}`],
      ],
      ['abc1', 'a1!~', 'Z9'],
    );
    await contents(
      'ncs',
      [
        ['abc1', MISSING(PUNCTUATION)],
        ['ä', [NOT_ALLOWED, MISSING(DIGITS), MISSING(LETTERS), MISSING(PUNCTUATION)].join(',')],
      ],
      ['a1"', "b2'", 'c3\\', 'd4`'],
    );
  });

  it('+: one character of the listed classes together; the rest from c, n, s', async () => {
    await init({ serial: 'PC', genkey: '1' });
    await contents(
      '+cn',
      [
        ['!!!!', MISSING(LETTERS + DIGITS)],
        ['a b', NOT_ALLOWED],
        ['ü!', `${NOT_ALLOWED},${MISSING(LETTERS + DIGITS)}`],
      ],
      ['a!!!', '1!!!', 'ab12'],
    );
    await contents('+ns', [['abcd', MISSING(DIGITS + PUNCTUATION)]], ['abc1', 'abc!']);
  });

  it('-: only the classes not listed are allowed, nothing is required', async () => {
    await init({ serial: 'PC', genkey: '1' });
    await contents(
      '-ns',
      [
        ['abc1', NOT_ALLOWED],
        ['abc!', NOT_ALLOWED],
        ['ab c', NOT_ALLOWED],
      ],
      ['abcd', 'X'],
    );
    await contents('-c', [['12a', NOT_ALLOWED]], ['1234', '!!', '1!']);
  });

  it('[…]: exactly the characters between the brackets', async () => {
    await init({ serial: 'PC', genkey: '1' });
    await contents(
      '[abc]',
      [
        ['abcd', NOT_ALLOWED],
        ['ABC', NOT_ALLOWED],
      ],
      ['a', 'cab', 'aaaa'],
    );
    // No ranges: the characters themselves.
    await contents('[0-9]', [['123', NOT_ALLOWED]], ['0-9', '99']);
    await contents('[äß]', [['a', NOT_ALLOWED]], ['äß', 'ßä']);
  });

  it('an unknown specifier refuses every PIN with 303', async () => {
    await init({ serial: 'PC', genkey: '1', pin: 'before' });
    for (const value of ['o', 'cno', '8', 'c+n', 'abc', '[abc', 'cn-', '+', 'cn!']) {
      await adminPins({ otp_pin_contents: value });
      expectServiceError(await setpin('PC', 'abc1!'), 303, UNKNOWN);
      expectServiceError(
        await call('/token/init', { serial: 'NEW', genkey: '1', pin: 'abc1!' }),
        303,
        UNKNOWN,
      );
    }
    expect(await hasPin('PC', 'before')).toBe(true);
    expect(await s.rt.store.db.selectFrom('token').select('serial').execute()).toHaveLength(1);
  });

  it('checks minimum, maximum, then contents', async () => {
    await init({ serial: 'PC', genkey: '1' });
    await adminPins({ otp_pin_minlength: '4', otp_pin_maxlength: '6', otp_pin_contents: 'n' });
    expectServiceError(await setpin('PC', 'ab'), 303, MIN(4));
    expectServiceError(await setpin('PC', 'abcdefg'), 303, MAX(6));
    expectServiceError(await setpin('PC', 'abcd'), 303, MISSING(DIGITS));
    await adminPins({ otp_pin_minlength: '4', otp_pin_contents: 'x' });
    expectServiceError(await setpin('PC', 'ab'), 303, MIN(4));
    expectServiceError(await setpin('PC', 'abcd'), 303, UNKNOWN);
    // A length counts characters, not bytes or UTF-16 units.
    await adminPins({ otp_pin_maxlength: '3', otp_pin_contents: '[😀]' });
    expect(ok(await setpin('PC', '😀😀😀'))).toBe(1);
  });

  it('<type>_otp_pin_… can be saved over HTTP and wins over the generic action', async () => {
    const saved = await s.call(
      'POST',
      '/policy/typed',
      {
        scope: 'admin',
        action:
          '*, hotp_otp_pin_minlength=8, totp_otp_pin_contents=n, otp_pin_minlength=4, otp_pin_contents=c',
      },
      admin,
    );
    ok(saved);
    const defs = ok(await s.call('GET', '/policy/defs/admin', {}, admin));
    expect(defs.hotp_otp_pin_maxlength).toMatchObject({ type: 'int' });
    expect(defs.spass_otp_pin_contents).toMatchObject({ type: 'str' });
    // init: the type parameter, else hotp.
    expectServiceError(await call('/token/init', { serial: 'H', genkey: '1', pin: 'abcdef' }), 303, MIN(8));
    expectServiceError(
      await call('/token/init', { serial: 'H', type: 'hotp', genkey: '1', pin: 'abcdef' }),
      303,
      MIN(8),
    );
    await init({ serial: 'H', genkey: '1', pin: 'abcdefgh' });
    expectServiceError(
      await call('/token/init', { serial: 'T', type: 'totp', genkey: '1', pin: 'abc' }),
      303,
      MIN(4),
    );
    expectServiceError(
      await call('/token/init', { serial: 'T', type: 'totp', genkey: '1', pin: 'abcd' }),
      303,
      MISSING(DIGITS),
    );
    await init({ serial: 'T', type: 'totp', genkey: '1', pin: '1234' });
    await init({ serial: 'S', type: 'spass', pin: 'abcd' });
    // setpin: the type of the existing token.
    expectServiceError(await setpin('H', 'abcdef'), 303, MIN(8));
    expectServiceError(await setpin('T', 'abcdef'), 303, MISSING(DIGITS));
    expect(ok(await setpin('T', '567890'))).toBe(1);
    expectServiceError(await setpin('S', '1234'), 303, MISSING(LETTERS));
    expect(ok(await setpin('S', 'wxyz'))).toBe(1);
    expect(await hasPin('H', 'abcdefgh')).toBe(true);
    expect(await hasPin('T', '567890')).toBe(true);
  });

  it('<type>_otp_pin_… of the user scope applies to users', async () => {
    await policy('u', {
      scope: 'user',
      action: { '*': true, totp_otp_pin_maxlength: '4', otp_pin_maxlength: '8' },
      realm: 'realm1',
    });
    const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
    expectServiceError(
      await call('/token/init', { serial: 'UT', type: 'totp', genkey: '1', pin: 'abcde' }, jwt),
      303,
      MAX(4),
    );
    await init({ serial: 'UT', type: 'totp', genkey: '1', pin: 'abcd' }, jwt);
    await init({ serial: 'UH', type: 'hotp', genkey: '1', pin: 'abcdefgh' }, jwt);
    expectServiceError(await setpin('UT', 'abcde', jwt), 303, MAX(4));
    expectServiceError(await setpin('UH', 'abcdefghi', jwt), 303, MAX(8));
    // Administrators are not bound by user policies.
    expect(ok(await setpin('UT', 'abcdefghij'))).toBe(1);
  });

  it('init checks otppin before pin, and nothing on a rollover or a verification', async () => {
    await adminPins({ otp_pin_minlength: '4' });
    expectServiceError(
      await call('/token/init', { serial: 'O', genkey: '1', pin: 'long enough', otppin: 'ab' }),
      303,
      MIN(4),
    );
    await init({ serial: 'O', genkey: '1', pin: 'ab', otppin: 'long enough' });
    await init({ serial: 'R', otpkey: SEED, pin: 'first' });
    expectServiceError(await call('/token/init', { serial: 'R', otpkey: SEED, pin: 'ab' }), 303, MIN(4));
    expect(await hasPin('R', 'first')).toBe(true);
    await init({ serial: 'R', otpkey: SEED, pin: 'ab', rollover: '1' });
    expect(await hasPin('R', 'ab')).toBe(true);
    await policy('verify', { scope: 'enrollment', action: { verify_enrollment: 'hotp' } });
    expect((await init({ serial: 'V', otpkey: SEED, pin: 'vpin' })).rollout_state).toBe('verify');
    const r = await call('/token/init', { serial: 'V', verify: otp(1), pin: 'x' });
    expect(ok(r)).toBe(true);
    expect(r.json.detail).toMatchObject({ rollout_state: 'enrolled' });
    expect(await hasPin('V', 'vpin')).toBe(true);
  });

  it('a refused PIN changes nothing', async () => {
    await init({ serial: 'K', otpkey: SEED, pin: 'abc1', description: 'kept' });
    await init({ serial: 'A', genkey: '1' });
    const before = await row('K');
    await adminPins({ otp_pin_contents: 'cn' });
    expectServiceError(await setpin('K', 'abcd'), 303, MISSING(DIGITS));
    expectServiceError(
      await call('/token/init', { serial: 'K', genkey: '1', pin: 'abcd', description: 'changed' }),
      303,
      MISSING(DIGITS),
    );
    expectServiceError(
      await call('/token/assign', { serial: 'A', user: 'alice', realm: 'realm1', pin: '1234' }),
      303,
      MISSING(LETTERS),
    );
    expectServiceError(
      await call('/token/init', { serial: 'NEW', genkey: '1', pin: 'x y1' }),
      303,
      NOT_ALLOWED,
    );
    expect(await row('K')).toEqual(before);
    expect(ok(await s.call('GET', '/token/', { serial: 'A' }, admin)).tokens[0].username).toBe('');
    expect(
      (await s.rt.store.db.selectFrom('token').select('serial').orderBy('serial').execute()).map(
        (t) => t.serial,
      ),
    ).toEqual(['A', 'K']);
  });

  it('setrandompin draws from the contents policy of the token type', async () => {
    await init({ serial: 'RH', genkey: '1' });
    await init({ serial: 'RT', type: 'totp', genkey: '1' });
    const random = async (serial: string) => {
      const r = await call(`/token/setrandompin/${serial}`, {});
      expect(ok(r)).toBe(1);
      const pin = r.json.detail.pin as string;
      expect(await hasPin(serial, pin)).toBe(true);
      return pin;
    };
    const cases: [string, RegExp][] = [
      ['cns', /^(?=.*[a-zA-Z])(?=.*\d)(?=.*[^a-zA-Z0-9]).{12}$/],
      ['-cn', /^[^a-zA-Z0-9]{12}$/],
      ['-ns', /^[a-zA-Z]{12}$/],
      ['[xyz]', /^[xyz]{12}$/],
      ['+n', /^(?=.*\d).{12}$/],
    ];
    for (const [value, pattern] of cases) {
      await adminPins({ otp_pin_set_random: '12', otp_pin_contents: value });
      for (let i = 0; i < 5; i++) expect(await random('RH'), value).toMatch(pattern);
    }
    await adminPins({ otp_pin_set_random: '12', otp_pin_contents: 'c', totp_otp_pin_contents: '[01]' });
    expect(await random('RT')).toMatch(/^[01]{12}$/);
    expect(await random('RH')).toMatch(/[a-zA-Z]/);
    await adminPins({ otp_pin_set_random: '12', otp_pin_contents: 'cno' });
    const before = (await row('RH')).pin_hash;
    expectServiceError(await call('/token/setrandompin/RH', {}), 303, UNKNOWN);
    expect((await row('RH')).pin_hash).toBe(before);
  });

  it('setrandompin for a user without tokens sets none and generates no PIN (was HTTP 500)', async () => {
    await adminPins({ otp_pin_set_random: '12' });
    const r = await call('/token/setrandompin', { user: 'alice', realm: 'realm1' });
    expect(ok(r)).toBe(0);
    expect(r.json.detail).toBeUndefined();
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    const mine = await call('/token/setrandompin', {}, alice);
    expect(ok(mine)).toBe(0);
    expect(mine.json.detail).toBeUndefined();
  });

  it('otp_pin_random on init fits the contents policy of the type', async () => {
    await policy('random', { scope: 'enrollment', action: { otp_pin_random: '6' } });
    await adminPins({ hotp_otp_pin_contents: '[7]', otp_pin_contents: '-cns' });
    await init({ serial: 'IR', genkey: '1', pin: 'given' });
    expect(await hasPin('IR', '777777')).toBe(true);
  });
});
