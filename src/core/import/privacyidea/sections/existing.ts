// Which of the names a section will import authsrv already holds: the import refuses to run then,
// so that running it twice never duplicates or silently overwrites anything.

import type { Database } from '../../../../store/index.ts';
import { chunked } from '../../../../store/index.ts';
import type { Context } from '../../../context.ts';

export async function existingNames<T extends keyof Database>(
  ctx: Context,
  table: T,
  column: string,
  names: readonly string[],
): Promise<string[]> {
  const found: string[] = [];
  for (const part of chunked(names, 500)) {
    if (part.length === 0) continue;
    // biome-ignore lint/suspicious/noExplicitAny: table and column are chosen by the section
    const db = ctx.store.db as any;
    const rows: Array<Record<string, unknown>> = await db
      .selectFrom(table)
      .select(column)
      .where(column, 'in', part)
      .execute();
    for (const row of rows) found.push(String(row[column]));
  }
  return found.sort();
}
