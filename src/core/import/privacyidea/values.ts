// privacyIDEA's values as each database returns them, made one thing for the sections: a Boolean
// column is 0/1 on SQLite and MariaDB but true/false on PostgreSQL; a DATETIME is text on every
// dialect (source.ts asks the servers for text, to the microsecond) but in three spellings; an
// Interval (the audit's duration) is a DATETIME counted from 1970-01-01 on SQLite and MariaDB and a
// native interval on PostgreSQL. Times are privacyIDEA's naive server time, read as UTC.
import { ParameterError } from '../../../errors.ts';

/** A text column: NULL as the empty string. */
export function piText(v: unknown): string {
  return v === null || v === undefined ? '' : String(v);
}

/** An Integer column: NULL as null. */
export function piInt(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  const n = Number(v);
  if (!Number.isFinite(n))
    throw new ParameterError(`privacyIDEA's database holds '${String(v)}' for a number`);
  return n;
}

/** A Boolean column (true, 1, '1', 't', 'true'); NULL as false. */
export function piBool(v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number' || typeof v === 'bigint') return Number(v) !== 0;
  if (typeof v === 'string') return ['1', 't', 'true', 'y', 'yes'].includes(v.trim().toLowerCase());
  return false;
}

/** A date and time to the microsecond. */
export interface PiDateTime {
  /** 'YYYY-MM-DD HH:MM:SS' */
  seconds: string;
  /** 0 … 999 999 */
  micros: number;
}

const DATE_TEXT = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(?:Z|[+-]00(?::?00)?)?$/;

/** A DATETIME column (text of any dialect, or a Date); NULL as null. */
export function piDateTime(v: unknown): PiDateTime | null {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) {
    const iso = v.toISOString();
    return { seconds: `${iso.slice(0, 10)} ${iso.slice(11, 19)}`, micros: v.getUTCMilliseconds() * 1000 };
  }
  const m = DATE_TEXT.exec(String(v).trim());
  if (!m) throw new ParameterError(`privacyIDEA's database holds '${String(v)}' for a date`);
  return { seconds: `${m[1]} ${m[2]}`, micros: Number((m[3] ?? '').padEnd(6, '0').slice(0, 6)) };
}

/** A DATETIME column as ISO 8601 in UTC to the microsecond ('2026-11-25T16:54:39.740883Z'). */
export function piIsoDate(v: unknown): string | null {
  const d = piDateTime(v);
  return d && `${d.seconds.replace(' ', 'T')}.${String(d.micros).padStart(6, '0')}Z`;
}

/** A DATETIME column as a Date (to the millisecond). */
export function piDate(v: unknown): Date | null {
  const iso = piIsoDate(v);
  return iso === null ? null : new Date(iso);
}

/** A DATETIME as Python's str(datetime) shows it: the fraction only when it is not zero. */
export function pythonDateTime(d: PiDateTime): string {
  return d.micros === 0 ? d.seconds : `${d.seconds}.${String(d.micros).padStart(6, '0')}`;
}

const PG_INTERVAL =
  /^(?:(-?\d+) years? ?)?(?:(-?\d+) mons? ?)?(?:(-?\d+) days? ?)?(?:(-)?(\d+):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$/;

/** An Interval column in microseconds; NULL as null. */
export function piDurationMicros(v: unknown): number | null {
  if (v === null || v === undefined || v === '') return null;
  if (v instanceof Date) return v.getTime() * 1000;
  const text = String(v).trim();
  if (/^\d{4}-/.test(text)) {
    // SQLite, MariaDB: a DATETIME counted from the epoch.
    const d = piDateTime(text)!;
    return Date.parse(`${d.seconds.replace(' ', 'T')}Z`) * 1000 + d.micros;
  }
  const m = PG_INTERVAL.exec(text);
  if (!m || text === '') throw new ParameterError(`privacyIDEA's database holds '${text}' for a duration`);
  if (m[1] || m[2]) throw new ParameterError(`privacyIDEA's database holds '${text}': a duration of months`);
  const days = Number(m[3] ?? 0);
  const sign = m[4] ? -1 : 1;
  const clock =
    (Number(m[5] ?? 0) * 3600 + Number(m[6] ?? 0) * 60 + Number(m[7] ?? 0)) * 1_000_000 +
    Number((m[8] ?? '').padEnd(6, '0'));
  return days * 86_400_000_000 + sign * clock;
}

/** A duration as Python's str(timedelta) shows it: '0:00:00.108337', '1 day, 2:00:00'. */
export function pythonTimedelta(micros: number): string {
  const days = Math.floor(micros / 86_400_000_000);
  const rest = micros - days * 86_400_000_000;
  const secs = Math.floor(rest / 1_000_000);
  const frac = rest % 1_000_000;
  const two = (n: number) => String(n).padStart(2, '0');
  const clock = `${Math.floor(secs / 3600)}:${two(Math.floor(secs / 60) % 60)}:${two(secs % 60)}`;
  const day = days === 0 ? '' : `${days} day${Math.abs(days) === 1 ? '' : 's'}, `;
  return `${day}${clock}${frac ? `.${String(frac).padStart(6, '0')}` : ''}`;
}
