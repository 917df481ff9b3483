// privacyIDEA's values as SQLite, PostgreSQL and MariaDB return them, made one thing for the
// sections of an import: booleans, dates to the microsecond, durations, and Python's spelling of them.
import { describe, expect, it } from 'vitest';
import {
  piBool,
  piDate,
  piDateTime,
  piDurationMicros,
  piInt,
  piIsoDate,
  piText,
  pythonDateTime,
  pythonTimedelta,
} from '../../../../src/core/import/privacyidea/values.ts';

describe('privacyIDEA values', () => {
  it('reads booleans of every dialect', () => {
    for (const v of [true, 1, '1', 't', 'true', 'True']) expect(piBool(v), String(v)).toBe(true);
    for (const v of [false, 0, '0', 'f', 'false', null, undefined, ''])
      expect(piBool(v), String(v)).toBe(false);
  });

  it('reads texts and numbers, NULL as empty or null', () => {
    expect(piText(null)).toBe('');
    expect(piText(12)).toBe('12');
    expect(piInt('42')).toBe(42);
    expect(piInt(null)).toBeNull();
    expect(() => piInt('x')).toThrow(/for a number/);
  });

  it('reads dates of every dialect to the microsecond, as UTC', () => {
    // SQLite and MariaDB text, PostgreSQL text (trailing zeros dropped), timestamptz, a Date.
    expect(piIsoDate('2026-11-25 16:54:39.740883')).toBe('2026-11-25T16:54:39.740883Z');
    expect(piIsoDate('2026-11-25 16:54:39.74088')).toBe('2026-11-25T16:54:39.740880Z');
    expect(piIsoDate('2026-11-25 16:54:39+00')).toBe('2026-11-25T16:54:39.000000Z');
    expect(piIsoDate(new Date('2026-11-25T16:54:39.740Z'))).toBe('2026-11-25T16:54:39.740000Z');
    expect(piDate('2026-11-25 16:54:39.740883')?.toISOString()).toBe('2026-11-25T16:54:39.740Z');
    expect(piIsoDate(null)).toBeNull();
    expect(() => piDateTime('yesterday')).toThrow(/for a date/);
    expect(pythonDateTime(piDateTime('2026-11-25 16:54:39.000000')!)).toBe('2026-11-25 16:54:39');
    expect(pythonDateTime(piDateTime('2026-11-25 16:54:39.5')!)).toBe('2026-11-25 16:54:39.500000');
  });

  it("reads durations of every dialect and prints them as Python's timedelta", () => {
    expect(piDurationMicros('1970-01-01 00:00:00.108337')).toBe(108_337);
    expect(piDurationMicros('00:00:01.5')).toBe(1_500_000);
    expect(piDurationMicros('1 day 02:00:00')).toBe(93_600_000_000);
    expect(piDurationMicros('1970-01-03 00:00:00')).toBe(172_800_000_000);
    expect(piDurationMicros(null)).toBeNull();
    expect(pythonTimedelta(108_337)).toBe('0:00:00.108337');
    expect(pythonTimedelta(93_600_000_000)).toBe('1 day, 2:00:00');
    expect(pythonTimedelta(172_800_000_001)).toBe('2 days, 0:00:00.000001');
  });
});
