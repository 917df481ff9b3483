// The times of stats values. Stored in UTC with microseconds as `YYYY-MM-DD HH:MM:SS.ffffff` (the
// text every dialect takes for its timestamp column and, on SQLite, ordered as text), shown as
// privacyIDEA shows them (`%Y-%m-%d %H:%M:%S.%f%z`, here always `+0000`), and the bounds of a
// window read from what an administrator types: `2010-12-31 22:00+0200`, ISO-8601
// (`2010-12-31T20:00:00.5Z`, `+02:00`), a date alone; without an offset, the server's local time
// (the specification's rule).
import { ParameterError } from '../../errors.ts';

/** A moment in UTC with microseconds, as stored: `YYYY-MM-DD HH:MM:SS.ffffff`. */
export type StatsTime = string;

/** The window the stored column can hold (MariaDB's datetime starts at year 1000). */
const EARLIEST: StatsTime = '1000-01-01 00:00:00.000000';
const LATEST: StatsTime = '9999-12-31 23:59:59.999999';
const EARLIEST_MS = Date.UTC(1000, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The UTC wall clock of `ms` (whole milliseconds since the epoch) with `micros` below the second. */
function utcText(ms: number, micros: number): StatsTime {
  const d = new Date(ms);
  const date = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  return `${date} ${time}.${pad(micros, 6)}`;
}

/** The stored form of a Date (whose precision is the millisecond). */
export function statsTimeOf(d: Date): StatsTime {
  const ms = d.getTime();
  const sub = ((ms % 1000) + 1000) % 1000;
  return utcText(ms - sub, sub * 1000);
}

/** privacyIDEA's rendering of a stored time: `2026-11-28 19:57:33.123000+0000`. */
export function showStatsTime(stored: StatsTime): string {
  return `${stored}+0000`;
}

const DATE_FORM =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6}))?)?)? ?(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : (DAYS[month - 1] ?? 0));

/** The offset east of UTC in minutes of `+0200`, `-05:30`, `+02`, `Z`; undefined when out of range. */
function offsetMinutes(zone: string): number | undefined {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (zone[0] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** Milliseconds since the epoch of a wall clock at the given offset, or in the server's local time. */
function epochOf(w: WallClock, offset: number | undefined): number {
  const d = new Date(0);
  if (offset === undefined) {
    d.setFullYear(w.year, w.month - 1, w.day);
    d.setHours(w.hour, w.minute, w.second, 0);
    return d.getTime();
  }
  d.setUTCFullYear(w.year, w.month - 1, w.day);
  d.setUTCHours(w.hour, w.minute, w.second, 0);
  return d.getTime() - offset * 60_000;
}

/**
 * The stored form of a window bound as given in the parameter `param`; a text that is no such date
 * is a ParameterError naming the forms understood.
 */
export function parseStatsTime(param: string, text: string): StatsTime {
  const bad = () =>
    new ParameterError(
      `The parameter '${param}' is not a date: '${text.slice(0, 64)}' (use e.g. '2010-12-31 22:00+0200' or '2010-12-31T20:00:00Z')`,
    );
  const m = DATE_FORM.exec(text.trim());
  if (!m) throw bad();
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    Number(v ?? 0),
  ) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) throw bad();
  if (hour > 23 || minute > 59 || second > 59) throw bad();
  const offset = m[8] === undefined ? undefined : offsetMinutes(m[8]);
  if (m[8] !== undefined && offset === undefined) throw bad();
  const micros = Number((m[7] ?? '').padEnd(6, '0'));
  const ms = epochOf({ year, month, day, hour, minute, second }, offset);
  // Outside what the column holds no value lies: the bound is the column's end.
  if (ms < EARLIEST_MS) return EARLIEST;
  return ms > LATEST_MS ? LATEST : utcText(ms, micros);
}
