// Audit row ids handed out before the rows are written: a row's signature covers its id, and
// reserving the ids first lets a whole batch be signed outside any transaction and then inserted,
// signed, in one statement. Nodes sharing the database never get the same id, and rows inserted
// without an explicit id (by older code, or by hand) never collide with a reserved one.

import { sql } from 'kysely';
import type { Store } from './database.ts';
import { runTransaction } from './transaction.ts';

/** The meta row that counts MariaDB/MySQL audit ids (AUTO_INCREMENT has no sequence to draw from). */
const MYSQL_NEXT_ID = 'audit_next_id';

/** `n` unused audit ids in increasing order. */
export async function reserveAuditIds(store: Store, n: number): Promise<number[]> {
  if (n <= 0) return [];
  if (store.dialect === 'postgres') {
    // nextval is never rolled back and never handed out twice, whoever asks.
    const r = await sql<{ id: number | string }>`select nextval(pg_get_serial_sequence('audit', 'id')) as id
      from generate_series(1, ${n})`.execute(store.db);
    return r.rows.map((row) => Number(row.id)).sort((a, b) => a - b);
  }
  const first = await runTransaction(store, async (trx) => {
    const maxRow = await trx
      .selectFrom('audit')
      .select((eb) => eb.fn.max('id').as('max'))
      .executeTakeFirst();
    const highestRow = Number(maxRow?.max ?? 0);
    if (store.dialect === 'sqlite') {
      // AUTOINCREMENT gives a row without an explicit id max(seq, max(id)) + 1, so raising seq past
      // the reserved range keeps it free. The transaction holds SQLite's write lock (begin immediate).
      const seq = await sql<{ seq: number }>`select seq from sqlite_sequence where name = 'audit'`.execute(
        trx,
      );
      const start = Math.max(Number(seq.rows[0]?.seq ?? 0), highestRow) + 1;
      if (seq.rows.length > 0) {
        await sql`update sqlite_sequence set seq = ${start + n - 1} where name = 'audit'`.execute(trx);
      } else {
        await sql`insert into sqlite_sequence (name, seq) values ('audit', ${start + n - 1})`.execute(trx);
      }
      return start;
    }
    // MariaDB/MySQL: a counter row, locked for the rest of the transaction. An explicit id raises
    // AUTO_INCREMENT past it, so a row inserted without one never collides with a written row.
    const counter = await trx
      .selectFrom('meta')
      .select('value')
      .where('name', '=', MYSQL_NEXT_ID)
      .forUpdate()
      .executeTakeFirst();
    const start = Math.max(Number.parseInt(counter?.value ?? '1', 10) || 1, highestRow + 1);
    if (counter) {
      await trx
        .updateTable('meta')
        .set({ value: String(start + n) })
        .where('name', '=', MYSQL_NEXT_ID)
        .execute();
    } else {
      // Two nodes inserting the first counter at once: the loser's transaction fails on the primary
      // key and its batch is retried by the caller.
      await trx
        .insertInto('meta')
        .values({ name: MYSQL_NEXT_ID, value: String(start + n) })
        .execute();
    }
    return start;
  });
  return Array.from({ length: n }, (_, i) => first + i);
}
