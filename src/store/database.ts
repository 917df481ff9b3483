// Opens the database named by a URL: sqlite:<path> (embedded default), postgres://… or
// mysql://… / mariadb://…. Everything above this file sees one Kysely instance and a dialect name.
import { existsSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type Insertable, Kysely, MysqlDialect, PostgresDialect, SqliteDialect } from 'kysely';
import { Migrator } from 'kysely/migration';
import { createPool as createMysqlPool } from 'mysql2';
import pg from 'pg';
import { DatabaseError } from '../core/errors.ts';
import { migrationProvider } from './migrations.ts';
import type { AuditTable, Database } from './schema.ts';
import { sqliteNativeBinding } from './sqlite-binding.ts';

export type Dialect = 'sqlite' | 'postgres' | 'mysql';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// PostgreSQL bigint (int8) arrives as text by default; ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));

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
  if (path === ':memory:') return path;
  return isAbsolute(path) ? path : join(baseDir, path);
}

export function openDatabase(url: string, baseDir = process.cwd()): Store {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    const binding = sqliteNativeBinding();
    const file = sqlitePath(url, baseDir);
    // SQLite gives its -wal and -shm files the database file's mode, so creating it private is enough.
    if (file !== ':memory:' && !existsSync(file)) writeFileSync(file, '', { mode: 0o600, flag: 'a' });
    const sqlite = new BetterSqlite3(file, binding ? { nativeBinding: binding } : {});
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 10000');
    sqlite.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { db, dialect, close: () => db.destroy() };
  }
  if (dialect === 'postgres') {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect, close: () => db.destroy() };
  }
  const mysqlUrl = url.replace(/^mariadb:/, 'mysql:');
  const pool = createMysqlPool({
    uri: mysqlUrl,
    connectionLimit: 10,
    supportBigNumbers: true,
    timezone: 'Z',
  });
  const db = new Kysely<Database>({ dialect: new MysqlDialect({ pool }) });
  return { db, dialect, close: () => db.destroy() };
}

/** Runs pending migrations; returns the names applied. */
export async function migrate(store: Store): Promise<string[]> {
  const migrator = new Migrator({ db: store.db, provider: migrationProvider(store.dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    throw new DatabaseError(`Database migration failed: ${(error as Error).message ?? String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** Inserts one audit row and returns its generated id, on every dialect. */
export async function insertReturningId(
  store: Store,
  table: 'audit',
  values: Insertable<AuditTable>,
): Promise<number> {
  if (store.dialect === 'mysql') {
    const r = await store.db.insertInto(table).values(values).executeTakeFirstOrThrow();
    return Number(r.insertId);
  }
  const row = await store.db.insertInto(table).values(values).returning('id').executeTakeFirstOrThrow();
  return Number(row.id);
}
