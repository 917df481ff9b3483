// Opens authsrv's database named by a URL: sqlite:<path> (embedded default), postgres://… or
// mysql://… / mariadb://… (through the pool factory, pool.ts), and runs its migrations. Everything
// above this file sees one Kysely instance and a dialect name.
import { isAbsolute, join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { Migrator } from 'kysely/migration';
import { DatabaseError } from '../errors.ts';
import type { Dialect } from './dialect.ts';
import { migrationProvider } from './migrations.ts';
import { namedStatementsSetting } from './pg-named-statements.ts';
import { type DatabaseTarget, openPool, type PoolOptions } from './pool.ts';
import type { Database } from './schema.ts';

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
 * The files of authsrv's own database at this URL: the SQLite file with its journal, WAL and
 * shared-memory files; none for a database server.
 */
export function databaseFiles(url: string, baseDir: string): string[] {
  if (dialectOf(url) !== 'sqlite') return [];
  const file = sqlitePath(url, baseDir);
  if (file === '' || file === ':memory:') return [];
  return ['', '-journal', '-wal', '-shm'].map((suffix) => `${file}${suffix}`);
}

/** authsrv's own database: shared by the server and CLI processes, and on the login path. */
const STORE_POOL: PoolOptions = {
  maxConnections: 10,
  sqlite: { create: true, busyTimeoutMs: 10_000, shared: true },
  postgres: { int8AsNumber: true },
  mysql: { utc: true },
};

/** Where a database URL points; `named_statements` (PostgreSQL) is authsrv's, not the driver's. */
function targetOf(url: string, baseDir: string): { target: DatabaseTarget; namedStatements: boolean } {
  const dialect = dialectOf(url);
  if (dialect === 'sqlite') {
    const file = sqlitePath(url, baseDir);
    if (file === '') throw new DatabaseError(`The database URL '${url}' names no SQLite file`);
    return { target: { dialect, file }, namedStatements: false };
  }
  if (dialect === 'mysql')
    return { target: { dialect, url: url.replace(/^mariadb:/, 'mysql:') }, namedStatements: false };
  const setting = namedStatementsSetting(url);
  return { target: { dialect, url: setting.url }, namedStatements: setting.named };
}

export async function openDatabase(url: string, baseDir = process.cwd()): Promise<Store> {
  const { target, namedStatements } = targetOf(url, baseDir);
  const db = await openPool<Database>(target, {
    ...STORE_POOL,
    postgres: { ...STORE_POOL.postgres, namedStatements },
  });
  if (target.dialect === 'sqlite' && target.file !== ':memory:') sqliteFiles.set(db, resolve(target.file));
  return storeOf(db, target.dialect);
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
