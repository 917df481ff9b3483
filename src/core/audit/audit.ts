// The audit log: one signed row per API request or state-changing CLI command, searchable with
// privacyIDEA's filters, exportable as CSV, verifiable and rotatable.
import { type ExpressionBuilder, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { parseDuration } from '../../config/index.ts';
import { signBatch, verifyBatchSignature } from '../../crypto/index.ts';
import { ParameterError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import type { AuditTable, Database, Store } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import type { AuditQuery } from './query.ts';
import { scopeToCaller } from './scope.ts';
import { AuditWriter } from './writer.ts';

/** A row being filled during a request; written once at its end. */
export interface AuditEntry {
  action: string;
  startedAt: Date;
  success: boolean;
  authentication: string;
  serial: string;
  token_type: string;
  container_serial: string;
  container_type: string;
  user: string;
  realm: string;
  resolver: string;
  administrator: string;
  action_detail: string;
  info: string;
  policies: string[];
  client: string;
  user_agent: string;
  user_agent_version: string;
}

export function newAuditEntry(action: string, startedAt: Date, client = ''): AuditEntry {
  return {
    action,
    startedAt,
    success: false,
    authentication: '',
    serial: '',
    token_type: '',
    container_serial: '',
    container_type: '',
    user: '',
    realm: '',
    resolver: '',
    administrator: '',
    action_detail: '',
    info: '',
    policies: [],
    client,
    user_agent: '',
    user_agent_version: '',
  };
}

type StoredRow = Omit<AuditTable, 'id'>;
type SignedFields = Omit<StoredRow, 'signature'>;

/** The columns a signature covers, in a fixed order, so that verification does not depend on the dialect. */
const SIGNED: readonly (keyof SignedFields)[] = [
  'date',
  'startdate',
  'duration',
  'action',
  'success',
  'authentication',
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
  'node',
  'policies',
  'client',
  'user_agent',
  'user_agent_version',
  'log_level',
  'clearance_level',
  'thread_id',
];

/**
 * The text a row's signature covers. It includes the row id, like privacyIDEA's, so that the
 * contents of two rows cannot be swapped (or a row renumbered) without the signatures failing.
 */
function signedText(id: number, row: SignedFields): string {
  return JSON.stringify([
    id,
    ...SIGNED.map((k) => (k === 'duration' ? Number(row.duration).toFixed(6) : String(row[k]))),
  ]);
}

const LIMITS: Partial<Record<keyof StoredRow, number>> = {
  action: 100,
  authentication: 20,
  serial: 40,
  token_type: 30,
  container_serial: 40,
  container_type: 100,
  user: 255,
  realm: 255,
  resolver: 255,
  administrator: 255,
  action_detail: 255,
  info: 1000,
  node: 255,
  policies: 1000,
  client: 50,
  user_agent: 255,
  user_agent_version: 50,
};

export async function writeAudit(rt: Runtime, e: AuditEntry): Promise<number> {
  const end = rt.clock();
  const fields: SignedFields = {
    date: end.toISOString(),
    startdate: e.startedAt.toISOString(),
    duration: Math.max(0, (end.getTime() - e.startedAt.getTime()) / 1000),
    action: e.action,
    success: e.success ? 1 : 0,
    authentication: e.authentication,
    serial: e.serial,
    token_type: e.token_type,
    container_serial: e.container_serial,
    container_type: e.container_type,
    user: e.user,
    realm: e.realm,
    resolver: e.resolver,
    administrator: e.administrator,
    action_detail: e.action_detail,
    info: e.info,
    node: rt.node,
    policies: e.policies.join(','),
    client: e.client,
    user_agent: e.user_agent,
    user_agent_version: e.user_agent_version,
    log_level: '',
    clearance_level: '',
    thread_id: String(process.pid),
  };
  const text = fields as unknown as Record<string, unknown>;
  for (const k of SIGNED) {
    const v = text[k];
    if (typeof v === 'string') text[k] = storable(v, LIMITS[k]);
  }
  // The id is part of what is signed: the writer reserves it, signs and inserts the row signed.
  return auditWriter(rt).write(fields);
}

const writers = new WeakMap<Store, AuditWriter>();

/** The batching writer of a runtime's store (one per store, flushed when the store closes). */
function auditWriter(rt: Runtime): AuditWriter {
  let writer = writers.get(rt.store);
  if (!writer) {
    const signer = rt.keys.signer;
    writer = new AuditWriter(
      rt.store,
      (rows) =>
        signBatch(
          signer,
          rows.map(({ id, row }) => signedText(id, row as SignedFields)),
        ),
      rt.log,
    );
    writers.set(rt.store, writer);
  }
  return writer;
}

/**
 * Text every database stores unchanged: no NUL (PostgreSQL refuses it), no lone surrogate (it
 * would come back as U+FFFD and break the signature), and at most `max` characters — counted in
 * code points as the databases count them, so an emoji at the limit is kept or dropped whole.
 */
function storable(v: string, max: number | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what must go
  let out = v.toWellFormed().replace(/\u0000/g, '\uFFFD');
  if (max !== undefined && out.length > max) {
    const chars = [...out];
    if (chars.length > max) out = chars.slice(0, max).join('');
  }
  return out;
}

/** Columns as the API names them, in privacyIDEA's order. */
export const AUDIT_COLUMNS = [
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
] as const;

/** Key order of an entry (and of a CSV line). */
const ENTRY_KEYS = [
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
] as const;

export type AuditRecord = Record<(typeof ENTRY_KEYS)[number], string | number>;

/** API name → database column, for the columns that can be filtered. */
const FILTER_COLUMNS: Record<string, keyof AuditTable> = {
  number: 'id',
  privacyidea_server: 'node',
  action: 'action',
  success: 'success',
  authentication: 'authentication',
  serial: 'serial',
  date: 'date',
  startdate: 'startdate',
  duration: 'duration',
  token_type: 'token_type',
  user: 'user',
  realm: 'realm',
  administrator: 'administrator',
  action_detail: 'action_detail',
  info: 'info',
  client: 'client',
  user_agent: 'user_agent',
  user_agent_version: 'user_agent_version',
  log_level: 'log_level',
  policies: 'policies',
  clearance_level: 'clearance_level',
  resolver: 'resolver',
  thread_id: 'thread_id',
  container_serial: 'container_serial',
  container_type: 'container_type',
};

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

type AuditSelect = SelectQueryBuilder<Database, 'audit', object>;

function applyFilters(rt: Runtime, q: AuditSelect, query: AuditQuery): AuditSelect {
  let out = q;
  for (const [name, rawValue] of Object.entries(query.filters)) {
    const column = FILTER_COLUMNS[name];
    if (!column) continue;
    let value = rawValue;
    const negate = value.startsWith('!');
    if (negate) value = value.slice(1);
    if (value === '' || /^\*+$/.test(value)) continue;
    if (column === 'success') {
      const truth = isTrue(value) ? 1 : 0;
      out = out.where('success', negate ? '!=' : '=', truth);
    } else if (value.includes('*')) {
      // '!' as the LIKE escape character: a backslash would need different quoting on MySQL.
      const pattern = value.replace(/[!%_]/g, (c) => `!${c}`).replace(/\*/g, '%');
      out = out.where(
        (eb: ExpressionBuilder<Database, 'audit'>) =>
          sql<boolean>`${eb.ref(column)} ${sql.raw(negate ? 'NOT LIKE' : 'LIKE')} ${pattern} ESCAPE '!'`,
      );
    } else if (column === 'id' || column === 'duration') {
      if (!/^\d+(\.\d+)?$/.test(value)) throw new ParameterError(`Audit filter '${name}' must be a number`);
      out = out.where(column, negate ? '!=' : '=', Number(value));
    } else {
      out = out.where(column, negate ? '!=' : '=', value);
    }
  }
  const { owner, realms } = query.restriction ?? {};
  if (owner) out = out.where('user', '=', owner.user).where('realm', '=', owner.realm);
  if (realms) {
    out = out.where((eb) =>
      eb.or([
        ...(realms.realms.length ? [eb('realm', 'in', realms.realms)] : []),
        eb('administrator', '=', realms.administrator),
      ]),
    );
  }
  if (query.timelimit) {
    const since = rt.clock().getTime() - parseDuration(query.timelimit) * 1000;
    // A span reaching before 1970 covers every row (and would not make a valid date).
    if (since > 0) out = out.where('date', '>=', new Date(since).toISOString());
  }
  return out;
}

/** One page of the audit rows the caller may see. */
export async function searchAudit(ctx: Context, asked: AuditQuery): Promise<AuditPage> {
  const query = await scopeToCaller(ctx, asked, 'auditlog');
  const rt = ctx;
  const page = Math.max(1, Math.trunc(query.page ?? 1) || 1);
  let pageSize = Math.trunc(query.pageSize ?? 15) || 15;
  if (pageSize < 1) pageSize = 15;
  if (pageSize > MAX_PAGE_SIZE) throw new ParameterError(`page_size must be at most ${MAX_PAGE_SIZE}`);
  if (page > MAX_PAGE) throw new ParameterError(`page must be at most ${MAX_PAGE}`);
  const base = applyFilters(rt, rt.store.db.selectFrom('audit'), query);
  const order = query.sortorder === 'asc' ? 'asc' : 'desc';
  // One statement: the page as a derived table (so that what is joined to it is asked for its rows
  // only), each row with whether its predecessor exists (missing_line), the oldest id and the count.
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
  const count =
    rows.length > 0
      ? Number(rows[0]!.total)
      : Number((await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const firstId = rows.length > 0 ? Number(rows[0]!.first_id) : 0;
  const hidden = new Set(query.restriction?.hiddenColumns ?? []);
  const records = rows.map(({ pred_present, first_id, total, ...r }) =>
    toRecord(rt, r, sqlTrue(pred_present) || r.id === firstId),
  );
  if (hidden.size) {
    for (const rec of records) for (const col of hidden) delete (rec as Record<string, unknown>)[col];
  }
  return {
    auditdata: records,
    auditcolumns: AUDIT_COLUMNS.filter((c) => !hidden.has(c)),
    count,
    current: page,
    prev: page > 1 ? page - 1 : null,
    next: page * pageSize < count ? page + 1 : null,
  };
}

/** A boolean of SQL as the dialects return it: true (PostgreSQL), 1 (SQLite, MySQL), or a text. */
function sqlTrue(v: unknown): boolean {
  return v === true || Number(v) === 1;
}

/**
 * Turns stored rows into API entries, checking each signature and whether the previous row exists
 * (missing_line; the oldest row has none). Predecessors among the rows themselves are not looked
 * up; the others and the oldest id come in one query: the smallest id it returns is the oldest
 * (it is returned whatever the rows), and any other id it returns exists.
 */
async function toRecords(rt: Runtime, rows: Selectable<AuditTable>[]): Promise<AuditRecord[]> {
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

/**
 * Results of RSA checks of rows read, by signature and signed message, per signer: the same pages
 * are read again and again (an RSA check costs about 70 µs of the event loop), the rows of one
 * batch share one signed root, and the result of a check depends on nothing else. A changed row
 * has another text (or leads to another root) and is checked anew.
 */
const checkedSignatures = new WeakMap<object, Map<string, boolean>>();
const CHECKED_SIGNATURES_MAX = 4096;

function signatureOk(rt: Runtime, text: string, signature: string): boolean {
  const signer = rt.keys.signer;
  let checked = checkedSignatures.get(signer);
  if (!checked) {
    checked = new Map();
    checkedSignatures.set(signer, checked);
  }
  const cache = checked;
  return verifyBatchSignature(signer, text, signature, (message, sig) => {
    if (!sig) return false;
    const key = `${sig}\n${message}`;
    let ok = cache.get(key);
    if (ok === undefined) {
      ok = signer.verify(message, sig);
      if (cache.size >= CHECKED_SIGNATURES_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(key, ok);
    }
    return ok;
  });
}

function toRecord(rt: Runtime, r: Selectable<AuditTable>, previousPresent: boolean): AuditRecord {
  const { id, signature, ...fields } = r;
  const sigOk = signatureOk(rt, signedText(id, fields), signature);
  return {
    number: id,
    date: r.date,
    sig_check: sigOk ? 'OK' : 'FAIL',
    missing_line: previousPresent ? 'OK' : 'FAIL',
    action: r.action,
    authentication: r.authentication,
    success: Number(r.success),
    serial: r.serial,
    token_type: r.token_type,
    container_serial: r.container_serial,
    container_type: r.container_type,
    user: r.user,
    realm: r.realm,
    resolver: r.resolver,
    administrator: r.administrator,
    action_detail: r.action_detail,
    info: r.info,
    privacyidea_server: r.node,
    policies: r.policies,
    client: r.client,
    user_agent: r.user_agent,
    user_agent_version: r.user_agent_version,
    log_level: r.log_level,
    clearance_level: r.clearance_level,
    startdate: r.startdate,
    duration: Number(r.duration),
    thread_id: r.thread_id,
  };
}

/** Counts the rows a query selects (for export progress). */
export async function countAudit(ctx: Context, asked: AuditQuery): Promise<number> {
  const query = await scopeToCaller(ctx, asked, 'auditlog_download');
  const rt = ctx;
  const base = applyFilters(rt, rt.store.db.selectFrom('audit'), query);
  const row = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

const CSV_BATCH = 2000;

/**
 * The rows of a query as privacyIDEA's CSV lines, oldest first, read in batches by id so that an
 * export of millions of rows never holds them all in memory.
 */
export async function* auditCsvLines(ctx: Context, asked: AuditQuery): AsyncGenerator<string> {
  const query = await scopeToCaller(ctx, asked, 'auditlog_download');
  const rt = ctx;
  let after = 0;
  for (;;) {
    const rows = await applyFilters(rt, rt.store.db.selectFrom('audit'), query)
      .selectAll()
      .where('id', '>', after)
      .orderBy('id', 'asc')
      .limit(CSV_BATCH)
      .execute();
    if (rows.length === 0) return;
    for (const rec of await toRecords(rt, rows)) {
      yield `${ENTRY_KEYS.map(
        (k) =>
          `'${String(rec[k])
            .replace(/'/g, "''")
            .replace(/[\r\n]+/g, ' ')}'`,
      ).join(',')}\n`;
    }
    after = rows.at(-1)!.id;
  }
}

export interface RotateResult {
  deletedByAge: number;
  deletedByCount: number;
}

/** Deletes rows older than `maxAgeSeconds` and, beyond that, the oldest rows over `maxRows`. 0 = no limit. */
export async function rotateAudit(
  rt: Runtime,
  limits: { maxAgeSeconds: number; maxRows: number },
): Promise<RotateResult> {
  const result: RotateResult = { deletedByAge: 0, deletedByCount: 0 };
  if (limits.maxAgeSeconds > 0) {
    const cutoff = new Date(rt.clock().getTime() - limits.maxAgeSeconds * 1000).toISOString();
    const r = await rt.store.db.deleteFrom('audit').where('date', '<', cutoff).executeTakeFirst();
    result.deletedByAge = Number(r.numDeletedRows);
  }
  if (limits.maxRows > 0) {
    // The id of the oldest row to keep; everything before it goes.
    const keep = await rt.store.db
      .selectFrom('audit')
      .select('id')
      .orderBy('id', 'desc')
      .offset(limits.maxRows - 1)
      .limit(1)
      .executeTakeFirst();
    if (keep) {
      const r = await rt.store.db.deleteFrom('audit').where('id', '<', keep.id).executeTakeFirst();
      result.deletedByCount = Number(r.numDeletedRows);
    }
  }
  return result;
}

export interface VerifyResult {
  checked: number;
  badSignatures: number[];
  /** Ids after which rows are missing (gaps in the sequence). */
  gapsAfter: number[];
}

/** Checks every row's signature and the continuity of ids. */
export async function verifyAudit(rt: Runtime, onProgress?: (done: number) => void): Promise<VerifyResult> {
  const result: VerifyResult = { checked: 0, badSignatures: [], gapsAfter: [] };
  let after = 0;
  let previous: number | undefined;
  for (;;) {
    const rows = await rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('id', '>', after)
      .orderBy('id', 'asc')
      .limit(CSV_BATCH)
      .execute();
    if (rows.length === 0) return result;
    for (const r of rows) {
      const { id, signature, ...fields } = r;
      if (!signatureOk(rt, signedText(id, fields), signature)) result.badSignatures.push(id);
      if (previous !== undefined && id !== previous + 1) result.gapsAfter.push(previous);
      previous = id;
      result.checked++;
    }
    after = rows.at(-1)!.id;
    onProgress?.(result.checked);
  }
}
