// The event conditions beyond the basic ones, over HTTP (reference 7.1 "Conditions"): each tried
// with a value that holds and one that does not, observed through a Counter definition that only
// counts when its conditions hold; GET /event/conditions lists them; malformed values are refused
// when a definition is saved, with nothing stored.
import { afterEach, describe, expect, it } from 'vitest';
import { eventCounterValues } from '../../src/core/event/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const NOW = new Date('2026-06-15T12:00:00Z');

describe.each(testDialects())('event conditions on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  useTokenServer(
    dialect,
    {
      clock: () => NOW,
      realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)] },
      reset: ['policies', 'challenges', 'tokens', 'audit'],
    },
    (t) => ({ s, admin } = t),
  );
  afterEach(async () => {
    for (const d of ok(await s.call('GET', '/event/', {}, admin)) as { id: number }[]) {
      ok(await s.call('DELETE', `/event/${d.id}`, {}, admin));
    }
    await s.rt.store.db.deleteFrom('eventcounter').execute();
  });

  const db = () => s.rt.store.db;
  const init = async (params: Record<string, string>) =>
    ok(await s.call('POST', '/token/init', params, admin));

  /**
   * Whether a definition with these conditions runs when POST /token/set names `serial` (with
   * `extra` parameters): it counts `fired`, which is read and then removed with the definition.
   */
  async function fires(
    serial: string,
    conditions: Record<string, string>,
    extra: Record<string, string> = {},
  ) {
    const id = ok(
      await s.call(
        'POST',
        '/event',
        {
          name: 'probe',
          event: 'token_set',
          handlermodule: 'Counter',
          action: 'increase_counter',
          'option.counter_name': 'fired',
          conditions: JSON.stringify(conditions),
        },
        admin,
      ),
    ) as number;
    ok(await s.call('POST', '/token/set', { serial, description: 'probe', ...extra }, admin));
    ok(await s.call('DELETE', `/event/${id}`, {}, admin));
    const fired = (await eventCounterValues(s.rt)).fired ?? 0;
    await db().deleteFrom('eventcounter').where('name', '=', 'fired').execute();
    return fired === 1;
  }
  const tokenId = async (serial: string) =>
    Number(
      (await db().selectFrom('token').select('id').where('serial', '=', serial).executeTakeFirstOrThrow()).id,
    );

  it('lists the conditions with type, description and group', async () => {
    const conditions = ok(await s.call('GET', '/event/conditions/Token', {}, admin));
    for (const name of [
      'tokenresolver',
      'token_is_orphaned',
      'token_validity_period',
      'user_token_number',
      'otp_counter',
      'count_auth',
      'count_auth_success',
      'count_auth_fail',
      'failcounter',
      'counter',
      'tokeninfo',
      'last_auth',
      'rollout_state',
      'challenge_session',
      'challenge_expired',
    ]) {
      expect(conditions[name], name).toMatchObject({
        type: 'str',
        desc: expect.any(String),
        group: expect.any(String),
      });
    }
    expect(conditions.token_is_orphaned.value).toEqual(['True', 'False']);
  });

  it('tokenresolver, token_is_orphaned, user_token_number', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'CO1', user: 'alice', realm: 'realm1' });
    await init({ type: 'hotp', genkey: '1', serial: 'CO2', user: 'alice', realm: 'realm1' });
    await init({ type: 'hotp', genkey: '1', serial: 'CO3' });
    expect(await fires('CO1', { tokenresolver: 'other, realm1-res' })).toBe(true);
    expect(await fires('CO1', { tokenresolver: 'other' })).toBe(false);
    expect(await fires('CO3', { tokenresolver: 'realm1-res' })).toBe(false);
    expect(await fires('CO1', { user_token_number: '2' })).toBe(true);
    expect(await fires('CO1', { user_token_number: '>2' })).toBe(false);
    expect(await fires('CO1', { user_token_number: '<3' })).toBe(true);
    // Without a user there is nothing to count.
    expect(await fires('CO3', { user_token_number: '0' })).toBe(false);
    expect(await fires('CO1', { token_is_orphaned: 'False' })).toBe(true);
    expect(await fires('CO1', { token_is_orphaned: 'True' })).toBe(false);
    expect(await fires('CO3', { token_is_orphaned: 'False' })).toBe(true);
    // The owner's user store no longer knows the user.
    await db()
      .updateTable('tokenowner')
      .set({ user_id: '4711' })
      .where('token_id', '=', await tokenId('CO2'))
      .execute();
    expect(await fires('CO2', { token_is_orphaned: 'True' })).toBe(true);
    expect(await fires('CO2', { token_is_orphaned: 'False' })).toBe(false);
  });

  it('the counters of the token: otp_counter, failcounter, count_auth, count_auth_success, count_auth_fail', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'CN1' });
    expect(await fires('CN1', { otp_counter: '0' })).toBe(true);
    expect(await fires('CN1', { otp_counter: '>0' })).toBe(false);
    await db().updateTable('token').set({ count: 12, failcount: 3 }).where('serial', '=', 'CN1').execute();
    expect(await fires('CN1', { otp_counter: '>10' })).toBe(true);
    expect(await fires('CN1', { failcounter: '==3' })).toBe(true);
    expect(await fires('CN1', { failcounter: '!=3' })).toBe(false);
    expect(await fires('CN1', { failcounter: '<3' })).toBe(false);
    ok(await s.call('POST', '/token/info/CN1/count_auth', { value: '5' }, admin));
    ok(await s.call('POST', '/token/info/CN1/count_auth_success', { value: '3' }, admin));
    expect(await fires('CN1', { count_auth: '>4' })).toBe(true);
    expect(await fires('CN1', { count_auth_success: '<3' })).toBe(false);
    expect(await fires('CN1', { count_auth_fail: '2', count_auth_success: '3' })).toBe(true);
    expect(await fires('CN1', { count_auth_fail: '>2' })).toBe(false);
  });

  it('counter, tokeninfo with {now}, last_auth, token_validity_period, rollout_state', async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'CT1' });
    expect(await fires('CT1', { counter: 'logins==0' })).toBe(true);
    expect(await fires('CT1', { counter: 'logins>0' })).toBe(false);
    await db().insertInto('eventcounter').values({ name: 'logins', value: 11 }).execute();
    expect(await fires('CT1', { counter: 'logins>10' })).toBe(true);
    expect(await fires('CT1', { counter: 'logins<10' })).toBe(false);

    ok(await s.call('POST', '/token/info/CT1/expires', { value: '2026-06-01T00:00+0000' }, admin));
    ok(await s.call('POST', '/token/info/CT1/color', { value: 'blue' }, admin));
    expect(await fires('CT1', { tokeninfo: 'expires<{now}-10d' })).toBe(true);
    expect(await fires('CT1', { tokeninfo: 'expires<{now}-30d' })).toBe(false);
    expect(await fires('CT1', { tokeninfo: 'expires>{now}+1h' })).toBe(false);
    expect(await fires('CT1', { tokeninfo: 'color==blue' })).toBe(true);
    expect(await fires('CT1', { tokeninfo: 'color!=blue' })).toBe(false);
    expect(await fires('CT1', { tokeninfo: 'missing==blue' })).toBe(false);

    // No last authentication: not older than anything.
    expect(await fires('CT1', { last_auth: '1h' })).toBe(false);
    ok(
      await s.call('POST', '/token/info/CT1/last_auth', { value: '2026-06-14 12:00:00.000000+0000' }, admin),
    );
    expect(await fires('CT1', { last_auth: '10h' })).toBe(true);
    expect(await fires('CT1', { last_auth: '2d' })).toBe(false);

    expect(await fires('CT1', { token_validity_period: 'True' })).toBe(true);
    ok(
      await s.call(
        'POST',
        '/token/set',
        { serial: 'CT1', validity_period_end: '2026-06-01T00:00+0000' },
        admin,
      ),
    );
    expect(await fires('CT1', { token_validity_period: 'True' })).toBe(false);
    expect(await fires('CT1', { token_validity_period: 'False' })).toBe(true);

    expect(await fires('CT1', { rollout_state: 'clientwait' })).toBe(false);
    await db()
      .updateTable('token')
      .set({ rollout_state: 'clientwait' })
      .where('serial', '=', 'CT1')
      .execute();
    expect(await fires('CT1', { rollout_state: 'clientwait' })).toBe(true);
  });

  it("challenge_session and challenge_expired, for the request's transaction_id", async () => {
    await init({ type: 'hotp', genkey: '1', serial: 'CH1' });
    const challenge = (transaction_id: string, session: string, expiration: Date) => ({
      transaction_id,
      serial: 'CH1',
      challenge: '',
      data: '',
      session,
      timestamp: NOW.toISOString(),
      expiration: expiration.toISOString(),
      received_count: 0,
      otp_valid: 0,
    });
    await db()
      .insertInto('challenge')
      .values([
        challenge('tx-live', 'enrollment', new Date(NOW.getTime() + 60_000)),
        challenge('tx-old', 'other', new Date(NOW.getTime() - 60_000)),
      ])
      .execute();
    expect(await fires('CH1', { challenge_session: '^enroll' }, { transaction_id: 'tx-live' })).toBe(true);
    expect(await fires('CH1', { challenge_session: '^enroll' }, { transaction_id: 'tx-old' })).toBe(false);
    expect(await fires('CH1', { challenge_expired: 'False' }, { transaction_id: 'tx-live' })).toBe(true);
    expect(await fires('CH1', { challenge_expired: 'True' }, { transaction_id: 'tx-live' })).toBe(false);
    expect(await fires('CH1', { challenge_expired: 'True' }, { transaction_id: 'tx-old' })).toBe(true);
    // No transaction_id, or an unknown one: no challenge, the condition does not hold.
    expect(await fires('CH1', { challenge_expired: 'False' })).toBe(false);
    expect(await fires('CH1', { challenge_expired: 'False' }, { transaction_id: 'tx-none' })).toBe(false);
  });

  it('refuses malformed condition values, storing nothing', async () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ failcounter: 'abc' }, /condition failcounter: 'abc' is not an integer comparison/],
      [{ otp_counter: '>=5' }, /otp_counter/],
      [{ user_token_number: 'many' }, /user_token_number/],
      [{ count_auth_fail: '' }, /count_auth_fail/],
      [{ counter: 'logins>ten' }, /counter comparison/],
      [{ counter: 'logins' }, /condition counter/],
      [{ tokeninfo: 'novalue' }, /condition tokeninfo/],
      [{ tokeninfo: 'k<{now}-10 days' }, /\{now\}/],
      [{ last_auth: '10x' }, /duration like 10h/],
      [{ serial: '(' }, /regular expression/],
      [{ challenge_session: '[' }, /regular expression/],
      [{ detail_message: '*' }, /regular expression/],
    ];
    for (const [conditions, message] of bad) {
      expectServiceError(
        await s.call(
          'POST',
          '/event',
          {
            name: 'bad',
            event: 'token_set',
            handlermodule: 'Counter',
            action: 'increase_counter',
            'option.counter_name': 'x',
            conditions: JSON.stringify(conditions),
          },
          admin,
        ),
        905,
        message,
      );
    }
    expect(await db().selectFrom('eventhandler').selectAll().execute()).toEqual([]);
  });
});
