// The times of stats values: the stored UTC form with microseconds, privacyIDEA's display form, and
// the bounds of a window in the forms an administrator types, with an offset or in the server's
// local time zone.
import { afterEach, describe, expect, it } from 'vitest';
import { parseStatsTime, showStatsTime, statsTimeOf } from '../../../src/core/monitoring/time.ts';

describe('stats times', () => {
  const tz = process.env.TZ;
  afterEach(() => {
    if (tz === undefined) delete process.env.TZ;
    else process.env.TZ = tz;
  });

  it('stores a Date in UTC with microseconds and shows it as privacyIDEA does', () => {
    const stored = statsTimeOf(new Date('2026-11-28T19:57:33.045Z'));
    expect(stored).toBe('2026-11-28 19:57:33.045000');
    expect(showStatsTime(stored)).toBe('2026-11-28 19:57:33.045000+0000');
  });

  it('reads dates with an offset in every form', () => {
    const forms: [string, string][] = [
      ['2010-12-31 22:00+0200', '2010-12-31 20:00:00.000000'],
      ['2010-12-31 22:00 +0200', '2010-12-31 20:00:00.000000'],
      ['2010-12-31T22:00:00+02:00', '2010-12-31 20:00:00.000000'],
      ['2010-12-31T22:00:00.5+02', '2010-12-31 20:00:00.500000'],
      ['2010-12-31 20:00:00.123456Z', '2010-12-31 20:00:00.123456'],
      ['2011-01-01 01:30:00-0530', '2011-01-01 07:00:00.000000'],
      ['2010-12-31Z', '2010-12-31 00:00:00.000000'],
      ['2012-02-29 00:00+0100', '2012-02-28 23:00:00.000000'],
    ];
    for (const [text, stored] of forms) expect(parseStatsTime('start', text), text).toBe(stored);
  });

  it('reads a date without an offset in the server’s local time', () => {
    process.env.TZ = 'Europe/Berlin';
    expect(parseStatsTime('start', '2026-01-15 13:00')).toBe('2026-01-15 12:00:00.000000');
    expect(parseStatsTime('start', '2026-07-15 13:00:00.25')).toBe('2026-07-15 11:00:00.250000');
    expect(parseStatsTime('end', '2026-07-15')).toBe('2026-07-14 22:00:00.000000');
    process.env.TZ = 'UTC';
    expect(parseStatsTime('start', '2026-01-15 13:00')).toBe('2026-01-15 13:00:00.000000');
  });

  it('refuses what is no date, naming the parameter and the forms', () => {
    for (const bad of [
      '',
      'now',
      '2010-13-01',
      '2011-02-29',
      '2010-12-31 24:00',
      '2010-12-31 23:60',
      '2010-12-31 23:00:61',
      '2010-12-31 22:00+2400',
      '2010-12-31 22:00+0260',
      '2010-12-31 22:00:00.1234567',
      '31.12.2010',
      '0000-01-01',
    ])
      expect(() => parseStatsTime('end', bad), bad).toThrow(
        /^The parameter 'end' is not a date: '.*' \(use e\.g\. '2010-12-31 22:00\+0200' or '2010-12-31T20:00:00Z'\)$/,
      );
  });
});
