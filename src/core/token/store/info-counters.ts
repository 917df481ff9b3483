// Counting tokeninfo entries (count_auth, count_auth_success): added to by the database itself, so
// that no increment of concurrent requests is lost and a limit holds under a burst, on one node or
// several.
import { sql } from 'kysely';
import { type Dialect, prepared } from '../../../store/index.ts';
import type { Runtime } from '../../context.ts';
import { tokeninfoInsert } from './info.ts';
import type { Executor, LoadedToken } from './types.ts';

/** A counting tokeninfo value as a number, as the checks read it (parseInt; unreadable → 0). */
export function counterValue(text: string | undefined): number {
  return Number.parseInt(text ?? '0', 10) || 0;
}

/**
 * A counting tokeninfo value as the database reads it, the way counterValue reads it (leading
 * integer, else 0), so that an odd stored value fails no check: SQLite's CAST takes the leading
 * integer by itself; PostgreSQL's ::bigint and MariaDB's strict mode would refuse anything but
 * digits, so the leading integer is cut out first. (`{0,1}`, not `?`: mysql2 would take a `?` in
 * the SQL text for a parameter.)
 */
function counted(dialect: Dialect) {
  const value = sql.ref('tokeninfo.value');
  if (dialect === 'postgres')
    return sql<number>`coalesce(substring(${value} from '^\\s*([+-]{0,1}[0-9]+)')::bigint, 0)`;
  if (dialect === 'mysql')
    return sql<number>`(case when ${value} regexp '^[[:space:]]*[+-]{0,1}[0-9]' then cast(regexp_substr(${value}, '[+-]{0,1}[0-9]+') as signed) else 0 end)`;
  return sql<number>`cast(${value} as integer)`;
}

/** The stored value + 1, computed by the database on the text column. */
function incremented(dialect: Dialect) {
  const value = counted(dialect);
  if (dialect === 'mysql') return sql<string>`cast(${value} + 1 as char)`;
  if (dialect === 'postgres') return sql<string>`(${value} + 1)::text`;
  return sql<string>`cast(${value} + 1 as text)`;
}

/** Adds one to the tokeninfo entries `keys` of a token. */
const counterIncrementOf = (db: Executor, v: { id: number; keys: readonly string[] }, dialect: Dialect) =>
  db
    .updateTable('tokeninfo')
    .set({ value: incremented(dialect) })
    .where('token_id', '=', v.id)
    .where('key', 'in', v.keys);
const counterIncrement = prepared((db, v: { id: number; keys: readonly string[] }, _shape, dialect) =>
  counterIncrementOf(db, v, dialect),
);

const counterIncrementReturning = prepared(
  (db, v: { id: number; keys: readonly string[] }, _shape, dialect) =>
    counterIncrementOf(db, v, dialect).returning(['key', 'value']),
);

/**
 * Adds one to counting tokeninfo entries (count_auth, count_auth_success) so that no increment of
 * concurrent requests is lost, on one node or several: the database adds, in one UPDATE for all
 * the entries the token had when it was loaded (the usual case: one statement per check). An
 * entry it did not have is inserted as 1; when a concurrent request inserted it first, the unique
 * (token_id, key) refuses ours and an UPDATE adds to the row that now exists. An entry deleted
 * between the load and the UPDATE (an administrator removing it) is left deleted: the increment
 * counts as made before the deletion. `t.info` gets the values written; MariaDB, which has no
 * UPDATE … RETURNING, gets the loaded value + 1 (what it is unless another request counted too).
 */
