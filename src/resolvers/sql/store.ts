// The user store of one SQL resolver: lookups, searches, password checks and, when Editable,
// writes on its table. Each store keeps its own small connection pool, opened on first use. No
// text of the settings or of a request ever becomes SQL: table and column names are checked
// identifiers quoted by Kysely, the Where filter is parsed into column comparisons, and every value
// is a bound parameter.
import { type Expression, type SqlBool, sql } from 'kysely';
import { decoyLike, makeCryptHash, verifyCryptHash } from '../../crypto/index.ts';
import { ParameterError, ResolverError, UserError } from '../../errors.ts';
import type { StoreEnvironment, UserChanges, UserRecord, UserSearch, UserStore } from '../user-store.ts';
import { equals, matches, whereFilter } from './conditions.ts';
import type { SqlConfig } from './config.ts';
import {
  type Db,
  isBadValue,
  OPERATION_TIMEOUT_MS,
  openUserDatabase,
  type Row,
  reason,
  within,
} from './connection.ts';

function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return String(v);
}

export class SqlStore implements UserStore {
  readonly editable: boolean;
  private readonly cfg: SqlConfig;
  private readonly env: StoreEnvironment;
  private db: Promise<Db> | undefined;
  private closed = false;
  /** Password hashes of the records this store handed out, so a login costs one query. */
  private readonly hashes = new WeakMap<UserRecord, string | null>();
  /** A costly hash of some user of the table, seen last: what checkPasswordOfNobody imitates. */
  private costly: string | undefined;
  /** Whether the table was asked once for a user whose hash to imitate. */
  private probed = false;
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
      this.db = this.open();
      this.db.catch(() => {
        this.db = undefined; // try again on the next call
      });
    }
    return this.db;
  }

  /**
   * An SQLite file is checked under the rule of src/files and opened at the real path checked; one
   * that is not there fails like a server that is not there.
   */
  private async open(): Promise<Db> {
    const { cfg, env } = this;
    if (cfg.dialect !== 'sqlite') return openUserDatabase(cfg, '');
    const file = env.files.realPath(cfg.database, 'Database');
    if (file === undefined) throw Object.assign(new Error('no such database file'), { code: 'ENOENT' });
    return openUserDatabase(cfg, file);
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
    return equals(this.cfg.dialect, column, value);
  }

  private matches(column: string, pattern: string): Expression<SqlBool> {
    return matches(this.cfg.dialect, column, pattern);
  }

  private whereFilter(): Expression<SqlBool>[] {
    return whereFilter(this.cfg.where);
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
    const hash = pw === null || pw === undefined ? null : text(pw);
    this.hashes.set(record, hash);
    if (hash !== null && decoyLike(hash) !== undefined) this.costly = hash;
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

  /**
   * A check against a decoy of a hash of this table (the last costly one a lookup read; before any,
   * the first user's, read once): as slow as a wrong password of a user of the table.
   */
  async checkPasswordOfNobody(password: string): Promise<void> {
    if (this.costly === undefined && !this.probed) {
      this.probed = true;
      await this.select([], 1).catch(() => []);
    }
    const decoy = this.costly === undefined ? undefined : decoyLike(this.costly);
    if (decoy !== undefined) await verifyCryptHash(decoy, password);
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
