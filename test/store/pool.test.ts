// The one factory of database connections (src/store/pool.ts), on every dialect under test: a
// database by URL or by its settings, and each option doing what it says — SQLite's private
// creation, read-only and shared (WAL) use, PostgreSQL's int8 parsing (for its own pool only), query
// timeout and application name, MariaDB/MySQL's values as text, UTC and character set.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/errors.ts';
import { type DatabaseTarget, openPool, type PoolOptions } from '../../src/store/pool.ts';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/dialects.ts';

type Db = Kysely<Record<string, Record<string, unknown>>>;

const BASE: PoolOptions = { maxConnections: 2, sqlite: { busyTimeoutMs: 1000 } };

const opened: Db[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((db) => db.destroy()));
});

async function open(target: DatabaseTarget, options: Partial<PoolOptions> = {}): Promise<Db> {
  const db = await openPool<Record<string, Record<string, unknown>>>(target, { ...BASE, ...options });
  opened.push(db);
  return db;
}

async function one<T>(db: Db, query: ReturnType<typeof sql<T>>): Promise<T> {
  return (await query.execute(db)).rows[0]!;
}

describe('openPool on SQLite', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'authsrv-pool-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates a missing file only when asked, private to the user, in an existing directory', async () => {
    const file = join(dir, 'created.db');
    await expect(open({ dialect: 'sqlite', file })).rejects.toThrow();
    const db = await open({ dialect: 'sqlite', file }, { sqlite: { busyTimeoutMs: 1000, create: true } });
    await sql`create table t (a integer)`.execute(db);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    await expect(
      open(
        { dialect: 'sqlite', file: join(dir, 'missing', 'x.db') },
        { sqlite: { busyTimeoutMs: 1, create: true } },
      ),
    ).rejects.toThrow(DatabaseError);
  });

  it('opens read-only, and with the busy timeout given', async () => {
    const file = join(dir, 'readonly.db');
    const writer = await open({ dialect: 'sqlite', file }, { sqlite: { busyTimeoutMs: 1000, create: true } });
    await sql`create table t (a integer)`.execute(writer);
    const reader = await open(
      { dialect: 'sqlite', file },
      { sqlite: { busyTimeoutMs: 1234, readOnly: true } },
    );
    expect(await one(reader, sql<{ timeout: number }>`pragma busy_timeout`)).toEqual({ timeout: 1234 });
    await expect(sql`insert into t (a) values (1)`.execute(reader)).rejects.toThrow(/readonly/);
    expect(await one(reader, sql<{ n: number }>`select count(*) as n from t`)).toEqual({ n: 0 });
  });

  it('sets a shared file up for several writers, and leaves a plain one as it is', async () => {
    const shared = await open(
      { dialect: 'sqlite', file: join(dir, 'shared.db') },
      { sqlite: { busyTimeoutMs: 1000, create: true, shared: true } },
    );
    expect(await one(shared, sql`pragma journal_mode`)).toEqual({ journal_mode: 'wal' });
    expect(await one(shared, sql`pragma foreign_keys`)).toEqual({ foreign_keys: 1 });
    // Values go in as `+?`, so that SQLite keeps the plans of compiled statements.
    expect(shared.selectFrom('t').selectAll().where('a', '=', 1).compile().sql).toBe(
      'select * from "t" where "a" = +?',
    );
    const plain = await open(
      { dialect: 'sqlite', file: join(dir, 'plain.db') },
      { sqlite: { busyTimeoutMs: 1000, create: true } },
    );
    expect(await one(plain, sql`pragma journal_mode`)).toEqual({ journal_mode: 'delete' });
    expect(plain.selectFrom('t').selectAll().where('a', '=', 1).compile().sql).toBe(
      'select * from "t" where "a" = ?',
    );
  });
});

/** The settings form of a server URL: host, port, user, password, database. */
function settingsOf(dialect: 'postgres' | 'mysql', url: string): DatabaseTarget {
  const u = new URL(url);
  return {
    dialect,
    host: u.hostname,
    port: Number(u.port || (dialect === 'postgres' ? 5432 : 3306)),
    user: decodeURIComponent(u.username),
    password: decodeURIComponent(u.password),
    database: u.pathname.slice(1),
  };
}

