// Opens the database named by a URL: sqlite:<path> (embedded default), postgres://… or
// mysql://… / mariadb://…. Everything above this file sees one Kysely instance and a dialect name.
import { existsSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  MysqlDialect,
  PostgresDialect,
  SqliteAdapter,
  type SqliteDatabase,
  SqliteDialect,
  type SqliteDialectConfig,
  SqliteDriver,
  SqliteQueryCompiler,
} from 'kysely';
import { Migrator } from 'kysely/migration';
import { DatabaseError } from '../errors.ts';
import type { Dialect } from './dialect.ts';
import { migrationProvider } from './migrations.ts';
import { namedStatementsSetting, namingClient } from './pg-named-statements.ts';
import type { Database } from './schema.ts';
import { sqliteNativeBinding } from './sqlite-binding.ts';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** Runs the hooks given to beforeClose (in order), then closes the connections. */
  close(): Promise<void>;
  /** Work that must reach the database before it closes (e.g. audit rows still being batched). */
  beforeClose(hook: () => Promise<void>): void;
}

function storeOf(db: Kysely<Database>, dialect: Dialect): Store {
  const hooks: Array<() => Promise<void>> = [];
  return {
    db,
    dialect,
    beforeClose: (hook) => void hooks.push(hook),
    async close() {
      for (const hook of hooks.splice(0)) await hook();
      await db.destroy();
    },
  };
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

/** The SQLite file of a store, to serialise migrations of one file within this process. */
const sqliteFiles = new WeakMap<Kysely<Database>, string>();
const migrationsRunning = new Map<string, Promise<unknown>>();

export function defaultDatabaseUrl(dataDir: string): string {
  return `sqlite:${join(dataDir, 'authsrv.db')}`;
}

export function dialectOf(url: string): Dialect {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (/^postgres(ql)?:/.test(url)) return 'postgres';
  if (/^(mysql|mariadb):/.test(url)) return 'mysql';
  throw new DatabaseError(`Unsupported database URL scheme in '${url.split(':')[0]}:'`);
}

/** `sqlite:data/a.db`, `sqlite:///abs/a.db` and `sqlite::memory:` are accepted. */
function sqlitePath(url: string, baseDir: string): string {
  let path = url.slice('sqlite:'.length);
  if (path.startsWith('//')) path = path.slice(2);
  if (path === ':memory:' || path === '') return path;
  return isAbsolute(path) ? path : join(baseDir, path);
}

/**
 * The network drivers are loaded only for the database in use: each costs a CLI command about a
 * tenth of a second at start-up.
 */
export async function openDatabase(url: string, baseDir = process.cwd()): Promise<Store> {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    const binding = sqliteNativeBinding();
    const file = sqlitePath(url, baseDir);
    if (file === '') throw new DatabaseError(`The database URL '${url}' names no SQLite file`);
    if (file !== ':memory:' && !existsSync(dirname(file))) {
      throw new DatabaseError(`The SQLite database ${file} cannot be created: no such directory`);
    }
    // SQLite gives its -wal and -shm files the database file's mode, so creating it private is enough.
    if (file !== ':memory:' && !existsSync(file)) writeFileSync(file, '', { mode: 0o600, flag: 'a' });
    const sqlite = new BetterSqlite3(file, binding ? { nativeBinding: binding } : {});
    // The busy timeout first: switching a new database to WAL needs a moment of exclusive access,
    // which another process opening the same file at the same time may hold.
    sqlite.pragma('busy_timeout = 10000');
    enableWal(sqlite);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({
      dialect: new LockingSqliteDialect({ database: statementCache(sqlite) }),
    });
    if (file !== ':memory:') sqliteFiles.set(db, resolve(file));
    return storeOf(db, dialect);
  }
  if (dialect === 'postgres') {
    const { default: pg } = await import('pg');
    // PostgreSQL bigint (int8) arrives as text by default; ids and counts stay far below 2^53.
    pg.types.setTypeParser(20, (v: string) => Number.parseInt(v, 10));
    const setting = namedStatementsSetting(url);
    const pool = new pg.Pool({
      connectionString: setting.url,
      max: 10,
      ...(setting.named ? { Client: namingClient(pg.Client) } : {}),
    });
    // An idle connection that the server drops (restart, failover, idle timeout) is reported as an
    // 'error' event, which would end the process if nobody listened; pg discards that connection
    // and the next query opens a new one.
    pool.on('error', () => undefined);
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return storeOf(db, dialect);
  }
  const { createPool: createMysqlPool } = await import('mysql2');
  const mysqlUrl = url.replace(/^mariadb:/, 'mysql:');
  const pool = createMysqlPool({
    uri: mysqlUrl,
    connectionLimit: 10,
    supportBigNumbers: true,
    timezone: 'Z',
  });
  const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  return storeOf(db, dialect);
}

/** Runs pending migrations; returns the names applied. */
export async function migrate(store: Store): Promise<string[]> {
  const file = sqliteFiles.get(store.db);
  if (file === undefined) return migrateNow(store);
  // Two connections to one SQLite file in one process cannot wait for each other's lock: SQLite's
  // busy wait would block the very thread that has to finish the other transaction.
  const previous = migrationsRunning.get(file) ?? Promise.resolve();
  const mine = previous.catch(() => undefined).then(() => migrateNow(store));
  migrationsRunning.set(file, mine);
  try {
    return await mine;
  } finally {
    if (migrationsRunning.get(file) === mine) migrationsRunning.delete(file);
  }
}

async function migrateNow(store: Store): Promise<string[]> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    throw new DatabaseError(`Database migration failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
