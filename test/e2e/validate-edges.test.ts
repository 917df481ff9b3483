// /validate edges over HTTP (reference 4.3, 4.4, 4.5): the challenge validity from
// DefaultChallengeValidityTime and <Type>ChallengeValidityTime, polltransaction around the expiry
// of an answered challenge, TOTP drift learned by /validate/check (tokeninfo timeShift), and
// otponly=1 on the serial and the user path.
import { afterEach, describe, expect, it } from 'vitest';
import { markAnswered } from '../../src/core/validate/challenge-store.ts';
import { removeConfig } from '../helpers/config.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer, validateOk } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

/** RFC 4226 test seed ("12345678901234567890"). */
const KEY = '3132333435363738393031323334353637383930';
/** A multiple of 30 s: the step boundary, so that drift values are whole steps. */
const START = new Date('2026-03-01T12:00:00Z');

describe.each(testDialects())('/validate edges on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let now = START;

  useTokenServer(
    dialect,
    {
      clock: () => now,
      realms: {
        realm1: [
          { login: 'alice', uid: 1001 },
          { login: 'bob', uid: 1002 },
          { login: 'carol', uid: 1003 },
          { login: 'dave', uid: 1004 },
        ],
      },
      reset: ['tokens'],
    },
    (t) => ({ s, admin } = t),
  );
  afterEach(async () => {
    await removeConfig(s.rt, /ChallengeValidityTime$/);
    now = START;
  });

  const later = (seconds: number) => {
    now = new Date(now.getTime() + seconds * 1000);
  };
  const step = () => Math.floor(now.getTime() / 30_000);
  const enroll = async (params: Record<string, string>) =>
    ok(await s.call('POST', '/token/init', { otpkey: KEY, realm: 'realm1', ...params }, admin)).serial as
      | string
      | undefined;
  const check = async (params: Record<string, string>) => (await validateOk(s, params)).json;
  const trigger = async (serial: string): Promise<string> => {
    const r = await s.call('POST', '/validate/triggerchallenge', { serial }, admin);
    expect(r.json.result, r.text).toMatchObject({ status: true, value: 1, authentication: 'CHALLENGE' });
    return r.json.detail.transaction_id as string;
  };
  const setConfig = async (values: Record<string, string>) =>
    ok(await s.call('POST', '/system/setConfig', values, admin));
  /** Seconds between the timestamp and the expiration of the challenges of a transaction. */
  const validityOf = async (tid: string): Promise<number[]> => {
    const v = ok(await s.call('GET', '/token/challenges/', { transaction_id: tid }, admin));
    return v.challenges.map(
      (c: { timestamp: string; expiration: string }) =>
        (Date.parse(c.expiration) - Date.parse(c.timestamp)) / 1000,
    );
  };
  const tokenInfo = async (serial: string): Promise<Record<string, string>> =>
    ok(await s.call('GET', '/token/', { serial }, admin)).tokens[0].info;

  it('keeps a challenge answerable for DefaultChallengeValidityTime seconds, not one more', async () => {
    await enroll({ type: 'hotp', serial: 'CVHOTP1', user: 'alice' });
    await setConfig({ DefaultChallengeValidityTime: '60' });

    const t1 = await trigger('CVHOTP1');
    expect(await validityOf(t1)).toEqual([60]);
    later(59);
    const inTime = await check({ serial: 'CVHOTP1', transaction_id: t1, pass: hotp(KEY, 0) });
    expect(inTime.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
    expect(inTime.detail.message).toBe('Found matching challenge');

    const t2 = await trigger('CVHOTP1');
    later(60);
    // timestamp <= now < expiration: at the expiration the challenge is over (the OTP is right).
    const late = await check({ serial: 'CVHOTP1', transaction_id: t2, pass: hotp(KEY, 1) });
    expect(late.result).toMatchObject({ value: false, authentication: 'REJECT' });
    // An existing but expired row (reference 4.3).
    expect(late.detail.message).toBe('Response did not match the challenge.');
    // The value was not used up by the refused answer: it still answers a fresh challenge.
    const t3 = await trigger('CVHOTP1');
    expect((await check({ serial: 'CVHOTP1', transaction_id: t3, pass: hotp(KEY, 1) })).result.value).toBe(
      true,
    );
  });

  it('lets <Type>ChallengeValidityTime win over the default for its type only', async () => {
    await enroll({ type: 'hotp', serial: 'CVHOTP2', user: 'alice' });
    await enroll({ type: 'totp', serial: 'CVTOTP2', user: 'bob' });
    await setConfig({ DefaultChallengeValidityTime: '60', HotpChallengeValidityTime: '30' });

    const h1 = await trigger('CVHOTP2');
    expect(await validityOf(h1)).toEqual([30]);
    later(29);
    expect((await check({ serial: 'CVHOTP2', transaction_id: h1, pass: hotp(KEY, 0) })).result.value).toBe(
      true,
    );
    const h2 = await trigger('CVHOTP2');
    later(30);
    // Within the default's 60 s, but the HOTP validity of 30 s is over.
    expect((await check({ serial: 'CVHOTP2', transaction_id: h2, pass: hotp(KEY, 1) })).result.value).toBe(
      false,
    );

    // TOTP has no type-specific value: the default applies.
    const t1 = await trigger('CVTOTP2');
    expect(await validityOf(t1)).toEqual([60]);
    later(59);
    const totp = await check({ serial: 'CVTOTP2', transaction_id: t1, pass: hotp(KEY, step()) });
    expect(totp.result.value).toBe(true);
    const t2 = await trigger('CVTOTP2');
    later(60);
    expect(
      (await check({ serial: 'CVTOTP2', transaction_id: t2, pass: hotp(KEY, step()) })).result.value,
    ).toBe(false);

    // A larger type-specific value wins as well.
    await setConfig({ HotpChallengeValidityTime: '200' });
    const h3 = await trigger('CVHOTP2');
    expect(await validityOf(h3)).toEqual([200]);
    later(199);
    expect((await check({ serial: 'CVHOTP2', transaction_id: h3, pass: hotp(KEY, 1) })).result.value).toBe(
      true,
    );
  });

  it('polls an answered challenge as accepted until it expires', async () => {
    await enroll({ type: 'hotp', serial: 'POLL1', user: 'alice' });
    await setConfig({ DefaultChallengeValidityTime: '90' });
    const tid = await trigger('POLL1');
    const poll = async () => {
      const r = await s.call('GET', `/validate/polltransaction/${tid}`);
      expect(r.status, r.text).toBe(200);
      expect(r.json.id).toBe(2);
      return r.json;
    };
    expect((await poll()).detail.challenge_status).toBe('pending');
    // An out-of-band answer (what push/tiqr do): otp_valid on the challenge.
    await markAnswered(s.rt, tid);
    later(89);
    const answered = await poll();
    expect(answered.result).toMatchObject({ status: true, value: true, authentication: 'ACCEPT' });
    expect(answered.detail.challenge_status).toBe('accept');
    later(1);
    const expired = await poll();
    expect(expired.result).toMatchObject({ status: true, value: false, authentication: 'REJECT' });
    expect(expired.detail.challenge_status).toBe('pending');
    // The query form agrees.
    const q = await s.call('GET', '/validate/polltransaction', { transaction_id: tid });
    expect(q.json.result.value).toBe(false);
    // And the expired answered challenge no longer finishes an authentication with an empty pass.
    expect((await check({ serial: 'POLL1', transaction_id: tid, pass: '' })).result.value).toBe(false);
  });

  it('learns a positive TOTP drift and uses it for the next login', async () => {
    // timeWindow 120 s: steps now-4 … now+3 (privacyIDEA's range(c - w, c + w)).
    await enroll({ type: 'totp', serial: 'DRIFT1', user: 'carol', timeWindow: '120' });
    const n = step();
    // The token runs three steps (90 s) ahead: inside the window.
    const first = await check({ user: 'carol', realm: 'realm1', pass: hotp(KEY, n + 3) });
    expect(first.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
    expect(first.detail).toMatchObject({ message: 'matching 1 tokens', serial: 'DRIFT1', type: 'totp' });
    // timeShift = matched step * timeStep - now (reference 4.5): the token is 90 s ahead.
    expect((await tokenInfo('DRIFT1')).timeShift).toBe('90');
    later(30);
    // Now four steps ahead: step n+5 is outside now-4 … now+3 (n-3 … n+4) and only found with the
    // learned shift (n … n+7).
    const next = await check({ user: 'carol', realm: 'realm1', pass: hotp(KEY, n + 5) });
    expect(next.result.value).toBe(true);
    expect((await tokenInfo('DRIFT1')).timeShift).toBe('120');
    // Without a learned shift the same lead fails: a second token with the same seed.
    await enroll({ type: 'totp', serial: 'DRIFT1B', user: 'dave', timeWindow: '120' });
    const fresh = await check({ user: 'dave', realm: 'realm1', pass: hotp(KEY, n + 6) });
    expect(fresh.result.value).toBe(false);
    expect(fresh.detail.message).toBe('wrong otp value');
    expect((await tokenInfo('DRIFT1B')).timeShift).toBe('0');
  });

  it('learns a negative TOTP drift and follows it', async () => {
    // timeWindow 90 s: steps now-3 … now+2.
    await enroll({ type: 'totp', serial: 'DRIFT2', user: 'carol', timeWindow: '90' });
    const n = step();
    // Three steps behind: the oldest step the window accepts.
    expect((await check({ user: 'carol', realm: 'realm1', pass: hotp(KEY, n - 3) })).result.value).toBe(true);
    expect((await tokenInfo('DRIFT2')).timeShift).toBe('-90');
    later(60);
    // Now four steps behind (n-2 at n+2): outside n-1 … n+4, inside with the shift (n-4 … n+1).
    expect((await check({ user: 'carol', realm: 'realm1', pass: hotp(KEY, n - 2) })).result.value).toBe(true);
    expect((await tokenInfo('DRIFT2')).timeShift).toBe('-120');
  });

  it('checks only the OTP with otponly=1 and a serial, ignores otponly on the user path', async () => {
    await enroll({ type: 'hotp', serial: 'OTPONLY1', user: 'dave', pin: 'op' });
    const only = await check({ serial: 'OTPONLY1', otponly: '1', pass: hotp(KEY, 0) });
    expect(only.result).toMatchObject({ value: true, authentication: 'ACCEPT' });
    expect(only.detail).toMatchObject({ message: 'matching 1 tokens', serial: 'OTPONLY1', type: 'hotp' });
    // PIN+OTP is not an OTP: refused, and the OTP in it is not used up.
    const withPin = await check({ serial: 'OTPONLY1', otponly: '1', pass: `op${hotp(KEY, 1)}` });
    expect(withPin.result).toMatchObject({ value: false, authentication: 'REJECT' });
    expect((await check({ serial: 'OTPONLY1', otponly: '1', pass: hotp(KEY, 1) })).result.value).toBe(true);
    // Without otponly the serial path wants the PIN again.
    expect((await check({ serial: 'OTPONLY1', pass: hotp(KEY, 2) })).result.value).toBe(false);

    // On the user path otponly has no effect (reference 4.2: "with serial"): the OTP alone is a
    // wrong PIN, PIN+OTP authenticates.
    const userOnly = await check({ user: 'dave', realm: 'realm1', otponly: '1', pass: hotp(KEY, 2) });
    expect(userOnly.result.value).toBe(false);
    expect(userOnly.detail.message).toBe('wrong otp pin');
    const userPin = await check({ user: 'dave', realm: 'realm1', otponly: '1', pass: `op${hotp(KEY, 2)}` });
    expect(userPin.result.value).toBe(true);
  });
});
