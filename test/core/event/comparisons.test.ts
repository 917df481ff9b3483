// The value grammars of the event conditions: integer comparisons, `<key><op><value>` with
// `{now}` offsets compared as dates, counter comparisons, ages; and the `{now}` tags the Token
// module writes.
import { describe, expect, it } from 'vitest';
import {
  ConditionValueError,
  compareInt,
  compareValues,
  parseAge,
  parseCounterComparison,
  parseDateText,
  parseIntComparison,
  parseKeyComparison,
} from '../../../src/core/event/comparisons.ts';
import { nowOffset, replaceNowTags } from '../../../src/event-handlers/index.ts';

const NOW = new Date('2026-06-15T12:00:00Z');

describe('integer comparisons', () => {
  it('reads <n, >n, ==n, !=n and a bare n', () => {
    expect(parseIntComparison('<5')).toEqual({ op: '<', n: 5 });
    expect(parseIntComparison(' > 10 ')).toEqual({ op: '>', n: 10 });
    expect(parseIntComparison('==0')).toEqual({ op: '==', n: 0 });
    expect(parseIntComparison('!=3')).toEqual({ op: '!=', n: 3 });
    expect(parseIntComparison('7')).toEqual({ op: '==', n: 7 });
    expect(parseIntComparison('>-1')).toEqual({ op: '>', n: -1 });
  });

  it('refuses what is no integer comparison', () => {
    for (const bad of ['abc', '', '<', '5.5', '>=5', '=5', '<5x', '1e3', '99999999999999999'])
      expect(() => parseIntComparison(bad), bad).toThrow(ConditionValueError);
  });

  it('compares', () => {
    expect(compareInt(4, parseIntComparison('<5'))).toBe(true);
    expect(compareInt(5, parseIntComparison('<5'))).toBe(false);
    expect(compareInt(6, parseIntComparison('>5'))).toBe(true);
    expect(compareInt(5, parseIntComparison('5'))).toBe(true);
    expect(compareInt(5, parseIntComparison('!=5'))).toBe(false);
    expect(compareInt(4, parseIntComparison('!=5'))).toBe(true);
  });
});

describe('ages', () => {
  it('reads s, m, h, d, w, y', () => {
    expect(parseAge('10s')).toBe(10_000);
    expect(parseAge('30m')).toBe(1_800_000);
    expect(parseAge('10h')).toBe(36_000_000);
    expect(parseAge('7d')).toBe(604_800_000);
    expect(parseAge('2w')).toBe(1_209_600_000);
    expect(parseAge('1y')).toBe(31_536_000_000);
  });

  it('refuses other forms', () => {
    for (const bad of ['', '10', 'h', '10x', '-1d', '1.5h', 'ten days'])
      expect(() => parseAge(bad), bad).toThrow(ConditionValueError);
  });
});

describe('key comparisons and {now}', () => {
  it('splits at the first operator', () => {
    expect(parseKeyComparison('color==blue')).toEqual({ key: 'color', op: '==', value: 'blue' });
    expect(parseKeyComparison('a b != x==y')).toEqual({ key: 'a b', op: '!=', value: 'x==y' });
    expect(parseKeyComparison('expires<{now}-10d')).toEqual({ key: 'expires', op: '<', value: '{now}-10d' });
    expect(parseKeyComparison('empty==')).toEqual({ key: 'empty', op: '==', value: '' });
  });

  it('refuses a missing key or operator, a < or > with nothing, a malformed {now}', () => {
    for (const bad of ['novalue', '==x', 'k<', 'k>{now}+', 'k>{now}x', 'k<{now}-10 days', 'k>{now}+3q'])
      expect(() => parseKeyComparison(bad), bad).toThrow(ConditionValueError);
  });

  it('reads {now} offsets', () => {
    expect(nowOffset('no tag')).toBeUndefined();
    expect(nowOffset('{now}')).toBe(0);
    expect(nowOffset('{now}+2h')).toBe(7_200_000);
    expect(nowOffset('{now} - 10d')).toBe(-864_000_000);
    expect(nowOffset('{now}+1x')).toBeNull();
    expect(nowOffset('before {now}')).toBeNull();
  });

  it('compares {now} values as dates', () => {
    const older = parseKeyComparison('seen<{now}-10d');
    expect(compareValues('2026-06-01T12:00+0000', older, NOW)).toBe(true);
    expect(compareValues('2026-06-10T12:00+0000', older, NOW)).toBe(false);
    expect(compareValues('2026-06-14 14:00:00.123456+0000', parseKeyComparison('seen>{now}-1d'), NOW)).toBe(
      true,
    );
    // An offset other than UTC counts.
    expect(compareValues('2026-06-15T13:30+0200', parseKeyComparison('seen<{now}'), NOW)).toBe(true);
    expect(compareValues('2026-06-15T13:30+0000', parseKeyComparison('seen>{now}+1h'), NOW)).toBe(true);
    // What is no date never holds; a missing entry never holds.
    expect(compareValues('soon', older, NOW)).toBe(false);
    expect(compareValues(undefined, parseKeyComparison('seen!=x'), NOW)).toBe(false);
  });

  it('compares integers as numbers, dates as dates, else texts', () => {
    expect(compareValues('10', parseKeyComparison('n>9'), NOW)).toBe(true);
    expect(compareValues('10', parseKeyComparison('n<9'), NOW)).toBe(false);
    expect(compareValues('2026-01-02', parseKeyComparison('d>2025-12-31'), NOW)).toBe(true);
    expect(compareValues('blue', parseKeyComparison('c==blue'), NOW)).toBe(true);
    expect(compareValues('blue', parseKeyComparison('c!=blue'), NOW)).toBe(false);
    expect(compareValues('b', parseKeyComparison('c>a'), NOW)).toBe(true);
  });

  it('reads the date forms tokeninfo holds', () => {
    const t = Date.parse('2026-06-15T10:00:00Z');
    expect(parseDateText('2026-06-15T10:00+0000')).toBe(t);
    expect(parseDateText('2026-06-15T12:00+02:00')).toBe(t);
    expect(parseDateText('2026-06-15 10:00:00.000000+0000')).toBe(t);
    expect(parseDateText('2026-06-15T10:00:00Z')).toBe(t);
    expect(parseDateText('2026-06-15T10:00')).toBe(t);
    expect(parseDateText('2026-13-45T10:00')).toBeUndefined();
    expect(parseDateText('yesterday')).toBeUndefined();
  });

  it('reads counter comparisons with integer values only', () => {
    expect(parseCounterComparison('logins>10')).toMatchObject({ key: 'logins', op: '>', n: 10 });
    expect(parseCounterComparison('logins==0')).toMatchObject({ n: 0 });
    expect(() => parseCounterComparison('logins>ten')).toThrow(ConditionValueError);
    expect(() => parseCounterComparison('logins')).toThrow(ConditionValueError);
  });

  it('writes {now} and {current_time} with offsets as dates the comparison reads back', () => {
    const text = replaceNowTags('at {now}, due {now}+2d, was {current_time}-1h, {other}', NOW);
    expect(text).toBe(
      'at 2026-06-15 12:00:00.000000+0000, due 2026-06-17 12:00:00.000000+0000, was 2026-06-15 11:00:00.000000+0000, {other}',
    );
    const written = replaceNowTags('{now}-3d', NOW);
    expect(compareValues(written, parseKeyComparison('k<{now}-2d'), NOW)).toBe(true);
    expect(compareValues(written, parseKeyComparison('k>{now}-4d'), NOW)).toBe(true);
  });
});
