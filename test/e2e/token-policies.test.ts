// The policies of the enrollment path over HTTP (reference 3.3, 5.5): token limits per realm, per
// user, per type and of active tokens; require_description; random, length- and content-checked
// PINs and their change dates; label and issuer of the otpauth URI; per-type defaults of the
// admin/user scopes. And the endpoints setrandompin, copypin, copyuser, lost and getserial (3.5).
// Policies are written as the CLI operator so that a test never locks itself out.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { deletePolicy, type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { verifyPassword } from '../../src/crypto/password-hash.ts';
import { base32Encode } from '../../src/tokens/base32.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { initOk, tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok, userToken } from '../helpers/user-stores.ts';

const SEED = '3132333435363738393031323334353637383930';
const SEED2 = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';
const otp = (counter: number, seed = SEED) => hotpValue(Buffer.from(seed, 'hex'), counter, 6);
const DENIED_ADMIN = (a: string) => `Admin actions are defined, but the action ${a} is not allowed!`;
const DENIED_USER = (a: string) => `User actions are defined, but the action ${a} is not allowed!`;
const USER_LIMIT = 'The number of tokens for this user is limited!';
const ACTIVE_LIMIT = 'The number of active tokens for this user is limited!';
const REALM_LIMIT = 'The number of tokens in this realm is limited!';
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const PUNCTUATION = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~';
const MISSING = (charset: string) => `Missing character in PIN: ${charset}`;
const MINUTE = /^\d{4}-\d\d-\d\dT\d\d:\d\d\+0000$/;

/** alice and bob in realm1, carol in realm2. */
const REALMS = { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)], realm2: [pwUser('carol', 2001)] };

/** `YYYY-MM-DDThh:mm+0000` → milliseconds. */
const minuteTime = (v: string) => Date.parse(`${v.slice(0, 16)}:00Z`);

