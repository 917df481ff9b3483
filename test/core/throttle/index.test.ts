import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  accountOf,
  clearThrottles,
  listThrottles,
  serialAccount,
  type ThrottleVerdict,
  throttled,
} from '../../../src/core/throttle/index.ts';
import { AuthError, ParameterError, PolicyError, ThrottledError, UserError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe('accountOf', () => {
  it('puts names in lower case with the realm given apart, and serials apart from names', () => {
    expect(accountOf(' Alice ', 'Realm1')).toBe('alice@realm1');
    expect(accountOf('Alice@Realm1', 'other')).toBe('alice@realm1');
    expect(accountOf('admin', undefined)).toBe('admin');
    expect(accountOf('admin', '')).toBe('admin');
    expect(serialAccount('HOTP0001')).toBe('serial:hotp0001');
  });
});

describe.each(testDialects())('throttled on %s', (dialect) => {
  let t: TestRuntime;
  let runs = 0;
  beforeAll(async () => {
    t = await openTestRuntime(dialect, {
      now: T0,
      config: {
        'throttle.enabled': 'true',
        'throttle.free_failures': '1',
        'throttle.base_delay': '10s',
        'throttle.max_delay': '1m',
        'throttle.block_after': '4',
        'throttle.block_duration': '1h',
        'throttle.address_factor': '2',
      },
    });
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    runs = 0;
    t.setNow(T0);
    await t.rt.store.db.deleteFrom('login_failure').execute();
  });

  const attempt = (account: string, address = '10.0.0.1') => ({ account, address });
  /** An authentication whose outcome is `verdict`, or that throws `error`. */
  function login(account: string, outcome: ThrottleVerdict | Error, address = '10.0.0.1') {
    return throttled(
      t.rt,
      attempt(account, address),
      async () => {
        runs++;
        if (outcome instanceof Error) throw outcome;
        return outcome;
      },
      (v) => v,
    );
  }
  const counts = async () =>
    (await listThrottles(t.ctx)).map((e) => [e.kind, e.account, e.address, e.failures, e.retryAfter]);

  it('counts failures, refuses unchecked while the wait runs, and lets through after it', async () => {
    await login('alice', 'failure');
    await expect(login('alice', new AuthError('Authentication failure. Wrong credentials'))).rejects.toThrow(
      AuthError,
    );
    expect(await counts()).toEqual([
      ['account', 'alice', '10.0.0.1', 2, 10],
      ['address', '', '10.0.0.1', 2, 0],
    ]);
    const refused = await login('alice', 'success').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ThrottledError);
    expect((refused as ThrottledError).retryAfter).toBe(10);
    expect(runs).toBe(2);
    // Another account from the same address, and the same account from another, go on.
    expect(await login('bob', 'success')).toBe('success');
    expect(await login('alice', 'success', '10.0.0.2')).toBe('success');
    t.setNow(at(10));
    expect(await login('alice', 'success')).toBe('success');
    // The success forgot the account's count from that address, not the address's.
    expect(await counts()).toEqual([['address', '', '10.0.0.1', 2, 0]]);
  });

  it('counts unknown users as failures, but not malformed requests, policy refusals or challenges', async () => {
    await expect(login('carol', new UserError('User carol does not exist'))).rejects.toThrow(UserError);
    await login('carol', new ParameterError('Missing parameter: pass')).catch(() => undefined);
    await login('carol', new PolicyError('The login for this user is disabled.')).catch(() => undefined);
    await login('carol', 'neither');
    expect(await counts()).toEqual([
      ['account', 'carol', '10.0.0.1', 1, 0],
      ['address', '', '10.0.0.1', 1, 0],
    ]);
  }, 20_000);

  it('blocks an address trying many accounts', async () => {
    for (const name of ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8']) {
      t.setNow(at(3600 * runs));
      await login(name, 'failure');
    }
    // address_factor 2: blocked after 8 failures over all accounts.
    const refused = await login('dave', 'success').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ThrottledError);
    expect((refused as ThrottledError).retryAfter).toBe(3600);
  });

  it('leaves alone what is not throttled: no address (the CLI), or throttling off', async () => {
    for (let i = 0; i < 5; i++)
      await throttled(
        t.rt,
        { account: 'eve', address: '' },
        async () => 'failure' as const,
        (v) => v,
      );
    const off = {
      ...t.rt,
      config: { ...t.rt.config, throttle: { ...t.rt.config.throttle, enabled: false } },
    };
    for (let i = 0; i < 5; i++)
      await throttled(
        off,
        attempt('eve'),
        async () => 'failure' as const,
        (v) => v,
      );
    expect(await counts()).toEqual([]);
  });

  it('clears by account (any spelling), by account and address, by address, or all', async () => {
    await login(accountOf('Frank@Realm1'), 'failure', '10.0.0.1');
    await login(accountOf('frank', 'REALM1'), 'failure', '10.0.0.2');
    await login('grace', 'failure', '10.0.0.2');
    await expect(clearThrottles(t.ctx, {})).rejects.toThrow('Give --account, --address or --all');
    await expect(clearThrottles(t.ctx, { all: true, address: '10.0.0.1' })).rejects.toThrow(
      'Give --all or --account/--address, not both',
    );
    expect(await clearThrottles(t.ctx, { account: 'FRANK@REALM1', address: '10.0.0.1' })).toEqual({
      cleared: 1,
    });
    expect(await clearThrottles(t.ctx, { account: 'frank@realm1' })).toEqual({ cleared: 1 });
    expect(await clearThrottles(t.ctx, { address: '10.0.0.2' })).toEqual({ cleared: 2 });
    expect(await counts()).toEqual([['address', '', '10.0.0.1', 1, 0]]);
    expect(await clearThrottles(t.ctx, { all: true })).toEqual({ cleared: 1 });
  });

  it('lists blocked counts first and hides those forgotten', async () => {
    await login('old', 'failure', '10.0.0.9');
    t.setNow(at(13 * 3600));
    await login('henry', 'failure');
    await login('henry', 'failure');
    expect(await counts()).toEqual([
      ['account', 'henry', '10.0.0.1', 2, 10],
      ['address', '', '10.0.0.1', 2, 0],
    ]);
  });
});
