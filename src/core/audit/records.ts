// Stored audit rows as the API shows them: each row's entry in privacyIDEA's key order, with its
// signature checked and whether its predecessor exists (missing_line); and reading rows by id in
// batches, so that an export or a verification of millions never holds them all.
import type { Selectable, SelectQueryBuilder } from 'kysely';
import type { AuditTable, Database } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import { type ApiName, apiName, type CheckName, COLUMNS, ENTRY_ORDER, KINDS } from './columns.ts';
import { signatureOk } from './signature.ts';

export type AuditRow = Selectable<AuditTable>;
export type AuditRecord = Record<(typeof ENTRY_ORDER)[number], string | number>;
export type AuditSelect = SelectQueryBuilder<Database, 'audit', object>;

/** How each stored column's API value is read from a row. */
const READERS = new Map<ApiName, (r: AuditRow) => unknown>(
  COLUMNS.map((c) => [apiName(c), (r: AuditRow) => KINDS[c.kind].read(r[c.column])]),
);

export function toRecord(rt: Runtime, r: AuditRow, previousPresent: boolean): AuditRecord {
  const checks: Record<CheckName, string> = {
    sig_check: signatureOk(rt, r) ? 'OK' : 'FAIL',
    missing_line: previousPresent ? 'OK' : 'FAIL',
  };
  const out: Record<string, unknown> = {};
  for (const name of ENTRY_ORDER) {
    const read = READERS.get(name);
    out[name] = read ? read(r) : checks[name as CheckName];
  }
  return out as AuditRecord;
}

/**
 * Turns stored rows into API entries, checking each signature and whether the previous row exists
 * (missing_line; the oldest row has none). Predecessors among the rows themselves are not looked
 * up; the others and the oldest id come in one query: the smallest id it returns is the oldest
 * (it is returned whatever the rows), and any other id it returns exists.
 */
export async function toRecords(rt: Runtime, rows: AuditRow[]): Promise<AuditRecord[]> {
  if (rows.length === 0) return [];
  const ids = new Set(rows.map((r) => r.id));
  const wanted = [...new Set(rows.map((r) => r.id - 1).filter((id) => !ids.has(id)))];
  const present = new Set<number>();
  let firstId = 0;
  if (wanted.length) {
    const found = await rt.store.db
      .selectFrom('audit')
      .select('id')
      .where('id', 'in', wanted)
      .unionAll(rt.store.db.selectFrom('audit').select((eb) => eb.fn.min<number>('id').as('id')))
      .execute();
    for (const r of found) if (r.id !== null) present.add(Number(r.id));
    firstId = Math.min(...present);
  }
  return rows.map((r) => toRecord(rt, r, ids.has(r.id - 1) || r.id === firstId || present.has(r.id - 1)));
}

const READ_BATCH = 2000;

/** The rows a query selects, oldest first, in batches read by id. */
export async function* rowsInBatches(base: AuditSelect): AsyncGenerator<AuditRow[]> {
  let after = 0;
  for (;;) {
    const rows = await base
      .selectAll()
      .where('id', '>', after)
      .orderBy('id', 'asc')
      .limit(READ_BATCH)
      .execute();
    if (rows.length === 0) return;
    yield rows;
    after = rows.at(-1)!.id;
  }
}