/** A database of its own for the tests of one describe block, dropped after them. */
function testDatabase(dialect: 'postgres' | 'mysql'): () => TestDatabase {
  let tdb: TestDatabase | undefined;
  beforeAll(async () => {
    tdb = await createTestDatabase(dialect);
  });
  afterAll(async () => {
    await Promise.all(opened.splice(0).map((db) => db.destroy()));
    await tdb?.drop();
  });
  return () => tdb!;
}

const servers = testDialects().filter((d): d is 'postgres' | 'mysql' => d !== 'sqlite');

describe.each(servers)('openPool on %s', (dialect) => {
  const tdb = testDatabase(dialect);

  it('connects by URL and by settings alike', async () => {
    for (const target of [{ dialect, url: tdb().url }, settingsOf(dialect, tdb().url)] as DatabaseTarget[]) {
      const db = await open(target);
      expect(await one(db, sql<{ n: number }>`select 1 + 1 as n`)).toEqual({ n: 2 });
    }
  });

  it('fails, and does not hang, where no server listens', async () => {
    const target = { ...settingsOf(dialect, tdb().url), host: '127.0.0.1', port: 9 } as DatabaseTarget;
    const db = await open(target, { connectTimeoutMs: 1000 });
    await expect(sql`select 1`.execute(db)).rejects.toThrow();
  });
});

describe.runIf(servers.includes('postgres'))('openPool options on PostgreSQL', () => {
  const tdb = testDatabase('postgres');
  const target = (): DatabaseTarget => ({ dialect: 'postgres', url: tdb().url });
  const big = sql<{ n: unknown }>`select 9007199254740993::int8 as n`;

  it('parses int8 as a number for the pool that asks, and only for it', async () => {
    const asNumber = await open(target(), { postgres: { int8AsNumber: true } });
    const asText = await open(target());
    expect(await one(asNumber, sql`select 42::int8 as n`)).toEqual({ n: 42 });
    expect(await one(asText, sql`select 42::int8 as n`)).toEqual({ n: '42' });
    expect(await one(asText, big)).toEqual({ n: '9007199254740993' });
    expect(await one(asNumber, sql`select 42::int4 as n, 'x'::text as t`)).toEqual({ n: 42, t: 'x' });
  });

  it('names the application and ends a query past the query timeout', async () => {
    const db = await open(target(), { postgres: { applicationName: 'authsrv-test', queryTimeoutMs: 300 } });
    expect(await one(db, sql`select current_setting('application_name') as a`)).toEqual({
      a: 'authsrv-test',
    });
    await expect(sql`select pg_sleep(2)`.execute(db)).rejects.toThrow(/timeout/i);
  });
});

describe.runIf(servers.includes('mysql'))('openPool options on MariaDB/MySQL', () => {
  const tdb = testDatabase('mysql');
  const target = (): DatabaseTarget => ({ dialect: 'mysql', url: tdb().url });
  const values = sql<{
    big: unknown;
    at: unknown;
  }>`select cast(12345678901234567890 as decimal(30,0)) as big, cast('2024-01-02 03:04:05' as datetime) as at`;

  it('gives big numbers and dates as text when asked, else dates as Date in UTC or local time', async () => {
    const asText = await open(target(), { mysql: { valuesAsText: true } });
    expect(await one(asText, values)).toEqual({ big: '12345678901234567890', at: '2024-01-02 03:04:05' });
    const utc = await open(target(), { mysql: { utc: true } });
    expect((await one(utc, values)).at).toEqual(new Date(Date.UTC(2024, 0, 2, 3, 4, 5)));
    const local = await open(target());
    expect((await one(local, values)).at).toEqual(new Date(2024, 0, 2, 3, 4, 5));
  });

  it('speaks the character set asked for', async () => {
    const db = await open(target(), { mysql: { charset: 'utf8mb4' } });
    expect(await one(db, sql`select @@character_set_client as c, @@collation_connection as k`)).toEqual({
      c: 'utf8mb4',
      k: 'utf8mb4_general_ci',
    });
    expect(await one(db, sql`select 'Jörg 🙂' as t`)).toEqual({ t: 'Jörg 🙂' });
  });
});
