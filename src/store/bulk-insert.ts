// Multi-row INSERTs and IN lists cut to the number of bound parameters a statement may carry:
// SQLite 32 766 (SQLITE_MAX_VARIABLE_NUMBER since 3.32), PostgreSQL and MariaDB 65 535.
import type { Insertable, Kysely, Transaction } from 'kysely';
import type { Dialect } from './dialect.ts';
import type { Database } from './schema.ts';

type Executor = Kysely<Database> | Transaction<Database>;

export const MAX_PARAMETERS: Readonly<Record<Dialect, number>> = {
  sqlite: 32_766,
  postgres: 65_535,
  mysql: 65_535,
};

/** How many rows of `columns` values one statement may hold. */
export function rowsPerStatement(dialect: Dialect, columns: number): number {
  return Math.max(1, Math.floor(MAX_PARAMETERS[dialect] / Math.max(1, columns)));
}

/** `items` in pieces of at most `size`. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Inserts the rows with as few statements as the dialect's parameter limit allows, in order. */
export async function insertRows<T extends keyof Database & string>(
  db: Executor,
  dialect: Dialect,
  table: T,
  rows: readonly Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r as object)) columns.add(k);
  for (const part of chunked(rows, rowsPerStatement(dialect, columns.size))) {
    // Kysely cannot relate a generic table name to its row type: the caller's type checks the rows.
    await (db as Kysely<Record<string, Record<string, unknown>>>)
      .insertInto(table)
      .values(part as Record<string, unknown>[])
      .execute();
  }
}
