// The 4eyes token over HTTP (issue 5; reference 3.1, 4.2.2): enrollment and its errors, the
// two-man rule in one step (the other tokens' PIN+OTP values split by the separator) and in
// challenge-response rounds (started by the 4eyes PIN or by too few tokens), distinct tokens,
// consumed values.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { tokenRow, useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

const KEY_A = '3132333435363738393031323334353637383930';
const KEY_B = '4142434445464748494a4b4c4d4e4f5051525354';
const KEY_E = '6162636465666768696a6b6c6d6e6f7071727374';

describe.each(testDialects())('4eyes token on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: {
        realm1: [pwUser('alice', 1001), pwUser('bob', 1002), pwUser('dave', 1004)],
        realm2: [pwUser('erin', 2001)],
      },
      reset: ['tokens'],
    },
    (t) => ({ s, op, admin } = t),
  );

  const enroll = async (params: Record<string, string>) => (await initToken(op, params)).serial;
  /** alice (PIN a1) and bob (PIN b1) in realm1, erin (PIN e1) in realm2, each with a HOTP token. */
  const approvers = async () => {
    await enroll({ type: 'hotp', otpkey: KEY_A, pin: 'a1', user: 'alice', realm: 'realm1', serial: 'HA' });
    await enroll({ type: 'hotp', otpkey: KEY_B, pin: 'b1', user: 'bob', realm: 'realm1', serial: 'HB' });
    await enroll({ type: 'hotp', otpkey: KEY_E, pin: 'e1', user: 'erin', realm: 'realm2', serial: 'HE' });
  };
  const fourEyes = (params: Record<string, string>) =>
    enroll({ type: '4eyes', user: 'dave', realm: 'realm1', serial: 'PI4E1', ...params });
  const check = async (params: Record<string, string>) => (await validateOk(s, params)).json;
  const dave = (pass: string, extra: Record<string, string> = {}) =>
    check({ user: 'dave', realm: 'realm1', pass, ...extra });
  const counter = async (serial: string) => Number((await tokenRow(s, serial)).count);

  it('enrolls over HTTP with the realms and separator as tokeninfo; bad parameters are refused', async () => {
    const r = await s.call(
      'POST',
      '/token/init',
      { type: '4eyes', '4eyes': 'realm1:2, realm2:1', separator: '|', pin: 'x' },
      admin,
    );
    ok(r);
    const serial = r.json.detail.serial as string;
    expect(serial).toMatch(/^PI4E/);
    const list = ok(await s.call('GET', '/token/', { serial }, admin));
    expect(list.tokens[0].tokentype).toBe('4eyes');
    expect(list.tokens[0].info).toMatchObject({
      '4eyes': 'realm1:2,realm2:1',
      separator: '|',
      tokenkind: 'virtual',
    });

    const refused = async (params: Record<string, string>, message: RegExp) => {
      const before = await s.rt.store.db.selectFrom('token').select('serial').execute();
      const e = await s.call('POST', '/token/init', { type: '4eyes', ...params }, admin);
      expect(e.json.result.status).toBe(false);
      expect(e.json.result.error.code).toBe(905);
      expect(e.json.result.error.message).toMatch(message);
      expect(await s.rt.store.db.selectFrom('token').select('serial').execute()).toHaveLength(before.length);
    };
    await refused({}, /Missing parameter: '4eyes'/);
    await refused({ '4eyes': 'realm1' }, /realm1:2,realm2:1/);
    await refused({ '4eyes': 'realm1:0' }, /realm1:2,realm2:1/);
    await refused({ '4eyes': 'realm1:1,realm1:2' }, /realm1:2,realm2:1/);
    await refused(
      { '4eyes': 'realm1:1', separator: '||' },
      /^ERR905: The separator must only be one single character$/,
    );

    // A two-man rule is an administrator's tool: users have no enroll4EYES right to be given.
    const defs = ok(await s.call('GET', '/policy/defs/user', {}, admin));
    expect(Object.keys(defs)).not.toContain('enroll4EYES');
    const adminDefs = ok(await s.call('GET', '/policy/defs/admin', {}, admin));
    expect(Object.keys(adminDefs)).toContain('enroll4EYES');
  });

  it('authenticates in one step with two distinct tokens; values count once', async () => {
    await approvers();
    await fourEyes({ '4eyes': 'realm1:2', pin: '4e' });
    const pass = `a1${hotp(KEY_A, 0)} b1${hotp(KEY_B, 0)}`;
    const yes = await dave(pass);
    expect(yes.result.value).toBe(true);
    expect(yes.detail).toMatchObject({ message: 'matching 1 tokens', serial: 'PI4E1', type: '4eyes' });
    expect(await counter('HA')).toBe(1);
    expect(await counter('HB')).toBe(1);

    // The same values again: consumed, nothing found.
    const replay = await dave(pass);
    expect(replay.result.value).toBe(false);
    expect(replay.detail).toMatchObject({
      message: 'wrong otp value',
      serial: 'PI4E1',
      foureyes: 'Only found 0 tokens in realm realm1',
    });

    // A presented token's wrong PIN: its OTP is not used up.
    const wrongPin = await dave(`xx${hotp(KEY_A, 1)} b1${hotp(KEY_B, 1)}`);
    expect(wrongPin.result.value).toBe(false);
    expect(await counter('HA')).toBe(1);
    expect(await counter('HB')).toBe(2);
  });

  it('one token twice counts once: the next round asks for the rest, in the same transaction', async () => {
    await approvers();
    await fourEyes({ '4eyes': 'realm1:2', pin: '4e' });
    const first = await dave(`a1${hotp(KEY_A, 0)} a1${hotp(KEY_A, 1)}`);
    expect(first.result.value).toBe(false);
    expect(first.detail.message).toBe('Please authenticate with another token from either realm: realm1.');
    const tid = first.detail.transaction_id as string;
    expect(tid).toMatch(/^\d{20}$/);
    expect(first.detail.multi_challenge).toHaveLength(1);
    expect(first.detail.multi_challenge[0]).toMatchObject({
      serial: 'PI4E1',
      type: '4eyes',
      client_mode: 'interactive',
    });

    const done = await dave(`b1${hotp(KEY_B, 0)}`, { transaction_id: tid });
    expect(done.result.value).toBe(true);
    expect(done.detail).toMatchObject({
      message: 'Found matching challenge',
      serial: 'PI4E1',
      type: '4eyes',
    });
    expect(await s.rt.store.db.selectFrom('challenge').selectAll().execute()).toHaveLength(0);
  });

  it('challenge-response: the PIN starts it, every answer adds one token until all realms have theirs', async () => {
    await approvers();
    await fourEyes({ '4eyes': 'realm1:1,realm2:1', pin: '4e', separator: '|' });
    const start = await dave('4e');
    expect(start.result.value).toBe(false);
    expect(start.detail.message).toBe(
      'Please authenticate with another token from either realm: realm1, realm2.',
    );
    const tid = start.detail.transaction_id as string;

    const round1 = await dave(`a1${hotp(KEY_A, 0)}`, { transaction_id: tid });
    expect(round1.result.value).toBe(false);
    expect(round1.detail.transaction_id).toBe(tid);
    expect(round1.detail.message).toBe('Please authenticate with another token from either realm: realm2.');

    // Another realm1 token does not help, and a wrong answer is a failed response.
    const wrong = await dave(`b1${hotp(KEY_B, 0)}`, { transaction_id: tid });
    expect(wrong.result.value).toBe(false);
    expect(wrong.detail.message).toBe('Response did not match the challenge.');
    expect(await counter('HB')).toBe(0);

    const round2 = await dave(`e1${hotp(KEY_E, 0)}`, { transaction_id: tid });
    expect(round2.result.value).toBe(true);
    expect(round2.detail.message).toBe('Found matching challenge');
  });

  it('the separator splits the presented passwords; unassigned tokens do not count', async () => {
    await approvers();
    await fourEyes({ '4eyes': 'realm1:1,realm2:1', separator: '|' });
    const yes = await dave(`a1${hotp(KEY_A, 0)}|e1${hotp(KEY_E, 0)}`);
    expect(yes.result.value).toBe(true);
    // A blank is no separator here: the pass is one unknown password.
    const no = await dave(`a1${hotp(KEY_A, 1)} e1${hotp(KEY_E, 1)}`);
    expect(no.result.value).toBe(false);
    expect(no.detail.foureyes).toBe('Only found 0 tokens in realm realm1');
    await enroll({ type: 'hotp', otpkey: KEY_B, pin: 'u1', realm: 'realm2', serial: 'HU' });
    const unassigned = await dave(`a1${hotp(KEY_A, 2)}|u1${hotp(KEY_B, 0)}`);
    expect(unassigned.result.value).toBe(false);
    expect(unassigned.detail.message).toBe(
      'Please authenticate with another token from either realm: realm2.',
    );
    expect(await counter('HU')).toBe(0);
  });

  it('disabled or foreign-realm tokens do not count', async () => {
    await approvers();
    await fourEyes({ '4eyes': 'realm1:2', pin: '4e' });
    ok(await s.call('POST', '/token/disable', { serial: 'HB' }, admin));
    const r = await dave(`a1${hotp(KEY_A, 0)} b1${hotp(KEY_B, 0)} e1${hotp(KEY_E, 0)}`);
    expect(r.result.value).toBe(false);
    expect(r.detail.message).toBe('Please authenticate with another token from either realm: realm1.');
    expect(await counter('HB')).toBe(0);
    expect(await counter('HE')).toBe(0);
  });
});
