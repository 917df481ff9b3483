// The audit row's columns, declared once. COLUMNS lists the stored columns in the order their
// values are signed — which is also the order of the table's migration — with the name the API
// gives each, what it holds, its stored length and where a written row takes its value from. The
// entry a request fills (AuditEntry), the signed text, the length limits, the filters and the
// records of a search all follow from it; only the two orders privacyIDEA shows the columns in
// are lists of their own. The order of COLUMNS must never change: existing rows' signatures cover
// their values in it.
import type { AuditTable } from '../../store/index.ts';
import { WORKER_ID } from '../worker-id.ts';

/** What a column holds, and so how it is read, filtered and signed. */
type Kind = 'id' | 'text' | 'flag' | 'seconds';

/** What a written row takes its computed columns from, besides the entry's text columns. */
export interface RowFacts {
  startedAt: Date;
  end: Date;
  success: boolean;
  policies: readonly string[];
  node: string;
}

export interface ColumnSpec {
  /** The database column. */
  column: Exclude<keyof AuditTable, 'signature'>;
  /** The name in the API (auditcolumns, entries, filters, CSV) when it is not the column's. */
  api?: string;
  kind: Kind;
  /** For text: the stored length in characters (the column's varchar); longer text is cut. */
  length?: number;
  /** A computed column's value; a text column without it is the entry's field of its name. */
  write?: (r: RowFacts) => string | number;
  /**
   * A column of imported rows only (empty in authsrv's own): signed after the others, and only in
   * an imported row, so that the rows written before it existed keep their signed text.
   */
  importMark?: true;
}

/** Compile-time guard: `columns` declares every column of the audit table but the signature. */
function everyStoredColumn<const L extends readonly ColumnSpec[]>(
  columns: L &
    ([Exclude<keyof AuditTable, 'signature' | L[number]['column']>] extends [never]
      ? unknown
      : 'a column of the audit table is missing'),
): L {
  return columns;
}

export const COLUMNS = everyStoredColumn([
  // The row id: signed first, so that two rows' contents cannot be swapped (as in privacyIDEA).
  { column: 'id', api: 'number', kind: 'id' },
  { column: 'date', kind: 'text', length: 32, write: (r) => r.end.toISOString() },
  { column: 'startdate', kind: 'text', length: 32, write: (r) => r.startedAt.toISOString() },
  {
    column: 'duration',
    kind: 'seconds',
    write: (r) => Math.max(0, (r.end.getTime() - r.startedAt.getTime()) / 1000),
  },
  { column: 'action', kind: 'text', length: 100 },
  { column: 'success', kind: 'flag', write: (r) => (r.success ? 1 : 0) },
  { column: 'authentication', kind: 'text', length: 20 },
  { column: 'serial', kind: 'text', length: 40 },
  { column: 'token_type', kind: 'text', length: 30 },
  { column: 'container_serial', kind: 'text', length: 40 },
  { column: 'container_type', kind: 'text', length: 100 },
  { column: 'user', kind: 'text', length: 255 },
  { column: 'realm', kind: 'text', length: 255 },
  { column: 'resolver', kind: 'text', length: 255 },
  { column: 'administrator', kind: 'text', length: 255 },
  { column: 'action_detail', kind: 'text', length: 255 },
  { column: 'info', kind: 'text', length: 1000 },
  { column: 'node', api: 'privacyidea_server', kind: 'text', length: 255, write: (r) => r.node },
  { column: 'policies', kind: 'text', length: 1000, write: (r) => r.policies.join(',') },
  { column: 'client', kind: 'text', length: 50 },
  { column: 'user_agent', kind: 'text', length: 255 },
  { column: 'user_agent_version', kind: 'text', length: 50 },
  { column: 'log_level', kind: 'text', length: 20, write: () => '' },
  { column: 'clearance_level', kind: 'text', length: 20, write: () => '' },
  { column: 'thread_id', kind: 'text', length: 20, write: () => String(WORKER_ID) },
  // Rows imported from privacyIDEA (src/core/audit/import.ts): where from, their number there and
  // whether privacyIDEA's signature verified at the import.
  { column: 'imported_from', kind: 'text', length: 32, write: () => '', importMark: true },
  { column: 'imported_number', kind: 'text', length: 20, write: () => '', importMark: true },
  { column: 'imported_check', kind: 'text', length: 20, write: () => '', importMark: true },
]);