describe.each(testDialects())('/token enrollment policies and token tools over HTTP on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: REALMS,
      reset: ['policies', 'tokens over api'],
    },
    (t) => ({ s, op, admin } = t),
  );

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const call = (path: string, params: Record<string, string>, token = admin) =>
    s.call('POST', path, params, token);
  const init = async (params: Record<string, string>, token = admin) =>
    (await initOk(s, params, token)).json.detail;
  const row = (serial: string) => tokenRow(s, serial);
  const get = async (serial: string) => ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0];
  const alice = { user: 'alice', realm: 'realm1' };

  describe('token limits', () => {
    it('max_token_per_user: the largest matching value; re-enrolling a serial the user has is allowed', async () => {
      await policy('max2', { scope: 'enrollment', action: { max_token_per_user: '2' }, realm: 'realm1' });
      await policy('max1', { scope: 'enrollment', action: { max_token_per_user: '1' } });
      await init({ serial: 'A1', ...alice, genkey: '1' });
      await init({ serial: 'A2', ...alice, type: 'spass' });
      expectServiceError(await call('/token/init', { serial: 'A3', ...alice, genkey: '1' }), 303, USER_LIMIT);
      expect(
        await s.rt.store.db.selectFrom('token').where('serial', '=', 'A3').selectAll().execute(),
      ).toEqual([]);
      // The same serial again re-keys it.
      await init({ serial: 'A1', ...alice, genkey: '1' });
      // Carol (realm2) gets max1 only.
      await init({ serial: 'C1', user: 'carol', realm: 'realm2', genkey: '1' });
      expectServiceError(
        await call('/token/init', { user: 'carol', realm: 'realm2', genkey: '1' }),
        303,
        USER_LIMIT,
      );
      // Tokens without owner are not limited by a per-user limit.
      await init({ serial: 'FREE', genkey: '1' });
      // Assigning counts too (reference 3.5).
      expectServiceError(await call('/token/assign', { serial: 'FREE', ...alice }), 303, USER_LIMIT);
      expect((await get('FREE')).username).toBe('');
      // A user enrolling for himself meets the same limit.
      const alicejwt = await userToken(s, 'alice', 'alicepw', 'realm1');
      expectServiceError(await call('/token/init', { genkey: '1' }, alicejwt), 303, USER_LIMIT);
    });

    it('<type>_max_token_per_user counts the tokens of that type only', async () => {
      await policy('hotp1', { scope: 'enrollment', action: { hotp_max_token_per_user: '1' } });
      await init({ serial: 'H1', ...alice, genkey: '1' });
      expectServiceError(
        await call('/token/init', { serial: 'H2', ...alice, genkey: '1' }),
        303,
        'The number of tokens of type hotp for this user is limited!',
      );
      await init({ serial: 'T1', ...alice, type: 'totp', genkey: '1' });
      await init({ serial: 'HB', user: 'bob', realm: 'realm1', genkey: '1' });
      await init({ serial: 'H3', genkey: '1' });
      expectServiceError(
        await call('/token/assign', { serial: 'H3', ...alice }),
        303,
        'The number of tokens of type hotp for this user is limited!',
      );
    });

    it('max_active_token_per_user: disabled tokens do not count; enabling one counts', async () => {
      await policy('active1', { scope: 'enrollment', action: { max_active_token_per_user: '1' } });
      await init({ serial: 'AC1', ...alice, genkey: '1' });
      expectServiceError(
        await call('/token/init', { serial: 'AC2', ...alice, genkey: '1' }),
        303,
        ACTIVE_LIMIT,
      );
      expect(ok(await call('/token/disable/AC1', {}))).toBe(1);
      await init({ serial: 'AC2', ...alice, genkey: '1' });
      expectServiceError(await call('/token/enable/AC1', {}), 303, ACTIVE_LIMIT);
      expect((await get('AC1')).active).toBe(false);
      // Enabling an already active token changes nothing and is allowed.
      expect(ok(await call('/token/enable/AC2', {}))).toBe(0);
      await policy('active-hotp', {
        scope: 'enrollment',
        action: { hotp_max_active_token_per_user: '1', max_active_token_per_user: '5' },
        priority: 1,
      });
      await deletePolicy(op, 'active1');
      expectServiceError(
        await call('/token/enable/AC1', {}),
        303,
        'The number of active tokens of type hotp for this user is limited!',
      );
      await init({ serial: 'AT', ...alice, type: 'totp', genkey: '1' });
    });

    it('max_token_per_realm: tokens in the realm, with or without owner', async () => {
      await policy('realm1-2', {
        scope: 'enrollment',
        action: { max_token_per_realm: '2' },
        realm: 'realm1',
      });
      await init({ serial: 'R1', realm: 'realm1', genkey: '1' });
      await init({ serial: 'R2', ...alice, genkey: '1' });
      expectServiceError(
        await call('/token/init', { serial: 'R3', realm: 'realm1', genkey: '1' }),
        303,
        REALM_LIMIT,
      );
      expectServiceError(
        await call('/token/init', { serial: 'R3', user: 'bob', realm: 'realm1', genkey: '1' }),
        303,
        REALM_LIMIT,
      );
      // Re-enrolling a token of the realm, and other realms, are not limited.
      await init({ serial: 'R2', ...alice, genkey: '1' });
      await init({ serial: 'R4', realm: 'realm2', genkey: '1' });
      await init({ serial: 'R5', genkey: '1' });
      expectServiceError(
        await call('/token/assign', { serial: 'R5', user: 'bob', realm: 'realm1' }),
        303,
        REALM_LIMIT,
      );
      // Adding the token to a realm counts as well (reference 3.5); its own realms do not.
      expectServiceError(await call('/token/realm/R5', { realms: 'realm1,realm2' }), 303, REALM_LIMIT);
      expect(ok(await call('/token/realm/R5', { realms: 'realm2' }))).toBe(true);
      expect(ok(await call('/token/realm/R1', { realms: 'realm1,realm2' }))).toBe(true);
      expect((await get('R1')).realms).toEqual(['realm1', 'realm2']);
      // The limit is checked before the enroll right.
      await policy('admin-spass', { scope: 'admin', action: 'enrollSPASS' });
      expectServiceError(await call('/token/init', { serial: 'R6', realm: 'realm1' }), 303, REALM_LIMIT);
      expectServiceError(
        await call('/token/init', { serial: 'R6', realm: 'realm2' }),
        303,
        DENIED_ADMIN('enrollHOTP'),
      );
    });
  });

  it('require_description: listed types need a description unless the token has one', async () => {
    await policy('desc', { scope: 'enrollment', action: { require_description: 'hotp totp' } });
    expectServiceError(
      await call('/token/init', { serial: 'D1', genkey: '1' }),
      303,
      'Description required for token type hotp.',
    );
    expectServiceError(
      await call('/token/init', { serial: 'D1', type: 'totp', genkey: '1', description: '' }),
      303,
      'Description required for token type totp.',
    );
    await init({ serial: 'D1', genkey: '1', description: 'laptop' });
    // A re-key of a token that has a description needs none.
    await init({ serial: 'D1', genkey: '1' });
    expect((await get('D1')).description).toBe('laptop');
    await init({ serial: 'S1', type: 'spass' });
  });

  describe('PINs', () => {
    it('otp_pin_random sets a random PIN (not returned), replacing a given one', async () => {
      await policy('random', { scope: 'enrollment', action: { otp_pin_random: '12' }, realm: 'realm1' });
      const d = await init({ serial: 'P1', ...alice, genkey: '1', pin: 'mine' });
      expect(JSON.stringify(d)).not.toContain('"pin"');
      const hash = (await row('P1')).pin_hash;
      expect(hash).not.toBe('');
      expect(await verifyPassword('mine', hash)).toBe(false);
      // Other realms: the given PIN.
      await init({ serial: 'P2', user: 'carol', realm: 'realm2', genkey: '1', pin: 'mine' });
      expect(await verifyPassword('mine', (await row('P2')).pin_hash)).toBe(true);
    });

    it('otp_pin_minlength / maxlength / contents (admin scope) on init, setpin and assign', async () => {
      await policy('pins', {
        scope: 'admin',
        action: { '*': true, otp_pin_minlength: '4', otp_pin_maxlength: '8', otp_pin_contents: 'cn' },
      });
      const bad: [string, string][] = [
        ['a1', 'The minimum OTP PIN length is 4'],
        ['abcdefg12', 'The maximum OTP PIN length is 8'],
        ['abcdef', MISSING(DIGITS)],
        ['123456', MISSING(LETTERS)],
      ];
      for (const [pin, message] of bad)
        expectServiceError(await call('/token/init', { serial: 'PP', genkey: '1', pin }), 303, message);
      expect(await s.rt.store.db.selectFrom('token').selectAll().execute()).toEqual([]);
      await init({ serial: 'PP', genkey: '1', pin: 'abc123' });
      await init({ serial: 'NOPIN', genkey: '1' });
      for (const [pin, message] of bad)
        expectServiceError(await call('/token/setpin/PP', { otppin: pin }), 303, message);
      expect(await verifyPassword('abc123', (await row('PP')).pin_hash)).toBe(true);
      expect(ok(await call('/token/setpin/PP', { otppin: 'xyz789' }))).toBe(1);
      expectServiceError(
        await call('/token/assign', { serial: 'NOPIN', ...alice, pin: 'a1' }),
        303,
        bad[0]![1],
      );
      ok(await call('/token/assign', { serial: 'NOPIN', ...alice, pin: 'a1b2' }));
    });

    it('otp_pin_contents: + means any of the groups, - none of them; s are specials', async () => {
      const contents = async (value: string) =>
        policy('contents', { scope: 'admin', action: { '*': true, otp_pin_contents: value } });
      await init({ serial: 'PC', genkey: '1' });
      await contents('+sn');
      expectServiceError(
        await call('/token/setpin/PC', { otppin: 'abcd' }),
        303,
        MISSING(PUNCTUATION + DIGITS),
      );
      ok(await call('/token/setpin/PC', { otppin: 'abc1' }));
      ok(await call('/token/setpin/PC', { otppin: 'ab!d' }));
      await contents('-n');
      expectServiceError(
        await call('/token/setpin/PC', { otppin: 'abc1' }),
        303,
        'Not allowed character in PIN!',
      );
      ok(await call('/token/setpin/PC', { otppin: 'abc!' }));
      await contents('cs');
      expectServiceError(await call('/token/setpin/PC', { otppin: 'abc1' }), 303, MISSING(PUNCTUATION));
      ok(await call('/token/setpin/PC', { otppin: 'abc%' }));
    });

    it('PIN rules of the user scope apply to users', async () => {
      await policy('u', { scope: 'user', action: { '*': true, otp_pin_minlength: '6' }, realm: 'realm1' });
      const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
      expectServiceError(
        await call('/token/init', { serial: 'UP', genkey: '1', pin: 'abc' }, jwt),
        303,
        'The minimum OTP PIN length is 6',
      );
      await init({ serial: 'UP', genkey: '1', pin: 'abcdef' }, jwt);
      expectServiceError(
        await call('/token/setpin/UP', { otppin: 'abc' }, jwt),
        303,
        'The minimum OTP PIN length is 6',
      );
      // Administrators are not bound by user policies.
      ok(await call('/token/setpin/UP', { otppin: 'abc' }));
    });

    it('change_pin_on_first_use (admin enrolls) and change_pin_every set next_pin_change', async () => {
      await policy('first', { scope: 'enrollment', action: 'change_pin_on_first_use', realm: 'realm1' });
      const before = Date.now();
      await init({ serial: 'CP1', ...alice, genkey: '1', pin: 'pin1' });
      const next = (await get('CP1')).info.next_pin_change as string;
      expect(next).toMatch(MINUTE);
      expect(Math.abs(minuteTime(next) - before)).toBeLessThan(120_000);
      await policy('every', { scope: 'enrollment', action: { change_pin_every: '90d' }, realm: 'realm2' });
      await init({ serial: 'CP2', user: 'carol', realm: 'realm2', genkey: '1', pin: 'pin1' });
      const later = (await get('CP2')).info.next_pin_change as string;
      expect(Math.abs(minuteTime(later) - (before + 90 * 86_400_000))).toBeLessThan(120_000);
      // A user setting his own PIN under change_pin_every gets a new date; on_first_use is for admins.
      await policy('every1', { scope: 'enrollment', action: { change_pin_every: '1d' }, realm: 'realm1' });
      const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
      ok(await call('/token/setpin/CP1', { otppin: 'newpin' }, jwt));
      const after = (await get('CP1')).info.next_pin_change as string;
      expect(Math.abs(minuteTime(after) - (before + 86_400_000))).toBeLessThan(120_000);
      // No policy: no date.
      await init({ serial: 'CP3', genkey: '1', pin: 'x' });
      expect((await get('CP3')).info.next_pin_change).toBeUndefined();
    });
  });

  it('tokenlabel and tokenissuer (policy or request) shape the otpauth URI', async () => {
    const b32 = base32Encode(Buffer.from(SEED, 'hex'));
    let d = await init({ serial: 'L0', otpkey: SEED, tokenlabel: 'my token/<s>', tokenissuer: 'Acme & Co' });
    expect(d.googleurl.value).toBe(
      `otpauth://hotp/my%20token/L0?secret=${b32}&counter=1&digits=6&creator=privacyidea&issuer=Acme%20%26%20Co&serial=L0`,
    );
    await policy('label', {
      scope: 'enrollment',
      action: { tokenlabel: "'{user}@{realm} <s>'", tokenissuer: 'Org-{realm}' },
      realm: 'realm1',
    });
    d = await init({ serial: 'L1', ...alice, otpkey: SEED, tokenlabel: 'ignored' });
    expect(d.googleurl.value).toBe(
      `otpauth://hotp/alice%40realm1%20L1?secret=${b32}&counter=1&digits=6&creator=privacyidea&issuer=Org-realm1&serial=L1`,
    );
    d = await init({ serial: 'L2', type: 'totp', user: 'carol', realm: 'realm2', otpkey: SEED });
    expect(d.googleurl.value).toContain(`otpauth://totp/L2?secret=${b32}&period=30`);
    expect(d.googleurl.value).toContain('&issuer=privacyIDEA&');
    // A long label is cut so that the URI stays short.
    d = await init({ serial: 'L3', otpkey: SEED, tokenlabel: 'x'.repeat(300) });
    const label = /^otpauth:\/\/hotp\/(x+)\?/.exec(d.googleurl.value)![1]!;
    expect(label.length).toBe(180 - `otpauth://hotp/?secret=${b32}&counter=1`.length);
  });

  it('hotp_/totp_ hashlib, otplen and timestep of the admin and user scopes are defaults', async () => {
    await policy('defaults', {
      scope: 'admin',
      action: {
        '*': true,
        hotp_hashlib: 'sha256',
        hotp_otplen: '8',
        totp_timestep: '60',
        totp_hashlib: 'sha512',
      },
    });
    await init({ serial: 'HD', genkey: '1' });
    let t = await get('HD');
    expect(t.otplen).toBe(8);
    expect(t.info.hashlib).toBe('sha256');
    await init({ serial: 'HE', genkey: '1', hashlib: 'sha1', otplen: '6' });
    t = await get('HE');
    expect([t.otplen, t.info.hashlib]).toEqual([6, 'sha1']);
    await init({ serial: 'TD', type: 'totp', genkey: '1' });
    t = await get('TD');
    expect([t.otplen, t.info.hashlib, t.info.timeStep]).toEqual([6, 'sha512', '60']);
    await policy('u', { scope: 'user', action: { '*': true, totp_otplen: '8' }, realm: 'realm1' });
    const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
    await init({ serial: 'TU', type: 'totp', genkey: '1' }, jwt);
    t = await get('TU');
    expect([t.otplen, t.info.hashlib, t.info.timeStep]).toEqual([8, 'sha1', '30']);
  });

  it('verify_enrollment: the token waits in rollout state verify until a valid OTP value', async () => {
    await policy('verify', { scope: 'enrollment', action: { verify_enrollment: 'hotp' } });
    const d = await init({ serial: 'V1', ...alice, otpkey: SEED, pin: 'vp' });
    expect(d.rollout_state).toBe('verify');
    expect(d.verify).toEqual({ message: 'Please enter a valid OTP value of the new token.' });
    expect((await get('V1')).rollout_state).toBe('verify');
    const check = await s.call('POST', '/validate/check', { ...alice, pass: `vp${otp(0)}` });
    expect(check.json.result.value).toBe(false);
    expectServiceError(
      await call('/token/init', { serial: 'V1', verify: '000000' }),
      905,
      'Verification of the new token failed.',
    );
    const r = await call('/token/init', { serial: 'V1', verify: otp(1) });
    expect(ok(r)).toBe(true);
    expect(r.json.detail).toMatchObject({ serial: 'V1', rollout_state: 'enrolled' });
    expect((await get('V1')).rollout_state).toBe('enrolled');
    expectServiceError(await call('/token/init', { serial: 'V1', verify: otp(2) }), 905);
    expectServiceError(await call('/token/init', { verify: otp(2) }), 905, "Missing parameter: 'serial'");
    const ok2 = await s.call('POST', '/validate/check', { ...alice, pass: `vp${otp(2)}` });
    expect(ok2.json.result.value).toBe(true);
    // Types not listed are enrolled at once.
    expect((await init({ serial: 'V2', type: 'totp', genkey: '1' })).rollout_state).toBe('');
  });

  it('setrandompin: otp_pin_set_random gives the length; the PIN is in detail.pin', async () => {
    await init({ serial: 'SR', ...alice, genkey: '1' });
    await init({ serial: 'SR2', ...alice, genkey: '1' });
    const empty = "We have an empty PIN. Please check your policy 'otp_pin_set_random'.";
    expectServiceError(await call('/token/setrandompin/SR', {}), 301, empty);
    await policy('rnd', {
      scope: 'admin',
      action: { '*': true, otp_pin_set_random: '10', otp_pin_contents: 'cns' },
    });
    const r = await call('/token/setrandompin', { serial: 'SR' });
    expect(ok(r)).toBe(1);
    const pin = r.json.detail.pin as string;
    expect(pin).toHaveLength(10);
    expect(pin).toMatch(/[a-zA-Z]/);
    expect(pin).toMatch(/\d/);
    expect(await verifyPassword(pin, (await row('SR')).pin_hash)).toBe(true);
    expectServiceError(await call('/token/setrandompin/NOPE', {}), 601);
    expectServiceError(await call('/token/setrandompin', {}), 905);
    // Users: their own tokens, with a right and a length of the user scope.
    const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
    await policy('u', { scope: 'user', action: 'setpin', realm: 'realm1' });
    expectServiceError(await call('/token/setrandompin/SR2', {}, jwt), 303, DENIED_USER('setrandompin'));
    await policy('u', { scope: 'user', action: 'setrandompin', realm: 'realm1' });
    expectServiceError(await call('/token/setrandompin/SR2', {}, jwt), 301, empty);
    await policy('u', {
      scope: 'user',
      action: { setrandompin: true, otp_pin_set_random: '6' },
      realm: 'realm1',
    });
    const u = await call('/token/setrandompin/SR2', {}, jwt);
    expect(ok(u)).toBe(1);
    expect(u.json.detail.pin).toMatch(/^[a-zA-Z0-9]{6}$/);
  });

  it('copypin and copyuser (admin): from, to', async () => {
    await init({ serial: 'FROM', ...alice, genkey: '1', pin: 'frompin' });
    await init({ serial: 'TO', realm: 'realm2', genkey: '1', pin: 'other' });
    expect(ok(await call('/token/copypin', { from: 'FROM', to: 'TO' }))).toBe(true);
    expect(await verifyPassword('frompin', (await row('TO')).pin_hash)).toBe(true);
    expect(ok(await call('/token/copyuser', { from: 'FROM', to: 'TO' }))).toBe(true);
    const to = await get('TO');
    expect([to.username, to.user_realm, to.realms]).toEqual(['alice', 'realm1', ['realm1']]);
    expectServiceError(await call('/token/copypin', { to: 'TO' }), 905, "Missing parameter: 'from'");
    expectServiceError(await call('/token/copyuser', { from: 'FROM' }), 905, "Missing parameter: 'to'");
    expectServiceError(await call('/token/copypin', { from: 'NOPE', to: 'TO' }), 601);
    ok(await call('/token/revoke/TO', {}));
    expectServiceError(await call('/token/copypin', { from: 'FROM', to: 'TO' }), 1007);
    const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
    expect((await call('/token/copypin', { from: 'FROM', to: 'TO' }, jwt)).status).toBe(401);
    await policy('a', { scope: 'admin', action: 'copytokenuser' });
    expectServiceError(
      await call('/token/copypin', { from: 'FROM', to: 'TO' }),
      303,
      DENIED_ADMIN('copytokenpin'),
    );
  });

  describe('lost', () => {
    it('creates the temporary pw token lost<serial> with owner and PIN, and disables the lost one', async () => {
      await init({ serial: 'LOST1', ...alice, otpkey: SEED, pin: 'lostpin' });
      const before = Date.now();
      const v = ok(await call('/token/lost/LOST1', {}));
      expect(Object.keys(v).sort()).toEqual(
        ['disable', 'end_date', 'init', 'password', 'pin', 'serial', 'user', 'valid_to'].sort(),
      );
      expect(v).toMatchObject({
        serial: 'lostLOST1',
        init: true,
        user: true,
        pin: true,
        valid_to: 'xxxx',
        disable: 1,
      });
      expect(v.password).toMatch(/^[1-9A-HJ-NP-Za-km-z]{16}$/);
      expect(v.end_date).toMatch(MINUTE);
      expect(Math.abs(minuteTime(v.end_date) - (before + 10 * 86_400_000))).toBeLessThan(120_000);
      const t = await get('lostLOST1');
      expect(t).toMatchObject({
        tokentype: 'pw',
        username: 'alice',
        user_realm: 'realm1',
        realms: ['realm1'],
        active: true,
        description: 'temporary replacement for LOST1',
      });
      expect(t.info.validity_period_end).toBe(v.end_date);
      expect(await verifyPassword('lostpin', (await row('lostLOST1')).pin_hash)).toBe(true);
      expect((await get('LOST1')).active).toBe(false);
      // The replacement logs the user in with the old PIN and the password.
      const check = await s.call('POST', '/validate/check', { ...alice, pass: `lostpin${v.password}` });
      expect(check.json.result.value).toBe(true);
      // Lost again: the replacement is renewed.
      const again = ok(await call('/token/lost/LOST1', {}));
      expect(again.password).not.toBe(v.password);
    });

    it('losttoken_PW_length, losttoken_PW_contents and losttoken_valid; errors; users', async () => {
      await policy('lost', {
        scope: 'enrollment',
        action: { losttoken_PW_length: '6', losttoken_PW_contents: 'n', losttoken_valid: '1' },
        realm: 'realm1',
      });
      await init({ serial: 'L1', ...alice, genkey: '1' });
      const before = Date.now();
      const v = ok(await call('/token/lost/L1', {}));
      expect(v.password).toMatch(/^\d{6}$/);
      expect(Math.abs(minuteTime(v.end_date) - (before + 86_400_000))).toBeLessThan(120_000);
      await policy('lost', { scope: 'enrollment', action: { losttoken_PW_contents: 'Cs' }, realm: 'realm1' });
      const w = ok(await call('/token/lost/L1', {}));
      expect(w.password).toHaveLength(16);
      expect(w.password).toMatch(/^[A-Z!#$%&()*+,\-./:;<=>?@[\]^_]+$/);
      expect(w.password).toMatch(/[A-Z]/);
      await init({ serial: 'FREE', genkey: '1' });
      expectServiceError(
        await call('/token/lost/FREE', {}),
        2012,
        'You can only define a lost token for an assigned token.',
      );
      expectServiceError(await call('/token/lost/NOPE', {}), 601);
      await init({ serial: 'BOBS', user: 'bob', realm: 'realm1', genkey: '1' });
      await init({ serial: 'ALICES', ...alice, genkey: '1' });
      const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
      expectServiceError(await call('/token/lost/BOBS', {}, jwt), 303, DENIED_USER('losttoken'));
      expect(ok(await call('/token/lost/ALICES', {}, jwt)).serial).toBe('lostALICES');
      await policy('admin', { scope: 'admin', action: 'enable' });
      expectServiceError(await call('/token/lost/BOBS', {}), 303, DENIED_ADMIN('losttoken'));
      ok(await call('/token/revoke/ALICES', {}, jwt));
      await deletePolicy(op, 'admin');
      expectServiceError(await call('/token/lost/ALICES', {}), 1007);
    });
  });

  it('getserial: the HOTP token of an OTP value, consumed; filters; count; several matches → 1200', async () => {
    await init({ serial: 'G1', ...alice, otpkey: SEED });
    await init({ serial: 'G2', otpkey: SEED2 });
    await init({ serial: 'GT', type: 'totp', otpkey: SEED });
    const getserial = async (value: string, params: Record<string, string> = {}) =>
      ok(await s.call('GET', `/token/getserial/${value}`, params, admin));
    expect(await getserial(otp(0, SEED2))).toEqual({ serial: 'G2', count: 3 });
    expect(Number((await row('G2')).count)).toBe(1);
    // The value is consumed.
    expect(await getserial(otp(0, SEED2))).toEqual({ serial: null, count: 3 });
    // Window (default 10) from the token's counter.
    expect((await getserial(otp(12))).serial).toBeNull();
    expect((await getserial(otp(12), { window: '20' })).serial).toBe('G1');
    expect(Number((await row('G1')).count)).toBe(13);
    // Filters and count only.
    expect(await getserial(otp(13), { type: 'totp' })).toEqual({ serial: null, count: 1 });
    expect(await getserial(otp(13), { unassigned: '1' })).toEqual({ serial: null, count: 2 });
    expect(await getserial(otp(13), { serial: '1', count: '1' })).toEqual({ serial: null, count: 1 });
    expect(Number((await row('G1')).count)).toBe(13);
    expect(await getserial(otp(13), { assigned: '1' })).toEqual({ serial: 'G1', count: 1 });
    // Two tokens with the same seed and counter → ERR1200.
    await init({ serial: 'D1', otpkey: SEED2 });
    await init({ serial: 'D2', otpkey: SEED2 });
    expectServiceError(
      await s.call('GET', `/token/getserial/${otp(0, SEED2)}`, { serial: 'D' }, admin),
      1200,
      'multiple tokens are matching this OTP value!',
    );
    const jwt = await userToken(s, 'alice', 'alicepw', 'realm1');
    expect((await s.call('GET', `/token/getserial/${otp(14)}`, {}, jwt)).status).toBe(401);
    await policy('a', { scope: 'admin', action: 'tokenlist' });
    expectServiceError(
      await s.call('GET', `/token/getserial/${otp(14)}`, {}, admin),
      303,
      DENIED_ADMIN('getserial'),
    );
  });
});

