// Exporting the audit log (GET /audit/<file>.csv, `authsrv audit export`): the rows the caller may
// download as privacyIDEA's CSV lines, oldest first, and their number for the progress.
import type { Context } from '../context.ts';
import { ENTRY_ORDER } from './columns.ts';
import { applyFilters } from './filters.ts';
import type { AuditQuery } from './query.ts';
import { type AuditRecord, rowsInBatches, toRecords } from './records.ts';
import { scopeToCaller } from './scope.ts';
import { countRows } from './search.ts';

/** Counts the rows a query selects (for export progress). */
export async function countAudit(ctx: Context, asked: AuditQuery): Promise<number> {
  const query = await scopeToCaller(ctx, asked, 'auditlog_download');
  return countRows(applyFilters(ctx, ctx.store.db.selectFrom('audit'), query));
}

/**
 * The rows of a query as privacyIDEA's CSV lines, oldest first, read in batches by id so that an
 * export of millions of rows never holds them all in memory.
 */
export async function* auditCsvLines(ctx: Context, asked: AuditQuery): AsyncGenerator<string> {
  const query = await scopeToCaller(ctx, asked, 'auditlog_download');
  for await (const rows of rowsInBatches(applyFilters(ctx, ctx.store.db.selectFrom('audit'), query))) {
    for (const rec of await toRecords(ctx, rows)) yield csvLine(rec);
  }
}

/** Each field quoted with single quotes (doubled inside), line breaks as one blank. */
function csvLine(rec: AuditRecord): string {
  const field = (v: string | number) =>
    `'${String(v)
      .replace(/'/g, "''")
      .replace(/[\r\n]+/g, ' ')}'`;
  return `${ENTRY_ORDER.map((k) => field(rec[k])).join(',')}\n`;
}