type Column = (typeof COLUMNS)[number];
type ApiNameOf<C> = C extends { api: infer A } ? A : C extends { column: infer N } ? N : never;

/** A stored column as the API names it. */
export type StoredApiName = ApiNameOf<Column>;

/** What a search adds to each stored row: its signature check and whether its predecessor exists. */
export type CheckName = 'sig_check' | 'missing_line';
export type ApiName = StoredApiName | CheckName;

/** The text columns a request fills itself (the other columns are computed when it is written). */
type EntryText = Extract<Column, { kind: 'text'; write?: undefined }>['column'];

/** A row being filled during a request; written once at its end. */
export interface AuditEntry extends Record<EntryText, string> {
  startedAt: Date;
  success: boolean;
  policies: string[];
}

/** The columns of a written row: all but the id (the writer reserves it) and the signature. */
export const WRITTEN: readonly ColumnSpec[] = COLUMNS.filter((c) => c.kind !== 'id');

/** The text columns a new entry starts empty. */
export const ENTRY_TEXT = COLUMNS.filter((c) => c.kind === 'text' && !('write' in c)).map(
  (c) => c.column as EntryText,
);

/** The API name of a stored column. */
export function apiName(c: ColumnSpec): StoredApiName {
  return (c.api ?? c.column) as StoredApiName;
}

/** The stored columns by API name: what a filter can name. */
export const BY_API_NAME: ReadonlyMap<string, ColumnSpec> = new Map(COLUMNS.map((c) => [apiName(c), c]));

/** Compile-time guard: `order` names every column of the API exactly as a permutation must. */
function everyColumn<const L extends readonly ApiName[]>(
  order: L & ([Exclude<ApiName, L[number]>] extends [never] ? unknown : 'a column is missing'),
): L {
  return order;
}

/** auditcolumns of a search: privacyIDEA's order. */
export const LISTED_ORDER = everyColumn([
  'number',
  'action',
  'success',
  'authentication',
  'serial',
  'date',
  'startdate',
  'duration',
  'token_type',
  'user',
  'realm',
  'administrator',
  'action_detail',
  'info',
  'privacyidea_server',
  'client',
  'user_agent',
  'user_agent_version',
  'log_level',
  'policies',
  'clearance_level',
  'sig_check',
  'missing_line',
  'resolver',
  'thread_id',
  'container_serial',
  'container_type',
  'imported_from',
  'imported_number',
  'imported_check',
]);

/** The keys of an entry of a search, and the fields of a CSV line, in privacyIDEA's order. */
export const ENTRY_ORDER = everyColumn([
  'number',
  'date',
  'sig_check',
  'missing_line',
  'action',
  'authentication',
  'success',
  'serial',
  'token_type',
  'container_serial',
  'container_type',
  'user',
  'realm',
  'resolver',
  'administrator',
  'action_detail',
  'info',
  'privacyidea_server',
  'policies',
  'client',
  'user_agent',
  'user_agent_version',
  'log_level',
  'clearance_level',
  'startdate',
  'duration',
  'thread_id',
  'imported_from',
  'imported_number',
  'imported_check',
]);

/** How each kind of column is read into an entry, put into the signed text, and filtered. */
export const KINDS = {
  id: { read: (v: unknown) => v, sign: (v: unknown) => v, filter: 'number' },
  text: { read: (v: unknown) => v, sign: (v: unknown) => String(v), filter: 'text' },
  flag: { read: (v: unknown) => Number(v), sign: (v: unknown) => String(v), filter: 'truth' },
  seconds: { read: (v: unknown) => Number(v), sign: (v: unknown) => Number(v).toFixed(6), filter: 'number' },
} as const satisfies Record<Kind, { read(v: unknown): unknown; sign(v: unknown): unknown; filter: string }>;