describe.each(testDialects())('/token enrollment policies on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(dialect, { realms: REALMS }, (t) => ({ s, op, admin } = t));

  it('max_token_per_user and lost', async () => {
    await setPolicy(op, 'max1', { scope: 'enrollment', action: { max_token_per_user: '1' } });
    ok(
      await s.call(
        'POST',
        '/token/init',
        { serial: 'M1', user: 'alice', realm: 'realm1', otpkey: SEED, pin: 'pp' },
        admin,
      ),
    );
    expectServiceError(
      await s.call(
        'POST',
        '/token/init',
        { serial: 'M2', user: 'alice', realm: 'realm1', genkey: '1' },
        admin,
      ),
      303,
      USER_LIMIT,
    );
    await deletePolicy(op, 'max1');
    const v = ok(await s.call('POST', '/token/lost/M1', {}, admin));
    expect(v.serial).toBe('lostM1');
    const list = ok(await s.call('GET', '/token/', { user: 'alice', realm: 'realm1' }, admin));
    const states = Object.fromEntries(
      list.tokens.map((t: { serial: string; active: boolean }) => [t.serial, t.active]),
    );
    expect(states).toEqual({ lostM1: true, M1: false });
    expect(
      await verifyPassword(
        'pp',
        (
          await s.rt.store.db
            .selectFrom('token')
            .select('pin_hash')
            .where('serial', '=', 'lostM1')
            .executeTakeFirstOrThrow()
        ).pin_hash,
      ),
    ).toBe(true);
  });
});
