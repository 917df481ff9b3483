// InactiveTokenSweep: tokens whose last successful authentication (last_auth, stamped by a real
// /validate/check) is more than `days` days ago are disabled or deleted; recent ones and tokens
// that never authenticated stay.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initToken } from '../../src/core/token/index.ts';
import { check } from '../../src/core/validate/index.ts';
import { parseOptions, taskModule } from '../../src/task-modules/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../helpers/runtime.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const day = (n: number) => new Date(T0.getTime() + n * 86_400_000);

describe.each(testDialects())('the InactiveTokenSweep task module on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0 });
    for (const serial of ['OLD', 'RECENT', 'NEVER'])
      await initToken(t.ctx, { type: 'spass', serial, pin: `pin-${serial}` });
    const login = async (serial: string, when: Date) => {
      t.setNow(when);
      expect((await check(t.rt, { serial, pass: `pin-${serial}`, client: '10.0.0.1' })).value).toBe(true);
    };
    await login('OLD', day(0));
    await login('RECENT', day(20));
    t.setNow(day(100));
  });
  afterEach(async () => t.close());

  const sweep = taskModule('InactiveTokenSweep');
  const run = (options: Record<string, string>) => sweep.run(t.rt, parseOptions(sweep, options));
  const tokens = async () =>
    (await t.rt.store.db.selectFrom('token').select(['serial', 'active']).orderBy('serial').execute()).map(
      (r) => [r.serial, Number(r.active)],
    );

  it('disables the tokens without a successful login for more than the days given', async () => {
    expect(await run({ days: '90', action: 'disable' })).toEqual({ disabled: 1 });
    expect(await tokens()).toEqual([
      ['NEVER', 1],
      ['OLD', 0],
      ['RECENT', 1],
    ]);
    expect(await run({ days: '90', action: 'disable' })).toEqual({ disabled: 0 }); // already disabled
    expect(await run({ days: '70', action: 'disable' })).toEqual({ disabled: 1 });
  });

  it('deletes them with their tokeninfo', async () => {
    expect(await run({ days: '90', action: 'delete' })).toEqual({ deleted: 1 });
    expect(await tokens()).toEqual([
      ['NEVER', 1],
      ['RECENT', 1],
    ]);
    const infoOwners = await t.rt.store.db
      .selectFrom('tokeninfo')
      .leftJoin('token', 'token.id', 'tokeninfo.token_id')
      .select('token.serial')
      .execute();
    expect(infoOwners.every((r) => r.serial !== null)).toBe(true);
  });
});
