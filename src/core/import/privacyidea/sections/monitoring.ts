// Monitoring values (table monitoringstats: timestamp, stats_key, stats_value), one object per
// stats key. privacyIDEA's times are naive UTC; they are kept to the millisecond. A value authsrv
// already holds for the same key and time is a conflict (the import was run before).
import type { Context } from '../../../context.ts';
import { statsValues, writeStatsValue } from '../../../monitoring/index.ts';
import { type Planned, piText, serviceSection } from './common.ts';

interface PiStats {
  key: string;
  points: Array<{ at: Date; value: number }>;
}

/** privacyIDEA's DATETIME: text `YYYY-MM-DD HH:MM:SS[.ffffff]` in UTC, or a Date from the PostgreSQL/MariaDB driver. */
function utcTime(v: unknown): Date {
  if (v instanceof Date) return v;
  const [date, time = '00:00:00'] = piText(v).split(/[ T]/);
  const [whole, fraction = ''] = time.split('.');
  return new Date(`${date}T${whole}.${fraction.padEnd(3, '0').slice(0, 3)}Z`);
}

/** A time as authsrv's monitoring shows it: `YYYY-MM-DD HH:MM:SS.ffffff+0000`. */
function shownTime(d: Date): string {
  return `${d.toISOString().replace('T', ' ').replace('Z', '')}000+0000`;
}

async function existingPoints(
  ctx: Context,
  planned: ReadonlyArray<{ object: string; item: PiStats }>,
): Promise<string[]> {
  const found: string[] = [];
  for (const { object, item } of planned) {
    const stored = new Set((await statsValues(ctx, item.key)).map(([at]) => at));
    if (item.points.some((p) => stored.has(shownTime(p.at)))) found.push(object);
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
      stats.points.push({ at: utcTime(r.timestamp), value: Number(r.stats_value) });
      byKey.set(key, stats);
    }
    return [...byKey.values()].map((s): Planned<PiStats> => {
      const bad = s.points.find((p) => Number.isNaN(p.at.getTime()));
      if (bad) return { object: s.key, refusal: 'a value has a time that is not a date' };
      return { object: s.key, item: s };
    });
  },
  existing: existingPoints,
  async write(ctx, s) {
    for (const p of s.points) await writeStatsValue(ctx, s.key, p.value, { at: p.at });
  },
});
