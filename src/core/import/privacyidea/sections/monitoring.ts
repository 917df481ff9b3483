// Monitoring values (table monitoringstats: timestamp, stats_key, stats_value), one object per
// stats key. privacyIDEA's times are naive UTC, kept with their microseconds. A value authsrv
// already holds for the same key and time is a conflict (the import was run before).
import type { Context } from '../../../context.ts';
import { statsValues, writeStatsValue } from '../../../monitoring/index.ts';
import { type Planned, piText, serviceSection } from './common.ts';

interface PiStats {
  key: string;
  /** `at`: the time in UTC, `YYYY-MM-DD HH:MM:SS.ffffff`. */
  points: Array<{ at: string; value: number }>;
}

const TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?$/;

/**
 * privacyIDEA's DATETIME in UTC as `YYYY-MM-DD HH:MM:SS.ffffff`: SQLite's text keeps the
 * microseconds, the PostgreSQL and MariaDB drivers give a Date (milliseconds). Undefined when the
 * value is no such time.
 */
function utcTime(v: unknown): string | undefined {
  const text = v instanceof Date ? v.toISOString().replace('Z', '') : piText(v);
  const m = TIME.exec(text);
  return m ? `${m[1]} ${m[2]}.${(m[3] ?? '').padEnd(6, '0')}` : undefined;
}

async function existingPoints(
  ctx: Context,
  planned: ReadonlyArray<{ object: string; item: PiStats }>,
): Promise<string[]> {
  const found: string[] = [];
  for (const { object, item } of planned) {
    // The monitoring service shows a stored time with its offset, always +0000.
    const stored = new Set((await statsValues(ctx, item.key)).map(([at]) => at));
    if (item.points.some((p) => stored.has(`${p.at}+0000`))) found.push(object);
  }
  return found;
}

export const monitoringSection = serviceSection<PiStats>({
  name: 'monitoring',
  async read({ source }) {
    const rows = await source.db
      .selectFrom('monitoringstats')
      .select(['timestamp', 'stats_key', 'stats_value'])
      .orderBy('stats_key')
      .orderBy('timestamp')
      .execute();
    const byKey = new Map<string, PiStats>();
    for (const r of rows) {
      const key = piText(r.stats_key);
      const stats = byKey.get(key) ?? { key, points: [] };
      stats.points.push({ at: utcTime(r.timestamp) ?? '', value: Number(r.stats_value) });
      byKey.set(key, stats);
    }
    return [...byKey.values()].map((s): Planned<PiStats> => {
      const bad = s.points.find((p) => p.at === '');
      if (bad) return { object: s.key, refusal: 'a value has a time that is not a date' };
      return { object: s.key, item: s };
    });
  },
  existing: existingPoints,
  async write(ctx, s) {
    for (const p of s.points) await writeStatsValue(ctx, s.key, p.value, { at: `${p.at}Z` });
  },
});
