// SQLite files through better-sqlite3: opened read-only or writable, and, for authsrv's own
// database, which the server and CLI processes share, set up for several writers (WAL, the write
// lock taken when a transaction begins, DDL in transactions) and a hot login path (compiled
// statements kept, plans that do not depend on bound values).
import { existsSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect as KyselyDialect,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  SqliteQueryCompiler,
} from 'kysely';
import { DatabaseError } from '../errors.ts';
import { sqliteNativeBinding } from './sqlite-binding.ts';

export interface SqliteOptions {
  /** Never writes: the file is opened read-only. */
  readOnly?: boolean;
  /** A missing file is created, private to this user; without it a missing file is refused. */
  create?: boolean;
  /** How long to wait for another process's lock. */
  busyTimeoutMs: number;
  /** Written by several processes at once: WAL, foreign keys, locking and kept statements (below). */
  shared?: boolean;
}

/**
 * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its migrator would
 * run migrations without a transaction and without a lock: two processes starting on a fresh
 * database (server and CLI) would both create the tables, and a failed migration would stay half
 * applied. Saying yes makes the migrator run all pending migrations in one transaction.
 */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/**
 * Every transaction takes the write lock when it begins (waiting up to busy_timeout for another
 * process to finish), instead of when it first writes: a deferred transaction that read first and
 * then found another process had written meanwhile fails at once with SQLITE_BUSY, whatever the
 * busy timeout. Within one process Kysely's single SQLite connection serialises transactions anyway.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

/**
 * Every value goes into the SQL as `+?` instead of `?`. SQLite re-plans a prepared statement on
 * every run whose bound value the planner looked at (with a join, a bare `col = ?` is one): for
 * the joined token query of a login that is a full re-compile, 15–25 µs, each time. The unary plus
 * leaves value, type and affinity as they are and still lets the column's index be used, but the
 * planner no longer reads the value, so the compiled statement is kept.
 */
export class StablePlanSqliteQueryCompiler extends SqliteQueryCompiler {
  protected override getCurrentParameterPlaceholder(): string {
    return '+?';
  }
}

class LockingSqliteDialect extends SqliteDialect {
  readonly #config: SqliteDialectConfig;
  constructor(config: SqliteDialectConfig) {
    super(config);
    this.#config = config;
  }
  override createDriver(): SqliteDriver {
    return new ImmediateSqliteDriver(this.#config);
  }
  override createAdapter(): SqliteAdapter {
    return new TransactionalSqliteAdapter();
  }
  override createQueryCompiler(): SqliteQueryCompiler {
    return new StablePlanSqliteQueryCompiler();
  }
}

/**
 * better-sqlite3 compiles the SQL again on every prepare(), and Kysely prepares every query it
 * runs; the queries of a login are the same few texts each time. This keeps the compiled
 * statements of the most recent texts (Kysely never streams here, so a statement is never busy
 * when it is handed out again).
 */
export function statementCache(sqlite: BetterSqlite3.Database, size = 512): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (statement) {
        // Most recently used last: the first key is the one to evict.
        cache.delete(sql);
      } else {
        statement = sqlite.prepare(sql);
        if (cache.size >= size) cache.delete(cache.keys().next().value as string);
      }
      cache.set(sql, statement);
      return statement;
    },
  };
}

/**
 * Switches the file to WAL mode. That needs the file alone for a moment, and when another process
 * opening the same new file holds it then, SQLite can answer BUSY at once without waiting through
 * its busy handler; so the switch is retried (at start-up only, blocking) for up to 10 s.
 */
function enableWal(sqlite: BetterSqlite3.Database): void {
  const deadline = Date.now() + 10_000;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      sqlite.pragma('journal_mode = WAL');
      return;
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw e;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

/** Creates a missing database file, readable by this user only (SQLite gives its -wal and -shm files the same mode). */
function createPrivately(file: string): void {
  if (file === ':memory:' || existsSync(file)) return;
  if (!existsSync(dirname(file))) {
    throw new DatabaseError(`The SQLite database ${file} cannot be created: no such directory`);
  }
  writeFileSync(file, '', { mode: 0o600, flag: 'a' });
}

export function sqliteDialect(file: string, options: SqliteOptions): KyselyDialect {
  if (options.create) createPrivately(file);
  const binding = sqliteNativeBinding();
  const sqlite = new BetterSqlite3(file, {
    // Never create a file by accident: a typo would silently make an empty database.
    fileMustExist: !options.create,
    readonly: options.readOnly === true,
    // The busy timeout first: switching a new database to WAL needs a moment of exclusive access,
    // which another process opening the same file at the same time may hold.
    timeout: options.busyTimeoutMs,
    ...(binding ? { nativeBinding: binding } : {}),
  });
  if (!options.shared) return new SqliteDialect({ database: sqlite });
  enableWal(sqlite);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  return new LockingSqliteDialect({ database: statementCache(sqlite) });
}
