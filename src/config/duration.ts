import { ParameterError } from '../errors.ts';

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, y: 31_536_000 };

/**
 * Parses a time span such as `30m`, `12h`, `7d` or `1y` (privacyIDEA's audit `timelimit` form, an
 * optional sign allowed and ignored) into seconds.
 */
export function parseDuration(text: string): number {
  const m = /^[+-]?(\d{1,9})\s*([smhdy])$/.exec(text.trim());
  if (!m) {
    throw new ParameterError(`Invalid time span '${text}': expected a number followed by s, m, h, d or y`);
  }
  return Number(m[1]) * UNIT_SECONDS[m[2]!]!;
}
