import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Backoff } from '../../../src/core/throttle/backoff.ts';
import { keyOf } from '../../../src/core/throttle/keys.ts';
import {
  countFailures,
  deleteKey,
  pruneForgotten,
  rowsOf,
  type Target,
} from '../../../src/core/throttle/store.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const B: Backoff = {
  freeFailures: 2,
  baseDelay: 1,
  maxDelay: 8,
  blockAfter: 50,
  blockDuration: 600,
  resetAfter: 3600,
};
const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

function targets(account: string, address: string): Target[] {
  return [
    { key: keyOf('account', account, address), kind: 'account', account, address, backoff: B },
    { key: keyOf('address', '', address), kind: 'address', account: '', address, backoff: B },
  ];
}

describe.each(testDialects())('the login_failure table on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());
  beforeEach(async () => {
    await t.rt.store.db.deleteFrom('login_failure').execute();
  });

  it('counts every one of many concurrent failures once, under both keys', async () => {
    const alice = targets('alice@realm1', '10.0.0.1');
    const bob = targets('bob@realm1', '10.0.0.1');
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => countFailures(t.rt.store, i % 2 ? alice : bob, T0)),
    );
    const rows = await rowsOf(
      t.rt.store.db,
      [...alice, bob[0]!].map((x) => x.key),
    );
    const byKind = (kind: string, account: string) =>
      rows.find((r) => r.kind === kind && r.account === account);
    expect(byKind('account', 'alice@realm1')?.failures).toBe(10);
    expect(byKind('account', 'bob@realm1')?.failures).toBe(10);
    expect(byKind('address', '')).toMatchObject({ failures: 20, address: '10.0.0.1' });
    // Past 2 free failures the wait doubles from 1 s up to the cap of 8 s.
    const address = byKind('address', '')!;
    expect(new Date(address.blocked_until).getTime() - new Date(address.last_failure).getTime()).toBe(8000);
  });

  it('keeps the time of the last failure and the end of the wait', async () => {
    const ts = targets('admin', '192.0.2.7');
    for (let i = 0; i < 4; i++) await countFailures(t.rt.store, ts, at(i * 10));
    const [row] = await rowsOf(t.rt.store.db, [ts[0]!.key]);
    expect(row).toMatchObject({
      kind: 'account',
      account: 'admin',
      address: '192.0.2.7',
      failures: 4,
      last_failure: at(30).toISOString(),
      blocked_until: at(32).toISOString(),
    });
  });

  it('forgets one key, and prunes the counts whose time is over', async () => {
    const a = targets('alice', '10.0.0.1');
    const b = targets('bob', '10.0.0.2');
    await countFailures(t.rt.store, a, T0);
    for (let i = 0; i < 3; i++) await countFailures(t.rt.store, b, at(100 + i));
    await deleteKey(t.rt.store.db, a[0]!.key);
    expect((await rowsOf(t.rt.store.db, [a[0]!.key, a[1]!.key])).map((r) => r.kind)).toEqual(['address']);
    // At 3650 s the count of 10.0.0.1 (last failure at 0) is over, those of bob (at 102) are not.
    expect(await pruneForgotten(t.rt.store.db, at(3650), at(3650 - 3600))).toBe(1);
    expect(await t.rt.store.db.selectFrom('login_failure').select('account').execute()).toHaveLength(2);
  });
});
