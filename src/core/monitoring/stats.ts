// The values of the stats keys in the `monitoringstats` table: written by the task modules (or
// anything else that measures), read and deleted by /monitoring/ and `authsrv stats`.
import { type Kysely, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { ParameterError } from '../../errors.ts';
import type { Database, Dialect } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { parseStatsTime, type StatsTime, showStatsTime, statsTimeOf } from './time.ts';

/** A window as given: its bounds as typed (either may be absent or empty: open on that side). */
export interface StatsWindow {
  start?: string | undefined;
  end?: string | undefined;
}

/** One value of a key as GET /monitoring/<key> lists it: `[timestamp, value]`. */
export type StatsPoint = [string, number];

/**
 * The timestamp column as stored text, `YYYY-MM-DD HH:MM:SS.ffffff`: PostgreSQL's and MariaDB's
 * native columns formatted by the server (their drivers would turn them into local Dates).
 */
function storedTime(dialect: Dialect): RawBuilder<string> {
  const column = sql.ref('monitoringstats.timestamp');
  if (dialect === 'postgres') return sql<string>`to_char(${column}, 'YYYY-MM-DD HH24:MI:SS.US')`;
  if (dialect === 'mysql') return sql<string>`date_format(${column}, '%Y-%m-%d %H:%i:%s.%f')`;
  return sql<string>`${column}`;
}

function checkKey(key: string): void {
  if (typeof key !== 'string' || key.trim() === '') throw new ParameterError('A stats key must not be empty');
  checkLength('stats_key', key, LIMITS.name);
}

function checkValue(value: number): void {
  if (!Number.isSafeInteger(value))
    throw new ParameterError(`A stats value must be a whole number, not '${String(value)}'`);
}

/** The stored bounds of a window; a bound that is no date is a ParameterError (nothing is read). */
function boundsOf(window: StatsWindow): { start?: StatsTime; end?: StatsTime } {
  const bound = (param: 'start' | 'end') => {
    const text = window[param];
    return text === undefined || text.trim() === '' ? undefined : parseStatsTime(param, text);
  };
  const start = bound('start');
  const end = bound('end');
  return { ...(start === undefined ? {} : { start }), ...(end === undefined ? {} : { end }) };
}

/** Restricts a query on the table to one key and a window, both bounds included. */
function inWindow<O>(
  q: SelectQueryBuilder<Database, 'monitoringstats', O>,
  key: string,
  window: StatsWindow,
): SelectQueryBuilder<Database, 'monitoringstats', O> {
  const { start, end } = boundsOf(window);
  let out = q.where('stats_key', '=', key);
  if (start !== undefined) out = out.where('timestamp', '>=', start);
  if (end !== undefined) out = out.where('timestamp', '<=', end);
  return out;
}

export interface WriteOptions {
  /**
   * When the value was measured (default: the runtime's clock): a Date, or a text such as
   * `2026-11-25 16:52:55.173017Z` (another system's value keeps its microseconds).
   */
  at?: Date | string;
  /** The transaction to write in (default: the runtime's database). */
  db?: Kysely<Database>;
}

function storedTimeOf(at: Date | string): StatsTime {
  return typeof at === 'string' ? parseStatsTime('timestamp', at) : statsTimeOf(at);
}

/** Records `value` for `key`. */
export async function writeStatsValue(
  rt: Runtime,
  key: string,
  value: number,
  options: WriteOptions = {},
): Promise<void> {
  checkKey(key);
  checkValue(value);
  await (options.db ?? rt.store.db)
    .insertInto('monitoringstats')
    .values({ stats_key: key, timestamp: storedTimeOf(options.at ?? rt.clock()), stats_value: value })
    .execute();
}

/** Every stats key that has a value, sorted. */
export async function statsKeys(rt: Runtime): Promise<string[]> {
  const rows = await rt.store.db
    .selectFrom('monitoringstats')
    .select('stats_key')
    .distinct()
    .orderBy('stats_key')
    .execute();
  return rows.map((r) => r.stats_key);
}

/** The values of `key` in the window, oldest first; an unknown key has none. */
export async function statsValues(rt: Runtime, key: string, window: StatsWindow = {}): Promise<StatsPoint[]> {
  const rows = await inWindow(
    rt.store.db.selectFrom('monitoringstats').select([storedTime(rt.store.dialect).as('at'), 'stats_value']),
    key,
    window,
  )
    .orderBy('timestamp')
    .orderBy('id')
    .execute();
  return rows.map((r) => [showStatsTime(r.at), Number(r.stats_value)]);
}

/** The newest value of `key`, or null when it has none. */
export async function lastStatsValue(rt: Runtime, key: string): Promise<number | null> {
  const row = await rt.store.db
    .selectFrom('monitoringstats')
    .select('stats_value')
    .where('stats_key', '=', key)
    .orderBy('timestamp', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? null : Number(row.stats_value);
}

/** The newest value of every key (what GET /metrics exports), by key. */
export async function lastStatsValues(rt: Runtime): Promise<Record<string, number>> {
  // Each key's newest row, found through the (stats_key, timestamp) index.
  const rows = await rt.store.db
    .selectFrom('monitoringstats')
    .select(['stats_key', 'stats_value'])
    .where('id', '=', (eb) =>
      eb
        .selectFrom('monitoringstats as n')
        .select('n.id')
        .whereRef('n.stats_key', '=', 'monitoringstats.stats_key')
        .orderBy('n.timestamp', 'desc')
        .orderBy('n.id', 'desc')
        .limit(1),
    )
    .orderBy('stats_key')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.stats_key, Number(r.stats_value)]));
}

/**
 * Deletes the values of `key` in the window (all of them without bounds); the number deleted.
 * A bound that is no date deletes nothing.
 */
export async function deleteStatsValues(rt: Runtime, key: string, window: StatsWindow = {}): Promise<number> {
  const { start, end } = boundsOf(window);
  let q = rt.store.db.deleteFrom('monitoringstats').where('stats_key', '=', key);
  if (start !== undefined) q = q.where('timestamp', '>=', start);
  if (end !== undefined) q = q.where('timestamp', '<=', end);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}
