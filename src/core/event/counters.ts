// The named event counters of the Counter handler module (`eventcounter`): each change is one
// statement that creates the row or moves its value, so concurrent requests lose no step.
import { type Kysely, type RawBuilder, sql, type Transaction } from 'kysely';
import type { EventCounters } from '../../event-handlers/index.ts';
import { type Database, runTransaction } from '../../store/index.ts';
import type { Runtime } from '../context.ts';

/**
 * Creates the counter with `first`, or sets it to `next` (an expression of its old value, which
 * MariaDB names by the bare column and the others by the table's).
 */
async function upsert(
  trx: Transaction<Database>,
  rt: Runtime,
  name: string,
  first: number,
  next: (old: RawBuilder<number>) => RawBuilder<number>,
): Promise<number> {
  const insert = trx.insertInto('eventcounter').values({ name, value: first });
  if (rt.store.dialect === 'mysql') await insert.onDuplicateKeyUpdate({ value: next(sql`value`) }).execute();
  else {
    const old = sql<number>`eventcounter.value`;
    await insert.onConflict((oc) => oc.column('name').doUpdateSet({ value: next(old) })).execute();
  }
  const row = await trx
    .selectFrom('eventcounter')
    .select('value')
    .where('name', '=', name)
    .executeTakeFirstOrThrow();
  return Number(row.value);
}

/** The old value plus delta, kept at 0 or above unless negative values are allowed. */
function plus(delta: number, allowNegative: boolean) {
  return (old: RawBuilder<number>) =>
    allowNegative
      ? sql<number>`${old} + ${delta}`
      : sql<number>`case when ${old} + ${delta} < 0 then 0 else ${old} + ${delta} end`;
}

export function eventCounters(rt: Runtime): EventCounters {
  return {
    change: (name, delta, allowNegative) =>
      runTransaction(rt.store, (trx) =>
        upsert(trx, rt, name, allowNegative ? delta : Math.max(0, delta), plus(delta, allowNegative)),
      ),
    reset: async (name) => {
      await runTransaction(rt.store, (trx) => upsert(trx, rt, name, 0, () => sql<number>`0`));
    },
  };
}

/** The value of every counter, by name. */
export async function eventCounterValues(rt: Runtime): Promise<Record<string, number>> {
  const rows = await rt.store.db
    .selectFrom('eventcounter')
    .select(['name', 'value'])
    .orderBy('name')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.value)]));
}

/**
 * The value of one counter (undefined when no Counter action created it), read in `db` (a
 * transaction of the caller's). With `reset`, the counter is moved back by the value read rather
 * than set to 0: a step a concurrent request takes between the read and the reset is kept for the
 * next read instead of being lost.
 */
export async function readEventCounter(
  db: Kysely<Database>,
  name: string,
  options: { reset: boolean },
): Promise<number | undefined> {
  const row = await db.selectFrom('eventcounter').select('value').where('name', '=', name).executeTakeFirst();
  if (row === undefined) return undefined;
  const value = Number(row.value);
  if (options.reset && value !== 0)
    await db
      .updateTable('eventcounter')
      .set({ value: sql<number>`${sql.ref('value')} - ${value}` })
      .where('name', '=', name)
      .execute();
  return value;
}
