// The date forms of tokeninfo, written and read in one place: privacyIDEA stores creation_date
// with seconds (`2025-01-31T10:00:00+00:00`) and the minute-precise dates (validity_period_start/
// end, failcounter_exceeded, next_pin_change) as `2025-01-31T10:00+0000`.
import { ParameterError } from '../../errors.ts';

/** `2025-01-31T10:00:00+00:00`: privacyIDEA's creation_date form. */
export function creationDate(d: Date): string {
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

/** `%Y-%m-%dT%H:%M%z` in UTC, as privacyIDEA writes failcounter_exceeded. */
export function formatMinute(d: Date): string {
  return `${d.toISOString().slice(0, 16)}+0000`;
}

/**
 * A validity date (validity_period_start/end of /token/init and /token/set) in privacyIDEA's stored
 * form `YYYY-MM-DDThh:mm+oooo`; ISO forms with seconds, `Z` or `+hh:mm` are accepted. Empty removes
 * the limit. Anything else → ParameterError 905.
 */
export function validityDate(name: string, v: string): string {
  if (v.trim() === '') return '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(
    v.trim(),
  );
  if (!m || Number.isNaN(Date.parse(`${m[1]}T${m[2]}:00Z`)))
    throw new ParameterError(`'${name}' must be a date like 2025-01-31T10:00+0000, not '${v}'`);
  const zone = !m[3] || m[3] === 'Z' ? '+0000' : m[3].replace(':', '');
  return `${m[1]}T${m[2]}${zone}`;
}

const STORED_MINUTE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(?:([+-]\d{2}):?(\d{2}))?$/;

/**
 * A stored date `YYYY-MM-DDThh:mm+oooo` (validity, failcounter_exceeded) in ms, also with seconds
 * or `+hh:mm`; NaN when unreadable. A value without an offset is read as UTC or as unreadable.
 */
export function storedMinuteTime(text: string | undefined, withoutOffset: 'utc' | 'unreadable'): number {
  const m = text ? STORED_MINUTE.exec(text) : null;
  if (!m || (m[4] === undefined && withoutOffset === 'unreadable')) return Number.NaN;
  const zone = m[4] === undefined ? 'Z' : `${m[4]}:${m[5]}`;
  return Date.parse(`${m[1]}T${m[2]}${m[3] ?? ':00'}${zone}`);
}

/**
 * Whether `now` is outside a token's validity_period_start … validity_period_end (tokeninfo). An
 * unreadable date that is set counts as outside: a token never gets more validity than meant.
 */
export function outsideValidityPeriod(info: Readonly<Record<string, string>>, now: Date): boolean {
  const start = storedMinuteTime(info.validity_period_start, 'unreadable');
  const end = storedMinuteTime(info.validity_period_end, 'unreadable');
  if ((info.validity_period_start && Number.isNaN(start)) || (info.validity_period_end && Number.isNaN(end)))
    return true;
  return now.getTime() < start || now.getTime() > end;
}
