// The database of an SQL resolver, through the store's pool factory, and the time limits and error
// texts of working with a server that authsrv does not run.
import type { Kysely } from 'kysely';
import { type DatabaseTarget, openPool } from '../../store/index.ts';
import type { SqlConfig } from './config.ts';

export type Row = Record<string, unknown>;
export type Db = Kysely<Record<string, Row>>;

/** A dead or black-holed server must answer within this; a login never waits longer to fail. */
const CONNECT_TIMEOUT_MS = 5000;
/** Any single operation, connection included: the last guard against a server that stalls mid-query. */
export const OPERATION_TIMEOUT_MS = 15_000;

function targetOf(cfg: SqlConfig, sqliteFile: string): DatabaseTarget {
  if (cfg.dialect === 'sqlite') return { dialect: 'sqlite', file: sqliteFile };
  const { server: host, port, user, password, database } = cfg;
  return { dialect: cfg.dialect, host, port, user, password, database };
}

/**
 * The resolver's own small pool. A missing SQLite file is never created (a typo would silently make
 * an empty user store), and the file is opened read-only unless the store is editable. For SQLite,
 * `sqliteFile` is the file's real path, checked by the caller.
 */
export function openUserDatabase(cfg: SqlConfig, sqliteFile: string): Promise<Db> {
  return openPool(targetOf(cfg, sqliteFile), {
    maxConnections: cfg.poolSize,
    connectTimeoutMs: CONNECT_TIMEOUT_MS,
    sqlite: { readOnly: !cfg.editable, busyTimeoutMs: CONNECT_TIMEOUT_MS },
    postgres: { queryTimeoutMs: OPERATION_TIMEOUT_MS, idleTimeoutMs: 60_000, applicationName: 'authsrv' },
    // The table's column types are not known: numbers and dates as the server writes them.
    mysql: { charset: 'utf8mb4', valuesAsText: true },
  });
}

export function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error(`no answer within ${ms} ms`), { code: 'ETIMEDOUT' })),
      ms,
    );
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** A short, host-free reason for an error message (the full error goes to the log). */
export function reason(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  if (typeof err?.code === 'string' || typeof err?.code === 'number') return String(err.code);
  return typeof err?.message === 'string' ? err.message.split('\n')[0]!.slice(0, 120) : String(e);
}

/** PostgreSQL's "this text is not a value of that column's type": the value matches nothing. */
export function isBadValue(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^22(P02|003|007|008)$/.test(code);
}
