// The privacyIDEA fixture's database (test/fixtures/privacyidea-3.11/pi.sqlite) copied into a fresh
// PostgreSQL or MariaDB database, as privacyIDEA keeps it there: the same tables and column names
// (the capitals of Key, Value, Type, Description quoted), integers, text, native booleans on
// PostgreSQL (tinyint(1) on MariaDB), timestamps to the microsecond, and the audit's duration as an
// interval on PostgreSQL (a DATETIME counted from 1970 on MariaDB, as SQLAlchemy stores an Interval
// there). For the tests of an import whose source is a database server.
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './dialects.ts';
import { PI_FIXTURE } from './privacyidea-fixture.ts';

type Server = 'postgres' | 'mysql';

interface SqliteColumn {
  name: string;
  type: string;
  notnull: number;
  pk: number;
}

export interface PiServerCopy {
  /** The database as pi.cfg would name it: postgresql+psycopg2://… or mysql+pymysql://… */
  sqlalchemyUrl: string;
  drop(): Promise<void>;
}

/** Rows per INSERT. */
const ROWS_PER_INSERT = 200;

/** A copy of the fixture's pi.sqlite in a new database on `server`. */
export async function copyPiFixtureTo(server: Server): Promise<PiServerCopy> {
  const target = await createTestDatabase(server);
  const source = new DatabaseSync(join(PI_FIXTURE, 'pi.sqlite'), { readOnly: true });
  try {
    const run = server === 'postgres' ? await postgresRunner(target.url) : await mysqlRunner(target.url);
    try {
      for (const table of tableNames(source)) await copyTable(source, table, server, run);
    } finally {
      await run.end();
    }
  } catch (e) {
    await target.drop();
    throw e;
  } finally {
    source.close();
  }
  return { sqlalchemyUrl: sqlalchemyUrl(target, server), drop: () => target.drop() };
}

function sqlalchemyUrl(target: TestDatabase, server: Server): string {
  const rest = target.url.slice(target.url.indexOf(':'));
  // SQLAlchemy's MySQL URLs carry driver options the import must ignore.
  return server === 'postgres' ? `postgresql+psycopg2${rest}` : `mysql+pymysql${rest}?charset=utf8mb4`;
}

interface Runner {
  query(text: string, values?: unknown[]): Promise<void>;
  end(): Promise<void>;
}

async function postgresRunner(url: string): Promise<Runner> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    query: async (text, values) => {
      let n = 0;
      await client.query(
        text.replace(/\?/g, () => `$${++n}`),
        values,
      );
    },
    end: () => client.end(),
  };
}

async function mysqlRunner(url: string): Promise<Runner> {
  const conn = await createConnection({ uri: url, timezone: 'Z', charset: 'utf8mb4' });
  return {
    query: async (text, values) => {
      await conn.query(text, values);
    },
    end: () => conn.end(),
  };
}

function tableNames(db: DatabaseSync): string[] {
  return db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all()
    .map((r) => String(r.name));
}

function quote(server: Server, name: string): string {
  return server === 'postgres' ? `"${name}"` : `\`${name}\``;
}

/** The column's type on the server; `interval` marks the audit's duration. */
function columnType(server: Server, table: string, c: SqliteColumn): string {
  const t = c.type.toUpperCase();
  if (table === 'pidea_audit' && c.name === 'duration')
    return server === 'postgres' ? 'interval' : 'datetime(6)';
  if (t === 'DATETIME') return server === 'postgres' ? 'timestamp(6)' : 'datetime(6)';
  if (t === 'BOOLEAN') return server === 'postgres' ? 'boolean' : 'tinyint(1)';
  if (t === 'INTEGER') return 'integer';
  const varchar = /^VARCHAR\((\d+)\)$/.exec(t);
  // MariaDB limits a row to 65 535 bytes (4 a character in utf8mb4): long ones as text.
  if (varchar) return server === 'mysql' && Number(varchar[1]) > 255 ? 'text' : `varchar(${varchar[1]})`;
  return 'text';
}

async function copyTable(source: DatabaseSync, table: string, server: Server, run: Runner): Promise<void> {
  const columns = source.prepare(`PRAGMA table_info("${table}")`).all() as unknown as SqliteColumn[];
  const q = (n: string) => quote(server, n);
  const keys = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
  const definitions = columns.map(
    (c) => `${q(c.name)} ${columnType(server, table, c)}${c.notnull || c.pk ? ' NOT NULL' : ''}`,
  );
  if (keys.length) definitions.push(`PRIMARY KEY (${keys.map((c) => q(c.name)).join(', ')})`);
  const charset = server === 'mysql' ? ' CHARACTER SET utf8mb4' : '';
  await run.query(`CREATE TABLE ${q(table)} (${definitions.join(', ')})${charset}`);
  const rows = source.prepare(`SELECT * FROM "${table}"`).all();
  const convert = columns.map((c) => valueConverter(server, table, c));
  for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
    const part = rows.slice(i, i + ROWS_PER_INSERT);
    const placeholders = part.map(() => `(${columns.map(() => '?').join(', ')})`).join(', ');
    const values = part.flatMap((r) => columns.map((c, j) => convert[j]!(r[c.name])));
    await run.query(
      `INSERT INTO ${q(table)} (${columns.map((c) => q(c.name)).join(', ')}) VALUES ${placeholders}`,
      values,
    );
  }
}

function valueConverter(server: Server, table: string, c: SqliteColumn): (v: unknown) => unknown {
  const t = c.type.toUpperCase();
  if (server === 'postgres' && t === 'BOOLEAN') return (v) => (v === null ? null : Number(v) !== 0);
  if (server === 'postgres' && table === 'pidea_audit' && c.name === 'duration') return epochToInterval;
  return (v) => v;
}

/** SQLite's '1970-01-01 00:00:00.108337' as a PostgreSQL interval. */
function epochToInterval(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  const [seconds, fraction = ''] = String(v).split('.');
  const whole = Date.parse(`${seconds!.replace(' ', 'T')}Z`) / 1000;
  return `${whole} seconds ${Number(fraction.padEnd(6, '0'))} microseconds`;
}
