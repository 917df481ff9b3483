// The settings of an SQL resolver read into an SqlConfig. Table and column names must be plain
// identifiers (Kysely quotes them), the Where filter is parsed (where.ts): nothing of the settings
// ever becomes SQL text.
import { isCryptHashType } from '../../crypto/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Dialect } from '../../store/index.ts';
import { settingBool, settingInt, settingMap, settingText } from '../settings.ts';
import type { ResolverSettings } from '../user-store.ts';
import { parseWhere, type WhereCondition } from './where.ts';

const DEFAULT_PORTS: Record<Dialect, number> = { sqlite: 0, postgres: 5432, mysql: 3306 };

/** Table and column names: letters, digits, `_` and `$`, not starting with a digit. */
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_$]*$/u;
const TABLE = /^[\p{L}_][\p{L}\p{N}_$]*(\.[\p{L}_][\p{L}\p{N}_$]*)?$/u;

export interface SqlConfig {
  dialect: Dialect;
  database: string;
  server: string;
  port: number;
  user: string;
  password: string;
  table: string;
  /** privacyIDEA attribute → column. */
  map: Record<string, string>;
  where: WhereCondition[];
  limit: number;
  editable: boolean;
  hashType: string;
  poolSize: number;
}

/** SQLAlchemy driver names as privacyIDEA stores them (`mysql+pymysql`, `postgresql+psycopg2` …). */
function dialectOf(driver: string): Dialect {
  const base = driver.trim().toLowerCase().split('+')[0]!;
  if (base === 'sqlite' || base === 'sqlite3') return 'sqlite';
  if (base === 'postgresql' || base === 'postgres' || base === 'pgsql') return 'postgres';
  if (base === 'mysql' || base === 'mariadb') return 'mysql';
  if (driver.trim() === '') throw ParameterError.missing('Driver');
  throw new ParameterError(`Driver '${driver}' is not supported: use sqlite, postgresql or mysql/mariadb`);
}

function tableOf(s: ResolverSettings): string {
  const table = settingText(s, 'Table').trim();
  if (table === '') throw ParameterError.missing('Table');
  if (!TABLE.test(table))
    throw new ParameterError(`Table '${table}' is not a table name (optionally schema.table)`);
  return table;
}

function columnMapOf(s: ResolverSettings): Record<string, string> {
  const map = settingMap(s, 'Map', {});
  for (const required of ['userid', 'username']) {
    if (!map[required]) throw new ParameterError(`Map must name the column of '${required}'`);
  }
  for (const [attribute, column] of Object.entries(map)) {
    if (!IDENTIFIER.test(column)) {
      throw new ParameterError(`Map: the column '${column}' of '${attribute}' is not a column name`);
    }
  }
  return map;
}

function whereOf(s: ResolverSettings): WhereCondition[] {
  const where = parseWhere(settingText(s, 'Where'));
  for (const c of where) {
    if (!IDENTIFIER.test(c.column)) throw new ParameterError(`Where: '${c.column}' is not a column name`);
  }
  return where;
}

export function configOf(s: ResolverSettings): SqlConfig {
  const dialect = dialectOf(settingText(s, 'Driver'));
  const database = settingText(s, 'Database');
  if (database === '') throw ParameterError.missing('Database');
  const table = tableOf(s);
  const map = columnMapOf(s);
  const where = whereOf(s);
  const hashType = settingText(s, 'Password_Hash_Type').trim() || 'SSHA256';
  if (!isCryptHashType(hashType))
    throw new ParameterError(`Password_Hash_Type '${hashType}' is not supported`);
  return {
    dialect,
    database,
    server: settingText(s, 'Server').trim() || 'localhost',
    port: settingInt(s, 'Port', DEFAULT_PORTS[dialect], 0, 65535) || DEFAULT_PORTS[dialect],
    user: settingText(s, 'User'),
    password: settingText(s, 'Password'),
    table,
    map,
    where,
    limit: settingInt(s, 'Limit', 100, 1),
    editable: settingBool(s, 'Editable'),
    hashType,
    poolSize: settingInt(s, 'poolSize', 5, 1, 100),
  };
}
