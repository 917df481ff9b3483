// Searching the audit log (GET /audit/, `authsrv audit list`): one page of the rows the caller
// may see, with privacyIDEA's filters, its entries and the columns it lists.
import { sql } from 'kysely';
import { ParameterError } from '../../errors.ts';
import type { Context, Runtime } from '../context.ts';
import { LISTED_ORDER } from './columns.ts';
import { applyFilters } from './filters.ts';
import type { AuditQuery } from './query.ts';
import { type AuditRecord, type AuditSelect, toRecord } from './records.ts';
import { scopeToCaller } from './scope.ts';

export interface AuditPage {
  auditdata: AuditRecord[];
  auditcolumns: string[];
  count: number;
  current: number;
  prev: number | null;
  next: number | null;
}

export const MAX_PAGE_SIZE = 10_000;
/** Keeps the SQL offset a safe integer on every dialect. */
const MAX_PAGE = 1_000_000_000;

/** One page of the audit rows the caller may see. */
export async function searchAudit(ctx: Context, asked: AuditQuery): Promise<AuditPage> {
  const query = await scopeToCaller(ctx, asked, 'auditlog');
  const page = Math.max(1, Math.trunc(query.page ?? 1) || 1);
  let pageSize = Math.trunc(query.pageSize ?? 15) || 15;
  if (pageSize < 1) pageSize = 15;
  if (pageSize > MAX_PAGE_SIZE) throw new ParameterError(`page_size must be at most ${MAX_PAGE_SIZE}`);
  if (page > MAX_PAGE) throw new ParameterError(`page must be at most ${MAX_PAGE}`);
  const base = applyFilters(ctx, ctx.store.db.selectFrom('audit'), query);
  const { records, count } = await readPage(
    ctx,
    base,
    page,
    pageSize,
    query.sortorder === 'asc' ? 'asc' : 'desc',
  );
  const hidden = new Set(query.restriction?.hiddenColumns ?? []);
  if (hidden.size) {
    for (const rec of records) for (const col of hidden) delete (rec as Record<string, unknown>)[col];
  }
  return {
    auditdata: records,
    auditcolumns: LISTED_ORDER.filter((c) => !hidden.has(c)),
    count,
    current: page,
    prev: page > 1 ? page - 1 : null,
    next: page * pageSize < count ? page + 1 : null,
  };
}

/**
 * The entries of a page and the number of rows in all, in one statement: the page as a derived
 * table (so that what is joined to it is asked for its rows only), each row with whether its
 * predecessor exists (missing_line), the oldest id and the count.
 */
async function readPage(
  rt: Runtime,
  base: AuditSelect,
  page: number,
  pageSize: number,
  order: 'asc' | 'desc',
): Promise<{ records: AuditRecord[]; count: number }> {
  const rows = await rt.store.db
    .selectFrom(
      base
        .selectAll()
        .orderBy('id', order)
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .as('p'),
    )
    .selectAll('p')
    .select((eb) => [
      eb
        .exists(
          eb
            .selectFrom('audit as pred')
            .select('pred.id')
            .where(sql<boolean>`${sql.ref('pred.id')} = ${sql.ref('p.id')} - 1`),
        )
        .as('pred_present'),
      eb
        .selectFrom('audit as oldest')
        .select((o) => o.fn.min<number>('oldest.id').as('first_id'))
        .as('first_id'),
      base.select((c) => c.fn.countAll<number>().as('n')).as('total'),
    ])
    .orderBy('p.id', order)
    .execute();
  // A page past the end has no row to carry the count.
  const count = rows.length > 0 ? Number(rows[0]!.total) : await countRows(base);
  const firstId = rows.length > 0 ? Number(rows[0]!.first_id) : 0;
  const records = rows.map(({ pred_present, first_id, total, ...r }) =>
    toRecord(rt, r, sqlTrue(pred_present) || r.id === firstId),
  );
  return { records, count };
}

/** The number of rows a query selects. */
export async function countRows(base: AuditSelect): Promise<number> {
  return Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
}

/** A boolean of SQL as the dialects return it: true (PostgreSQL), 1 (SQLite, MySQL), or a text. */
function sqlTrue(v: unknown): boolean {
  return v === true || Number(v) === 1;
}