export async function bumpInfoCounters(rt: Runtime, t: LoadedToken, keys: readonly string[]): Promise<void> {
  const db = rt.store.db;
  const dialect = rt.store.dialect;
  const present = keys.filter((k) => t.info[k] !== undefined);
  const add = async (which: readonly string[]): Promise<number> => {
    if (dialect === 'mysql')
      return Number((await counterIncrement.run(db, { id: t.row.id, keys: which })).numAffectedRows);
    const { rows } = await counterIncrementReturning.run(db, { id: t.row.id, keys: which });
    for (const row of rows) t.info[row.key] = row.value;
    return rows.length;
  };
  for (const k of keys) t.info[k] = String(counterValue(t.info[k]) + 1);
  if (present.length > 0) await add(present);
  for (const key of keys.filter((k) => !present.includes(k)))
    await insertCount(rt, t, key, async () => (await add([key])) > 0);
}

/**
 * Inserts the counting entry `key` of a token as 1. When a concurrent request inserted it first,
 * `countOn` counts on that row instead. False when neither counted (the row is at its limit);
 * without a row the failure of the insert is real and is thrown.
 */
async function insertCount(
  rt: Runtime,
  t: LoadedToken,
  key: string,
  countOn: () => Promise<boolean>,
): Promise<boolean> {
  try {
    await tokeninfoInsert.run(rt.store.db, { token_id: t.row.id, key, value: '1', type: '' });
    t.info[key] = '1';
    return true;
  } catch (e) {
    if (await countOn()) return true;
    const entry = await rt.store.db
      .selectFrom('tokeninfo')
      .select('id')
      .where('token_id', '=', t.row.id)
      .where('key', '=', key)
      .executeTakeFirst();
    if (entry === undefined) throw e;
    return false;
  }
}

/**
 * Adds one to the counting tokeninfo entry `key` only while it is below `max` (count_auth_max,
 * count_auth_success_max), in the database's own UPDATE: of concurrent requests that all loaded
 * the token below its limit, only as many as the limit leaves are counted, so a burst cannot pass
 * it. False when the entry is at its limit. A missing entry is inserted as 1 (`max` ≥ 1); when a
 * concurrent request inserted it first, the guarded UPDATE is tried on its row.
 */
export async function bumpInfoCounterBelow(
  rt: Runtime,
  t: LoadedToken,
  key: string,
  max: number,
): Promise<boolean> {
  const db = rt.store.db;
  const dialect = rt.store.dialect;
  const below = async () => {
    const r = await counterIncrementOf(db, { id: t.row.id, keys: [key] }, dialect)
      .where(counted(dialect), '<', max)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    t.info[key] = String(counterValue(t.info[key]) + 1);
    return true;
  };
  return (await below()) || insertCount(rt, t, key, below);
}

/**
 * Adds `delta` to the integer of a tokeninfo entry (its leading integer; none: 0), computed by the
 * database so that concurrent additions are not lost; a missing entry is inserted as `delta`.
 * Sealed (`password`) entries are left alone. Runs in the caller's transaction.
 */
export async function addToTokenInfo(
  rt: Runtime,
  db: Executor,
  tokenId: number,
  key: string,
  delta: number,
): Promise<void> {
  const dialect = rt.store.dialect;
  const value = counted(dialect);
  // A literal (the caller checked it is a safe integer): a bound number is a REAL to SQLite.
  const add = sql.lit(Math.trunc(delta));
  const sum =
    dialect === 'mysql'
      ? sql<string>`cast(${value} + ${add} as char)`
      : dialect === 'postgres'
        ? sql<string>`(${value} + ${add})::text`
        : sql<string>`cast(${value} + ${add} as text)`;
  const done = await db
    .updateTable('tokeninfo')
    .set({ value: sum })
    .where('token_id', '=', tokenId)
    .where('key', '=', key)
    .where('type', '!=', 'password')
    .executeTakeFirst();
  if (Number(done.numUpdatedRows) > 0) return;
  const existing = await db
    .selectFrom('tokeninfo')
    .select('id')
    .where('token_id', '=', tokenId)
    .where('key', '=', key)
    .executeTakeFirst();
  if (existing) throw new Error(`The tokeninfo ${key} is sealed and cannot be increased.`);
  await tokeninfoInsert.run(db, { token_id: tokenId, key, value: String(delta), type: '' });
}
