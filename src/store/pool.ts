// The one factory for database connections: authsrv's own database (database.ts) and the tables of
// SQL user stores (src/resolvers/sql) are opened here, on SQLite, PostgreSQL or MariaDB/MySQL,
// from a URL or from separate connection settings. What differs between those callers is an
// option: pool size and time limits, SQLite's read-only or shared (WAL) use, PostgreSQL's named
// statements, how values arrive. The network drivers are loaded only for the database in use:
// each costs a CLI command about a tenth of a second at start-up.
import { Kysely, type Dialect as KyselyDialect, MysqlDialect, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { namingClient } from './pg-named-statements.ts';
import { type SqliteOptions, sqliteDialect } from './sqlite.ts';

/** Where a database is: a SQLite file, or a server by URL or by its settings. */
export type DatabaseTarget =
  | { dialect: 'sqlite'; file: string }
  | { dialect: 'postgres' | 'mysql'; url: string }
  | {
      dialect: 'postgres' | 'mysql';
      host: string;
      port: number;
      database: string;
      user?: string;
      password?: string;
    };

export interface PostgresOptions {
  /** Server-side prepared statements for the queries prepared() keeps (pg-named-statements.ts). */
  namedStatements?: boolean;
  /** bigint (int8) as a number instead of text: for ids and counts that stay far below 2^53. */
  int8AsNumber?: boolean;
  /**
   * date, time, timestamp and interval values as the server's text, to the microsecond (pg's
   * Date objects keep milliseconds and read a timestamp without zone as local time).
   */
  datesAsText?: boolean;
  /** The longest a query may take. */
  queryTimeoutMs?: number;
  /** Idle connections are closed after this. */
  idleTimeoutMs?: number;
  /** Shown in pg_stat_activity. */
  applicationName?: string;
}

export interface MysqlOptions {
  /** DATETIME values are written and read as UTC. */
  utc?: boolean;
  /** The connection's character set (the driver's default: utf8mb4_unicode_ci). */
  charset?: string;
  /** BIGINT, DECIMAL and date values as the server's text (a table whose column types are not known). */
  valuesAsText?: boolean;
  /** DATE and DATETIME values as the server's text, to the microsecond (a Date keeps milliseconds). */
  datesAsText?: boolean;
}

export interface PoolOptions {
  /** Connections open at most (PostgreSQL, MariaDB/MySQL). */
  maxConnections: number;
  /** A server that cannot be connected to within this fails (PostgreSQL, MariaDB/MySQL). */
  connectTimeoutMs?: number;
  sqlite: SqliteOptions;
  postgres?: PostgresOptions;
  mysql?: MysqlOptions;
}

type ServerTarget = Exclude<DatabaseTarget, { dialect: 'sqlite' }>;

/** pg's and mysql2's connection settings: a URL, or host, port … */
function serverSettings(target: ServerTarget, urlKey: 'connectionString' | 'uri') {
  if ('url' in target) return { [urlKey]: target.url };
  return {
    host: target.host,
    port: target.port,
    user: target.user || undefined,
    password: target.password || undefined,
    database: target.database,
  };
}

async function postgresDialect(target: ServerTarget, options: PoolOptions): Promise<KyselyDialect> {
  const { default: pg } = await import('pg');
  const pgOptions = options.postgres ?? {};
  const pool = new pg.Pool({
    ...serverSettings(target, 'connectionString'),
    max: options.maxConnections,
    connectionTimeoutMillis: options.connectTimeoutMs,
    query_timeout: pgOptions.queryTimeoutMs,
    idleTimeoutMillis: pgOptions.idleTimeoutMs,
    application_name: pgOptions.applicationName,
    ...(pgOptions.int8AsNumber || pgOptions.datesAsText ? { types: typeParsers(pg.types, pgOptions) } : {}),
    ...(pgOptions.namedStatements ? { Client: namingClient(pg.Client) } : {}),
  });
  // An idle connection that the server drops (restart, failover, idle timeout) is reported as an
  // 'error' event, which would end the process if nobody listened; pg discards that connection
  // and the next query opens a new one.
  pool.on('error', () => undefined);
  return new PostgresDialect({ pool });
}

/** date (1082), time (1083), timestamp (1114), timestamptz (1184), interval (1186). */
const DATE_OIDS: ReadonlySet<number> = new Set([1082, 1083, 1114, 1184, 1186]);

/** pg's type parsers, for this pool only: int8 (type 20) as a number, dates as their text. */
function typeParsers(types: typeof pg.types, o: PostgresOptions): Pick<typeof pg.types, 'getTypeParser'> {
  const getTypeParser = (oid: number, format?: 'text' | 'binary') => {
    if (format === 'binary') return types.getTypeParser(oid, format);
    if (oid === 20 && o.int8AsNumber) return (v: string) => Number.parseInt(v, 10);
    if (DATE_OIDS.has(oid) && o.datesAsText) return (v: string) => v;
    return types.getTypeParser(oid, format);
  };
  return { getTypeParser: getTypeParser as typeof types.getTypeParser };
}

async function mysqlDialect(target: ServerTarget, options: PoolOptions): Promise<KyselyDialect> {
  const { createPool } = await import('mysql2');
  const mysqlOptions = options.mysql ?? {};
  const pool = createPool({
    ...serverSettings(target, 'uri'),
    connectionLimit: options.maxConnections,
    ...(options.connectTimeoutMs === undefined ? {} : { connectTimeout: options.connectTimeoutMs }),
    ...(mysqlOptions.charset ? { charset: mysqlOptions.charset } : {}),
    ...(mysqlOptions.utc ? { timezone: 'Z' } : {}),
    supportBigNumbers: true,
    ...(mysqlOptions.valuesAsText ? { bigNumberStrings: true, dateStrings: true } : {}),
    ...(mysqlOptions.datesAsText ? { dateStrings: true } : {}),
  });
  return new MysqlDialect({ pool });
}

/** A Kysely instance on the target; SQLite is opened at once, servers on the first query. */
export async function openPool<DB>(target: DatabaseTarget, options: PoolOptions): Promise<Kysely<DB>> {
  let dialect: KyselyDialect;
  if (target.dialect === 'sqlite') dialect = sqliteDialect(target.file, options.sqlite);
  else if (target.dialect === 'postgres') dialect = await postgresDialect(target, options);
  else dialect = await mysqlDialect(target, options);
  return new Kysely<DB>({ dialect });
}
