// sqlresolver: users in a table of an SQL database (SQLite, PostgreSQL, MariaDB/MySQL), columns
// named by a JSON map. Each store keeps its own small connection pool, opened on first use. No text
// of the settings or of a request ever becomes SQL: table and column names are checked identifiers
// quoted by Kysely, the Where filter is parsed into column comparisons, and every value is a bound
// parameter.
import BetterSqlite3 from 'better-sqlite3';
import {
  type Expression,
  Kysely,
  MysqlDialect,
  PostgresDialect,
  type SqlBool,
  SqliteDialect,
  sql,
} from 'kysely';
import { isCryptHashType, makeCryptHash, verifyCryptHash } from '../crypto/index.ts';
import { ParameterError, ResolverError, UserError } from '../errors.ts';
import { sqliteNativeBinding } from '../store/index.ts';
import { settingBool, settingInt, settingMap, settingText } from './settings.ts';
import type {
  ResolverKind,
  ResolverSettings,
  StoreEnvironment,
  TestResult,
  UserChanges,
  UserRecord,
  UserSearch,
  UserStore,
} from './user-store.ts';

type Row = Record<string, unknown>;
type AnyDatabase = Record<string, Row>;
type Db = Kysely<AnyDatabase>;
type SqlDialect = 'sqlite' | 'postgres' | 'mysql';

/** A dead or black-holed server must answer within this; a login never waits longer to fail. */
const CONNECT_TIMEOUT_MS = 5000;
/** Any single operation, connection included: the last guard against a server that stalls mid-query. */
const OPERATION_TIMEOUT_MS = 15_000;

const DEFAULT_PORTS: Record<SqlDialect, number> = { sqlite: 0, postgres: 5432, mysql: 3306 };

/** Table and column names: letters, digits, `_` and `$`, not starting with a digit. */
const IDENTIFIER = /^[\p{L}_][\p{L}\p{N}_$]*$/u;
const TABLE = /^[\p{L}_][\p{L}\p{N}_$]*(\.[\p{L}_][\p{L}\p{N}_$]*)?$/u;

// ---------------------------------------------------------------------------------------------
// The Where setting: `column op value [AND column op value …]`.

export type WhereOperator =
  | '='
  | '<>'
  | '<'
  | '>'
  | '<='
  | '>='
  | 'like'
  | 'not like'
  | 'is null'
  | 'is not null';

export interface WhereCondition {
  column: string;
  op: WhereOperator;
  /** Bound as a parameter; null for IS [NOT] NULL. */
  value: string | number | null;
}

const SYMBOL_OPS: Record<string, WhereOperator> = {
  '==': '=',
  '=': '=',
  '!=': '<>',
  '<>': '<>',
  '<=': '<=',
  '>=': '>=',
  '<': '<',
  '>': '>',
};

/**
 * Parses the Where filter. Grammar: conditions joined by AND (any case); a condition is
 * `column OP value` with OP one of `= == != <> < > <= >= LIKE NOT LIKE`, or `column IS [NOT] NULL`.
 * A value is a number, a quoted string ('…' or "…", the quote doubled inside), or a bare word
 * without blanks, quotes, parentheses, semicolons or comparison signs (privacyIDEA's `active == 1`,
 * `email like %@example.com`). Anything else — OR, parentheses, comments, functions — is refused.
 */
