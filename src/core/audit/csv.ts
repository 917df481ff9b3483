// Exporting the audit log (GET /audit/<file>.csv, `authsrv audit export`): the rows the caller may
// download as privacyIDEA's CSV lines, oldest first, and their number for the progress.
import type { Context } from '../context.ts';
import { ENTRY_ORDER } from './columns.ts';
import { applyFilters } from './filters.ts';
import type { AuditQuery } from './query.ts';
import { type AuditRecord, type AuditSelect, rowsInBatches, toRecords } from './records.ts';
import { scopeToCaller } from './scope.ts';
import { countRows } from './search.ts';

/** Counts the rows a query selects (for export progress). */
export async function countAudit(ctx: Context, asked: AuditQuery): Promise<number> {
  const query = await scopeToCaller(ctx, asked, 'auditlog_download');
  return countRows(applyFilters(ctx, ctx.store.db.selectFrom('audit'), query));
}

/** An export under way: its lines, and the number of rows they will be (for a progress bar). */
export interface AuditExport {
  lines: AsyncGenerator<string>;
  count(): Promise<number>;
}

/**
 * Starts an export: the caller's restriction and the filters are applied before it returns, so a
 * bad filter is an error before the first line is sent, not a broken file.
 */
export async function startAuditExport(ctx: Context, asked: AuditQuery): Promise<AuditExport> {
  const query = await scopeToCaller(ctx, asked, 'auditlog_download');
  const selected = applyFilters(ctx, ctx.store.db.selectFrom('audit'), query);
  return { lines: csvLines(ctx, selected), count: () => countRows(selected) };
}

/** The rows of a query as privacyIDEA's CSV lines, oldest first (see startAuditExport). */
export async function* auditCsvLines(ctx: Context, asked: AuditQuery): AsyncGenerator<string> {
  yield* (await startAuditExport(ctx, asked)).lines;
}

/** Read in batches by id, so that an export of millions of rows never holds them all in memory. */
async function* csvLines(ctx: Context, selected: AuditSelect): AsyncGenerator<string> {
  for await (const rows of rowsInBatches(selected)) {
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
