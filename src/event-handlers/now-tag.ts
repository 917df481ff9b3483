// `{now}` and its offsets (`{now}-10d`, `{now}+2h`; units s, m, h, d, w, y), as privacyIDEA's
// parse_time_offset_from_now reads them: the Token module writes the moment into tokeninfo and
// descriptions, the tokeninfo condition compares dates with it.

export const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
  y: 31_536_000_000,
};

const NOW_TAG = /\{(now|current_time)\}(?:\s*([+-])\s*(\d{1,9})\s*([smhdwy]))?/g;

/**
 * The offset in milliseconds of a value that is `{now}`, `{now}+2h` or `{now}-10d`; undefined
 * when the text does not mention `{now}`; null when it mentions it otherwise (malformed).
 */
export function nowOffset(text: string): number | undefined | null {
  if (!text.includes('{now}')) return undefined;
  const m = /^\s*\{now\}\s*(?:([+-])\s*(\d{1,9})\s*([smhdwy]))?\s*$/.exec(text);
  if (!m) return null;
  if (m[1] === undefined) return 0;
  const ms = Number(m[2]) * (UNIT_MS[m[3] as string] as number);
  return m[1] === '-' ? -ms : ms;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** `%Y-%m-%d %H:%M:%S.%f+0000` in UTC, privacyIDEA's AUTH_DATE_FORMAT (that of last_auth). */
export function formatAuthDate(d: Date): string {
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 19)}.${pad(d.getUTCMilliseconds(), 3)}000+0000`;
}

/** `{now}` / `{current_time}`, with an optional offset, replaced by that moment. */
export function replaceNowTags(text: string, now: Date): string {
  return text.replace(NOW_TAG, (_all, _tag, sign?: string, n?: string, unit?: string) => {
    const ms = sign === undefined ? 0 : Number(n) * (UNIT_MS[unit as string] as number);
    return formatAuthDate(new Date(now.getTime() + (sign === '-' ? -ms : ms)));
  });
}