export function parseWhere(text: string): WhereCondition[] {
  const src = text.trim();
  const out: WhereCondition[] = [];
  if (src === '') return out;
  let i = 0;
  const fail = (expected: string) =>
    new ParameterError(
      `Where: ${expected} at position ${i + 1} of '${text}'. Allowed: column <op> value joined by AND, with ` +
        '<op> one of = == != <> < > <= >= LIKE, NOT LIKE, or column IS [NOT] NULL',
    );
  const blanks = () => {
    while (i < src.length && /\s/.test(src[i]!)) i++;
  };
  const word = (): string | undefined => {
    const m = /^[\p{L}_][\p{L}\p{N}_$]*/u.exec(src.slice(i));
    if (!m) return undefined;
    i += m[0].length;
    return m[0];
  };
  const keyword = (): string | undefined => {
    const start = i;
    const w = word();
    if (w === undefined) return undefined;
    // A keyword must stand alone: `ANDx` is not AND.
    if (i < src.length && !/\s/.test(src[i]!)) {
      i = start;
      return undefined;
    }
    return w.toUpperCase();
  };
  const value = (): string | number => {
    const quote = src[i];
    if (quote === "'" || quote === '"') {
      let s = '';
      i++;
      for (;;) {
        if (i >= src.length) throw fail(`a closing ${quote}`);
        if (src[i] === quote) {
          if (src[i + 1] === quote) {
            s += quote;
            i += 2;
            continue;
          }
          i++;
          return s;
        }
        s += src[i++];
      }
    }
    const m = /^[^\s'"();=<>!]+/.exec(src.slice(i));
    if (!m) throw fail('a value');
    i += m[0].length;
    return /^-?\d{1,15}(\.\d{1,15})?$/.test(m[0]) ? Number(m[0]) : m[0];
  };

  for (;;) {
    if (out.length >= 20) throw fail('at most 20 conditions');
    blanks();
    const column = word();
    if (column === undefined) throw fail('a column name');
    blanks();
    const sym = /^(==|!=|<>|<=|>=|=|<|>)/.exec(src.slice(i));
    if (sym) {
      i += sym[0].length;
      blanks();
      out.push({ column, op: SYMBOL_OPS[sym[0]]!, value: value() });
    } else {
      const kw = keyword();
      if (kw === 'LIKE' || kw === 'NOT') {
        if (kw === 'NOT') {
          blanks();
          if (keyword() !== 'LIKE') throw fail('LIKE after NOT');
        }
        blanks();
        out.push({ column, op: kw === 'NOT' ? 'not like' : 'like', value: String(value()) });
      } else if (kw === 'IS') {
        blanks();
        let w = keyword();
        const not = w === 'NOT';
        if (not) {
          blanks();
          w = keyword();
        }
        if (w !== 'NULL') throw fail('NULL');
        out.push({ column, op: not ? 'is not null' : 'is null', value: null });
      } else {
        throw fail('an operator');
      }
    }
    blanks();
    if (i >= src.length) return out;
    if (keyword() !== 'AND') throw fail('AND or the end');
  }
}

// ---------------------------------------------------------------------------------------------
// Settings.

interface SqlConfig {
  dialect: SqlDialect;
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
function dialectOf(driver: string): SqlDialect {
  const base = driver.trim().toLowerCase().split('+')[0]!;
  if (base === 'sqlite' || base === 'sqlite3') return 'sqlite';
  if (base === 'postgresql' || base === 'postgres' || base === 'pgsql') return 'postgres';
  if (base === 'mysql' || base === 'mariadb') return 'mysql';
  if (driver.trim() === '') throw ParameterError.missing('Driver');
  throw new ParameterError(`Driver '${driver}' is not supported: use sqlite, postgresql or mysql/mariadb`);
}

function configOf(s: ResolverSettings): SqlConfig {
  const dialect = dialectOf(settingText(s, 'Driver'));
  const database = settingText(s, 'Database');
  if (database === '') throw ParameterError.missing('Database');
  const table = settingText(s, 'Table').trim();
  if (table === '') throw ParameterError.missing('Table');
  if (!TABLE.test(table))
    throw new ParameterError(`Table '${table}' is not a table name (optionally schema.table)`);
  const map = settingMap(s, 'Map', {});
  for (const required of ['userid', 'username']) {
    if (!map[required]) throw new ParameterError(`Map must name the column of '${required}'`);
  }
  for (const [attribute, column] of Object.entries(map)) {
    if (!IDENTIFIER.test(column)) {
      throw new ParameterError(`Map: the column '${column}' of '${attribute}' is not a column name`);
    }
  }
  const where = parseWhere(settingText(s, 'Where'));
  for (const c of where) {
    if (!IDENTIFIER.test(c.column)) throw new ParameterError(`Where: '${c.column}' is not a column name`);
  }
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

// ---------------------------------------------------------------------------------------------
// Connections.

async function connect(cfg: SqlConfig): Promise<Db> {
  if (cfg.dialect === 'sqlite') {
    const binding = sqliteNativeBinding();
    // Never create a missing file (a typo would silently make an empty user store), and open it
    // read-only unless the store is editable.
    const database = new BetterSqlite3(cfg.database, {
      fileMustExist: true,
      readonly: !cfg.editable,
      timeout: CONNECT_TIMEOUT_MS,
      ...(binding ? { nativeBinding: binding } : {}),
    });
    return new Kysely<AnyDatabase>({ dialect: new SqliteDialect({ database }) });
  }
  if (cfg.dialect === 'postgres') {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({
      host: cfg.server,
      port: cfg.port,
      user: cfg.user || undefined,
      password: cfg.password || undefined,
      database: cfg.database,
      max: cfg.poolSize,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: OPERATION_TIMEOUT_MS,
      idleTimeoutMillis: 60_000,
      application_name: 'authsrv',
    });
    // An idle connection the server drops is reported as an 'error' event, which would end the
    // process if nobody listened; pg discards it and opens a new one for the next query.
    pool.on('error', () => undefined);
    return new Kysely<AnyDatabase>({ dialect: new PostgresDialect({ pool }) });
  }
  const { createPool } = await import('mysql2');
  const pool = createPool({
    host: cfg.server,
    port: cfg.port,
    user: cfg.user || undefined,
    password: cfg.password || undefined,
    database: cfg.database,
    connectionLimit: cfg.poolSize,
    connectTimeout: CONNECT_TIMEOUT_MS,
    charset: 'utf8mb4',
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
  });
  return new Kysely<AnyDatabase>({ dialect: new MysqlDialect({ pool }) });
}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
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
function reason(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  if (typeof err?.code === 'string' || typeof err?.code === 'number') return String(err.code);
  return typeof err?.message === 'string' ? err.message.split('\n')[0]!.slice(0, 120) : String(e);
}

/** PostgreSQL's "this text is not a value of that column's type": the value matches nothing. */
function isBadValue(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && /^22(P02|003|007|008)$/.test(code);
}

/** A LIKE pattern (with ESCAPE '!') matching the text literally. */
function likeLiteral(s: string): string {
  return s.replace(/[!%_]/g, '!$&');
}

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return String(v);
}

// ---------------------------------------------------------------------------------------------

class SqlStore implements UserStore {
  readonly editable: boolean;
  private readonly cfg: SqlConfig;
  private readonly env: StoreEnvironment;
  private db: Promise<Db> | undefined;
  private closed = false;
  /** Password hashes of the records this store handed out, so a login costs one query. */
  private readonly hashes = new WeakMap<UserRecord, string | null>();
  /** The distinct columns a lookup reads. */
  private readonly columns: string[];

  constructor(cfg: SqlConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.env = env;
    this.editable = cfg.editable;
    this.columns = [...new Set(Object.values(cfg.map))];
  }

  private database(): Promise<Db> {
    if (this.closed) return Promise.reject(new ResolverError('The SQL resolver was closed'));
    if (!this.db) {
      this.db = connect(this.cfg);
      this.db.catch(() => {
        this.db = undefined; // try again on the next call
      });
    }
    return this.db;
  }

  /** Runs one operation with the time bound; database failures become a ResolverError. */
  private async run<T>(what: string, work: (db: Db) => Promise<T>): Promise<T> {
    try {
      return await within(
        OPERATION_TIMEOUT_MS,
        this.database().then((db) => work(db)),
      );
    } catch (e) {
      if (e instanceof ParameterError || e instanceof UserError || e instanceof ResolverError) throw e;
      this.env.log.warn(
        { err: e, table: this.cfg.table, dialect: this.cfg.dialect },
        `SQL resolver: ${what} failed`,
      );
      throw new ResolverError(`The SQL user store failed to ${what} (${reason(e)})`);
    }
  }

  private column(attribute: string): string {
    const column = this.cfg.map[attribute];
    if (!column || attribute === 'password') {
      throw new ParameterError(`Unknown search field '${attribute}' for this SQL resolver`);
    }
    return column;
  }

  private equals(column: string, value: string): Expression<SqlBool> {
    const ref = sql.ref(column);
    // MySQL compares a number column with text by converting the text to a number ('5abc' and 'abc'
    // would find the users 5 and 0) and ignores trailing blanks in `=` ('alice ' is alice). The
    // second comparison, a LIKE without wildcards, is exact in both respects; the first keeps the index.
    if (this.cfg.dialect === 'mysql') {
      return sql<SqlBool>`(${ref} = ${value} AND CAST(${ref} AS CHAR) LIKE ${likeLiteral(value)} ESCAPE '!')`;
    }
    return sql<SqlBool>`${ref} = ${value}`;
  }

  private matches(column: string, pattern: string): Expression<SqlBool> {
    if (!pattern.includes('*')) return this.equals(column, pattern);
    // `*` is the only wildcard: % and _ in the value are literal.
    const like = likeLiteral(pattern).replaceAll('*', '%');
    const ref = sql.ref(column);
    if (this.cfg.dialect === 'postgres') return sql<SqlBool>`CAST(${ref} AS TEXT) ILIKE ${like} ESCAPE '!'`;
    return sql<SqlBool>`${ref} LIKE ${like} ESCAPE '!'`;
  }

  private whereFilter(): Expression<SqlBool>[] {
    return this.cfg.where.map((c) => {
      const ref = sql.ref(c.column);
      switch (c.op) {
        case 'is null':
          return sql<SqlBool>`${ref} IS NULL`;
        case 'is not null':
          return sql<SqlBool>`${ref} IS NOT NULL`;
        default:
          // The operator comes from the parser's fixed list, never from the setting's text.
          return sql<SqlBool>`${ref} ${sql.raw(c.op.toUpperCase())} ${c.value}`;
      }
    });
  }

  private toRecord(row: Row): UserRecord {
    const map = this.cfg.map;
    const record: UserRecord = { userid: text(row[map.userid!]), username: text(row[map.username!]) };
    for (const [attribute, column] of Object.entries(map)) {
      if (attribute === 'password' || attribute === 'userid' || attribute === 'username') continue;
      const v = row[column];
      if (v !== null && v !== undefined) record[attribute] = text(v);
    }
    const pw = map.password === undefined ? undefined : row[map.password];
    this.hashes.set(record, pw === null || pw === undefined ? null : text(pw));
    return record;
  }

  private async select(conditions: Expression<SqlBool>[], limit: number): Promise<UserRecord[]> {
    if (limit <= 0) return [];
    return this.run('look up users', async (db) => {
      try {
        const rows = await db
          .selectFrom(this.cfg.table)
          .select(this.columns)
          .where((eb) => eb.and([...conditions, ...this.whereFilter()]))
          .orderBy(sql.ref(this.cfg.map.userid!))
          .limit(limit)
          .execute();
        return rows.map((r) => this.toRecord(r));
      } catch (e) {
        if (this.cfg.dialect === 'postgres' && isBadValue(e)) return [];
        throw e;
      }
    });
  }

  /** Exactly one match, or none: two users with one login name are refused, not guessed between. */
  private async unique(attribute: 'username' | 'userid', value: string): Promise<UserRecord | undefined> {
    if (value === '') return undefined;
    const found = await this.select([this.equals(this.cfg.map[attribute]!, value)], 2);
    if (found.length > 1) {
      this.env.log.warn(
        { table: this.cfg.table, [attribute]: value },
        `SQL resolver: more than one user with this ${attribute}`,
      );
      return undefined;
    }
    return found[0];
  }

  findByLogin(login: string): Promise<UserRecord | undefined> {
    return this.unique('username', login);
  }

  findById(userid: string): Promise<UserRecord | undefined> {
    return this.unique('userid', userid);
  }

  async search(filter: UserSearch, limit: number): Promise<UserRecord[]> {
    // A field this table does not map matches nobody, as in the other stores: one resolver without
    // an e-mail column must not make a search by e-mail fail for the whole realm.
    const mapped = (a: string) => a !== 'password' && this.cfg.map[a] !== undefined;
    if (!Object.keys(filter).every(mapped)) return [];
    const conditions = Object.entries(filter).map(([attribute, value]) =>
      this.matches(this.column(attribute), value),
    );
    return this.select(conditions, Math.min(limit, this.cfg.limit));
  }

  async checkPassword(user: UserRecord, password: string): Promise<boolean> {
    if (this.cfg.map.password === undefined) {
      this.env.log.warn(
        { table: this.cfg.table },
        'SQL resolver: Map has no password column, no password can match',
      );
      return false;
    }
    let hash = this.hashes.get(user);
    if (hash === undefined) {
      const fresh = await this.findById(user.userid);
      if (!fresh || fresh.username !== user.username) return false;
      hash = this.hashes.get(fresh) ?? null;
    }
    return hash !== null && (await verifyCryptHash(hash, password));
  }

  private mustBeEditable(): void {
    if (!this.cfg.editable) throw new UserError('This SQL resolver is not editable');
  }

  /** privacyIDEA attributes → a row of column values; `password` is hashed. */
  private async row(changes: UserChanges, password: string | undefined): Promise<Row> {
    const row: Row = {};
    for (const [attribute, value] of Object.entries(changes)) {
      if (value === undefined || attribute === 'password') continue;
      const column = this.cfg.map[attribute];
      if (!column)
        throw new ParameterError(`The SQL resolver maps no column for the attribute '${attribute}'`);
      row[column] = value;
    }
    const pw = password ?? changes.password;
    if (pw !== undefined) {
      if (!this.cfg.map.password) throw new ParameterError('The SQL resolver maps no password column');
      row[this.cfg.map.password] = await makeCryptHash(this.cfg.hashType, pw);
    }
    return row;
  }

  async create(changes: UserChanges, password: string | undefined): Promise<string> {
    this.mustBeEditable();
    const username = changes.username;
    if (!username) throw ParameterError.missing('username');
    const row = await this.row(changes, password);
    const idColumn = this.cfg.map.userid!;
    return this.run('create a user', async (db) => {
      const taken = await db
        .selectFrom(this.cfg.table)
        .select(sql<number>`1`.as('one'))
        .where(this.equals(this.cfg.map.username!, username))
        .limit(1)
        .execute();
      if (taken.length > 0) throw new UserError(`The user '${username}' already exists`);
      if (this.cfg.dialect === 'mysql') {
        const r = await db.insertInto(this.cfg.table).values(row).executeTakeFirst();
        if (changes.userid) return changes.userid;
        if (r.insertId !== undefined && r.insertId !== 0n) return String(r.insertId);
      } else {
        const r = await db
          .insertInto(this.cfg.table)
          .values(row)
          .returning(sql.ref(idColumn).as('id'))
          .executeTakeFirst();
        if (r && r.id !== null && r.id !== undefined) return text(r.id);
      }
      const made = await db
        .selectFrom(this.cfg.table)
        .select(sql.ref(idColumn).as('id'))
        .where(this.equals(this.cfg.map.username!, username))
        .execute();
      if (made.length !== 1) throw new ResolverError('The new user was written but cannot be found again');
      return text(made[0]!.id);
    });
  }

  async update(user: UserRecord, changes: UserChanges, password: string | undefined): Promise<void> {
    this.mustBeEditable();
    if (changes.userid !== undefined && changes.userid !== user.userid) {
      throw new ParameterError('The userid of an SQL user cannot be changed');
    }
    const { userid: _, ...rest } = changes;
    const row = await this.row(rest, password);
    if (Object.keys(row).length === 0) return;
    await this.run('update a user', async (db) => {
      const r = await db
        .updateTable(this.cfg.table)
        .set(row)
        .where((eb) => eb.and([this.equals(this.cfg.map.userid!, user.userid), ...this.whereFilter()]))
        .executeTakeFirst();
      // mysql2 asks for FOUND_ROWS: MySQL too counts matched rows, not changed ones.
      if (r.numUpdatedRows === 0n) {
        throw new UserError(`The user '${user.username}' does not exist in this resolver`);
      }
    });
  }

  async delete(user: UserRecord): Promise<void> {
    this.mustBeEditable();
    await this.run('delete a user', async (db) => {
      const r = await db
        .deleteFrom(this.cfg.table)
        .where((eb) => eb.and([this.equals(this.cfg.map.userid!, user.userid), ...this.whereFilter()]))
        .executeTakeFirst();
      if (r.numDeletedRows === 0n)
        throw new UserError(`The user '${user.username}' does not exist in this resolver`);
    });
  }

  /** For test(): reaches the server at all (authentication included). */
  async ping(): Promise<void> {
    const db = await within(OPERATION_TIMEOUT_MS, this.database());
    await within(OPERATION_TIMEOUT_MS, sql`SELECT 1`.execute(db));
  }

  /** For test(): the users the store sees, and whether every mapped column exists. */
  async count(): Promise<number> {
    const db = await this.database();
    return within(
      OPERATION_TIMEOUT_MS,
      (async () => {
        await db.selectFrom(this.cfg.table).select(this.columns).limit(1).execute();
        const r = await db
          .selectFrom(this.cfg.table)
          .select(sql<string | number | bigint>`COUNT(*)`.as('n'))
          .where((eb) => eb.and(this.whereFilter()))
          .executeTakeFirst();
        return Number(r?.n ?? 0);
      })(),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    const db = this.db;
    this.db = undefined;
    if (!db) return;
    try {
      await (await db).destroy();
    } catch {
      // never connected: nothing to release
    }
  }
}

export const sqlResolver: ResolverKind = {
  type: 'sqlresolver',
  settings: {
    Driver: {
      type: 'string',
      description: 'sqlite, postgresql or mysql/mariadb (SQLAlchemy names like mysql+pymysql accepted)',
      required: true,
    },
    Server: { type: 'string', description: 'Database server host name', default: 'localhost' },
    Port: { type: 'int', description: 'Database server port (default: 5432 PostgreSQL, 3306 MySQL)' },
    Database: {
      type: 'string',
      description: 'Database name; for SQLite the path of the file',
      required: true,
    },
    User: { type: 'string', description: 'Database user' },
    Password: { type: 'password', description: 'Password of the database user' },
    Table: { type: 'string', description: 'Table of the users, optionally schema.table', required: true },
    Map: {
      type: 'json',
      description:
        'JSON map of attribute → column; needs userid and username, may have password, givenname, surname, ' +
        'email, phone, mobile, description and others',
      required: true,
    },
    Where: {
      type: 'string',
      description: "Extra filter: column comparisons joined by AND, e.g. active = 1 AND type = 'staff'",
    },
    Limit: { type: 'int', description: 'Most users a search returns', default: '100' },
    Editable: { type: 'bool', description: 'Users can be created, changed and deleted', default: 'False' },
    Password_Hash_Type: {
      type: 'string',
      description:
        'Hash of passwords written to the table: SSHA256, SSHA, SSHA512, SHA256, SHA512, OTRS, bcrypt, ' +
        'sha512-crypt, sha256-crypt, phpass or argon2id',
      default: 'SSHA256',
    },
    poolSize: { type: 'int', description: 'Connections kept open to the database', default: '5' },
    // privacyIDEA settings accepted so that its configurations import unchanged; authsrv does not
    // need them (UTF-8 drivers, its own pool management).
    Encoding: {
      type: 'string',
      description: 'Accepted for compatibility; not used (the drivers speak UTF-8)',
    },
    conParams: { type: 'string', description: 'Accepted for compatibility; not used' },
    poolTimeout: { type: 'int', description: 'Accepted for compatibility; not used' },
    poolRecycle: { type: 'int', description: 'Accepted for compatibility; not used' },
  },
  validate(settings) {
    configOf(settings);
  },
  open: (settings, env) => new SqlStore(configOf(settings), env),
  async test(settings, env): Promise<TestResult> {
    const store = new SqlStore(configOf(settings), env);
    try {
      try {
        await store.ping();
      } catch (e) {
        env.log.info({ err: e }, 'SQL resolver test: no connection');
        return { value: -1, description: 'Unable to connect to database.' };
      }
      try {
        const n = await store.count();
        return { value: n, description: `Found ${n} users.` };
      } catch (e) {
        env.log.info({ err: e }, 'SQL resolver test: query failed');
        return { value: -1, description: 'Failed to retrieve users.' };
      }
    } finally {
      await store.close();
    }
  },
};
