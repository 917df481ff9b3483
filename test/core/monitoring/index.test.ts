// The monitoring store on every dialect: values written with their UTC time (microseconds kept),
// the keys, a key's values in a window whose bounds are included and may carry an offset, the last
// value, the last value of every key, deleting a window with its count; bad dates, keys and values
// refused with nothing changed; an unknown key has no values.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  deleteStatsValues,
  lastStatsValue,
  lastStatsValues,
  statsKeys,
  statsValues,
  writeStatsValue,
} from '../../../src/core/monitoring/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const T0 = new Date('2026-03-01T12:00:00.123Z');
const minutes = (n: number) => new Date(T0.getTime() + n * 60_000);

describe.each(testDialects())('the monitoring store on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0 });
  });
  afterEach(async () => t.close());

  /** Values of `key` at T0 + each minute, `value` = 10 × the minute. */
  const series = async (key: string, at: number[]) => {
    for (const m of at) await writeStatsValue(t.rt, key, m * 10, { at: minutes(m) });
  };

  it('writes values and lists keys, a window (bounds included, ascending) and the last value', async () => {
    await series('logins', [2, 0, 1, 3]);
    t.setNow(minutes(5));
    await writeStatsValue(t.rt, 'tokens', 5_000_000_000);
    expect(await statsKeys(t.rt)).toEqual(['logins', 'tokens']);
    expect(await statsValues(t.rt, 'logins')).toEqual([
      ['2026-03-01 12:00:00.123000+0000', 0],
      ['2026-03-01 12:01:00.123000+0000', 10],
      ['2026-03-01 12:02:00.123000+0000', 20],
      ['2026-03-01 12:03:00.123000+0000', 30],
    ]);
    const window = { start: '2026-03-01 12:01:00.123+0000', end: '2026-03-01T12:02:00.123Z' };
    expect((await statsValues(t.rt, 'logins', window)).map(([, v]) => v)).toEqual([10, 20]);
    // One microsecond past a value leaves it out: the stored time keeps microseconds.
    const past = { start: '2026-03-01 12:01:00.123001+0000', end: '2026-03-01 12:02:00.123+0000' };
    expect((await statsValues(t.rt, 'logins', past)).map(([, v]) => v)).toEqual([20]);
    expect((await statsValues(t.rt, 'logins', { start: '2026-03-01 12:02:30Z' })).map(([, v]) => v)).toEqual([
      30,
    ]);
    expect(
      (await statsValues(t.rt, 'logins', { end: '2026-03-01 14:00:30+0200' })).map(([, v]) => v),
    ).toEqual([0]);
    expect(await statsValues(t.rt, 'tokens')).toEqual([['2026-03-01 12:05:00.123000+0000', 5_000_000_000]]);
    expect(await lastStatsValue(t.rt, 'logins')).toBe(30);
    expect(await lastStatsValue(t.rt, 'tokens')).toBe(5_000_000_000);
    expect(await lastStatsValues(t.rt)).toEqual({ logins: 30, tokens: 5_000_000_000 });
  });

  it('has no values, no last value and nothing to delete for an unknown key', async () => {
    await series('logins', [0]);
    expect(await statsValues(t.rt, 'nope')).toEqual([]);
    expect(await lastStatsValue(t.rt, 'nope')).toBeNull();
    expect(await deleteStatsValues(t.rt, 'nope')).toBe(0);
    expect(await statsKeys(t.rt)).toEqual(['logins']);
  });

  it('takes the newest row as the last value, the later written of two at one time', async () => {
    await writeStatsValue(t.rt, 'k', 1, { at: minutes(1) });
    await writeStatsValue(t.rt, 'k', 2, { at: minutes(0) });
    await writeStatsValue(t.rt, 'k', 3, { at: minutes(1) });
    expect(await lastStatsValue(t.rt, 'k')).toBe(3);
    expect(await lastStatsValues(t.rt)).toEqual({ k: 3 });
    expect((await statsValues(t.rt, 'k')).map(([, v]) => v)).toEqual([2, 1, 3]);
  });

  it('writes a value at a time given as text, with its microseconds', async () => {
    await writeStatsValue(t.rt, 'k', 7, { at: '2026-11-25 16:52:55.173017Z' });
    await writeStatsValue(t.rt, 'k', 8, { at: '2026-11-25 18:52:55.5+0200' });
    expect(await statsValues(t.rt, 'k')).toEqual([
      ['2026-11-25 16:52:55.173017+0000', 7],
      ['2026-11-25 16:52:55.500000+0000', 8],
    ]);
    await expect(writeStatsValue(t.rt, 'k', 9, { at: 'yesterday' })).rejects.toThrow(/not a date/);
  });

  it('deletes a window of one key and returns the count; without bounds every value of the key', async () => {
    await series('a', [0, 1, 2, 3, 4]);
    await series('b', [1, 2]);
    expect(
      await deleteStatsValues(t.rt, 'a', {
        start: '2026-03-01 13:01:00.123+0100',
        end: '2026-03-01 12:03:00.123Z',
      }),
    ).toBe(3);
    expect((await statsValues(t.rt, 'a')).map(([, v]) => v)).toEqual([0, 40]);
    expect((await statsValues(t.rt, 'b')).map(([, v]) => v)).toEqual([10, 20]);
    expect(await deleteStatsValues(t.rt, 'a')).toBe(2);
    expect(await statsKeys(t.rt)).toEqual(['b']);
  });

  it('refuses bad dates, keys and values and changes nothing', async () => {
    await series('a', [0, 1]);
    for (const bad of ['yesterday', '2026-02-30', '2026-03-01 25:00', '2026-03-01 12:00+2500', '2026-3-1']) {
      await expect(deleteStatsValues(t.rt, 'a', { start: bad })).rejects.toThrow(
        `The parameter 'start' is not a date: '${bad}'`,
      );
      await expect(statsValues(t.rt, 'a', { end: bad })).rejects.toThrow(
        /^The parameter 'end' is not a date/,
      );
    }
    await expect(writeStatsValue(t.rt, '', 1)).rejects.toThrow('A stats key must not be empty');
    await expect(writeStatsValue(t.rt, 'x'.repeat(256), 1)).rejects.toThrow(/longer than 255 characters/);
    await expect(writeStatsValue(t.rt, 'a', 1.5)).rejects.toThrow('A stats value must be a whole number');
    await expect(writeStatsValue(t.rt, 'a', 2 ** 53)).rejects.toThrow('A stats value must be a whole number');
    expect((await statsValues(t.rt, 'a')).map(([, v]) => v)).toEqual([0, 10]);
  });

  it('reads bounds beyond what the column holds as its ends', async () => {
    await series('a', [0]);
    const all = { start: '0001-01-01 00:00+0100', end: '9999-12-31 23:00-0500' };
    expect((await statsValues(t.rt, 'a', all)).map(([, v]) => v)).toEqual([0]);
  });
});
