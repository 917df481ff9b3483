// The token's own counters on every dialect: the compare-and-set that lets an OTP value be used
// once, the fail counter that stops at maxfail and records when it got there, and its reset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initToken } from '../../../../src/core/token/enroll.ts';
import {
  consumeOtp,
  incFailcount,
  resetFailcount,
  resetFailcounts,
} from '../../../../src/core/token/store/counters.ts';
import { findToken } from '../../../../src/core/token/store/load.ts';
import { pinHash } from '../../../../src/core/token/store/secrets.ts';
import { setPin, setTokenSettings } from '../../../../src/core/token/store/token-row.ts';
import { testDialects } from '../../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../../helpers/runtime.ts';

const KEY = '3132333435363738393031323334353637383930';

describe.each(testDialects())('the token counters on %s', (dialect) => {
  let trt: TestRuntime;
  const load = async (serial: string) => (await findToken(trt.rt, serial))!;
  beforeAll(async () => {
    trt = await openTestRuntime(dialect);
    for (const serial of ['CNT1', 'CNT2', 'CNT3', 'CNT4'])
      await initToken(trt.ctx, { type: 'hotp', otpkey: KEY, serial });
  });
  afterAll(async () => {
    await trt?.close();
  });

  it('moves the OTP counter once for concurrent requests that saw the same count', async () => {
    const seen = await load('CNT1');
    const won = await Promise.all([1, 2, 3, 4, 5].map(() => consumeOtp(trt.rt, seen, 5)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await consumeOtp(trt.rt, seen, 6)).toBe(false);
    expect((await load('CNT1')).row.count).toBe(5);
  });

  it('counts failures up to maxfail, records the minute it was reached, and resets on success', async () => {
    const t = await load('CNT2');
    await setTokenSettings(trt.rt.store.db, t.row.id, { maxfail: 2 });
    for (let i = 0; i < 3; i++) await incFailcount(trt.rt, t, new Date('2026-03-01T12:34:56Z'));
    const failed = await load('CNT2');
    expect(failed.row.failcount).toBe(2);
    expect(failed.info.failcounter_exceeded).toBe('2026-03-01T12:34+0000');
    expect(await consumeOtp(trt.rt, failed, 1, undefined, false)).toBe(true);
    expect((await load('CNT2')).row.failcount).toBe(2);
    expect(await consumeOtp(trt.rt, await load('CNT2'), 2)).toBe(true);
    expect((await load('CNT2')).row.failcount).toBe(0);
  });

  it('resets the fail counter, setting the PIN in the same statement when given', async () => {
    const t = await load('CNT3');
    await setPin(trt.rt.store.db, t.row.id, await pinHash('1234'));
    await incFailcount(trt.rt, t, trt.rt.clock());
    await resetFailcount(trt.rt.store.db, t.row.id);
    const kept = await load('CNT3');
    expect(kept.row.failcount).toBe(0);
    expect(kept.row.pin_hash).not.toBe('');
    await incFailcount(trt.rt, t, trt.rt.clock());
    await resetFailcount(trt.rt.store.db, t.row.id, '');
    const cleared = await load('CNT3');
    expect(cleared.row.failcount).toBe(0);
    expect(cleared.row.pin_hash).toBe('');
  });

  it('resets the fail counters of several tokens at once', async () => {
    const tokens = [await load('CNT3'), await load('CNT4')];
    for (const t of tokens) await incFailcount(trt.rt, t, trt.rt.clock());
    await resetFailcounts(
      trt.rt.store.db,
      tokens.map((t) => t.row.id),
    );
    for (const t of tokens) expect((await load(t.row.serial)).row.failcount).toBe(0);
  });
});
