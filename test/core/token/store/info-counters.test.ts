// Counting tokeninfo entries on every dialect: the database adds to the stored text as
// counterValue reads it (odd values included), inserts a missing entry as 1, and a limited
// counter stops at its limit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initToken } from '../../../../src/core/token/enroll.ts';
import { setTokenInfo } from '../../../../src/core/token/store/info.ts';
import {
  bumpInfoCounterBelow,
  bumpInfoCounters,
  counterValue,
} from '../../../../src/core/token/store/info-counters.ts';
import { findToken } from '../../../../src/core/token/store/load.ts';
import { testDialects } from '../../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../../helpers/runtime.ts';

describe('counterValue', () => {
  it('reads the leading integer, anything else as 0', () => {
    expect([counterValue('7'), counterValue(' 12abc'), counterValue('-3')]).toEqual([7, 12, -3]);
    expect([counterValue('x'), counterValue(''), counterValue(undefined)]).toEqual([0, 0, 0]);
  });
});

describe.each(testDialects())('counting tokeninfo entries on %s', (dialect) => {
  let trt: TestRuntime;
  const load = async (serial: string) => (await findToken(trt.rt, serial))!;
  beforeAll(async () => {
    trt = await openTestRuntime(dialect);
    for (const serial of ['INC1', 'INC2', 'INC3']) await initToken(trt.ctx, { type: 'spass', serial });
  });
  afterAll(async () => {
    await trt?.close();
  });

  it('inserts missing entries as 1 and adds to present ones', async () => {
    const t = await load('INC1');
    await bumpInfoCounters(trt.rt, t, ['count_auth', 'count_auth_success']);
    expect(t.info).toMatchObject({ count_auth: '1', count_auth_success: '1' });
    await bumpInfoCounters(trt.rt, await load('INC1'), ['count_auth']);
    expect((await load('INC1')).info).toMatchObject({ count_auth: '2', count_auth_success: '1' });
  });

  it('adds to odd stored values as counterValue reads them', async () => {
    const odd = ['7', ' 7abc', '+4', 'x', ''];
    const t = await load('INC2');
    const keys = odd.map((_, i) => `odd${i}`);
    await setTokenInfo(
      trt.rt,
      trt.rt.store.db,
      t.row.id,
      Object.fromEntries(keys.map((k, i) => [k, odd[i]!])),
    );
    await bumpInfoCounters(trt.rt, await load('INC2'), keys);
    const info = (await load('INC2')).info;
    expect(keys.map((k) => info[k])).toEqual(odd.map((v) => String(counterValue(v) + 1)));
  });

  it('stops a limited counter at its limit', async () => {
    const bumps: boolean[] = [];
    for (let i = 0; i < 3; i++)
      bumps.push(await bumpInfoCounterBelow(trt.rt, await load('INC3'), 'count_auth', 2));
    expect(bumps).toEqual([true, true, false]);
    expect((await load('INC3')).info.count_auth).toBe('2');
  });
});
