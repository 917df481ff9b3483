// The SQLite side of the store (src/store/sqlite.ts):
// - values are bound as `+?` (StablePlanSqliteQueryCompiler), so that a joined query is not
//   re-planned on every run; checked: comparisons of every value type against columns of every
//   affinity, and the use of the indexes by the joined token query;
// - the compiled-statement cache: one compilation per SQL text, the least recently used text
//   evicted beyond the size, and statements that survive schema changes.
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Store } from '../../src/store/database.ts';
import { statementCache } from '../../src/store/sqlite.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/dialects.ts';

describe('SQLite values bound as +?', () => {
  let tdb: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    tdb = await createTestDatabase('sqlite');
    store = await openDatabase(tdb.url);
    await migrate(store);
  });
  afterEach(async () => {
    await store.close();
    await tdb.drop();
  });

  it('compiles every value as +?', () => {
    const q = store.db
      .selectFrom('token')
      .select('id')
      .where('serial', '=', 'S1')
      .where('count', 'in', [1, 2])
      .limit(5)
      .compile();
    expect(q.sql).toBe('select "id" from "token" where "serial" = +? and "count" in (+?, +?) limit +?');
    expect(q.parameters).toEqual(['S1', 1, 2, 5]);
    expect(sql`select ${1} as v`.compile(store.db).sql).toBe('select +? as v');
  });

  it('compares values as a bare ? does, whatever the column affinity', async () => {
    await sql`create table t (i integer, r real, x text, b blob, n)`.execute(store.db);
    await sql`insert into t values (10, 1.5, '10', x'0a', '7'), (20, 2.5, 'abc', x'0b', 7)`.execute(store.db);
    const probes: [string, unknown][] = [
      ['i', '10'], // text against INTEGER affinity: converted, matches
      ['i', 10],
      ['x', 10], // number against TEXT affinity: converted, matches '10'
      ['x', 'abc'],
      ['r', '2.5'],
      ['b', Buffer.from([0x0b])],
      ['n', '7'], // no affinity: text matches only text
      ['n', 7],
      ['i', null],
    ];
    for (const [column, value] of probes) {
      const stable = await sql<{
        i: number;
      }>`select i from t where ${sql.ref(column)} = ${value} order by i`.execute(store.db);
      const bare = await sql<{
        i: number;
      }>`select i from t where ${sql.ref(column)} = ${sql.raw('?')} order by i`;
      const expected = await store.db.executeQuery<{ i: number }>({
        ...bare.compile(store.db),
        parameters: [value],
      });
      expect(stable.rows, `${column} = ${String(value)}`).toEqual(expected.rows);
    }
    // And the value comes back as it went in.
    const echo = await sql<{
      a: unknown;
      b: unknown;
      c: unknown;
    }>`select ${'x'} as a, ${3} as b, ${null} as c`.execute(store.db);
    expect(echo.rows[0]).toEqual({ a: 'x', b: 3, c: null });
  });

  it('leaves the joined token query on its indexes', async () => {
    const q = store.db
      .selectFrom('token')
      .leftJoin('tokenowner', 'tokenowner.token_id', 'token.id')
      .leftJoin('tokenrealm', 'tokenrealm.token_id', 'token.id')
      .select('token.id')
      .where('tokenowner.resolver', '=', 'r')
      .where('tokenowner.user_id', '=', 'u')
      .compile();
    const plan = await store.db.executeQuery<{ detail: string }>({
      ...q,
      sql: `explain query plan ${q.sql}`,
    });
    const details = plan.rows.map((r) => r.detail).join('\n');
    expect(details).toMatch(
      /SEARCH tokenowner USING (COVERING )?INDEX tokenowner_user \(resolver=\? AND user_id=\?\)/,
    );
    expect(details).toMatch(/SEARCH token USING INTEGER PRIMARY KEY/);
    expect(details).not.toMatch(/SCAN token\b/);
  });
});

describe('statementCache', () => {
  it('compiles a text once, evicts the least recently used one, and follows schema changes', () => {
    const sqlite = new BetterSqlite3(':memory:');
    let compiled = 0;
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = ((sql: string) => {
      compiled++;
      return prepare(sql);
    }) as typeof sqlite.prepare;
    const db = statementCache(sqlite, 2);
    sqlite.exec('create table t (a integer)');
    const insert = 'insert into t (a) values (?)';
    const count = 'select count(*) as n from t';
    db.prepare(insert).run([1]);
    db.prepare(insert).run([2]);
    expect(compiled).toBe(1);
    expect((db.prepare(count) as BetterSqlite3.Statement).get()).toEqual({ n: 2 });
    // A third text evicts the least recently used (insert, used before count).
    db.prepare('select 1');
    db.prepare(count);
    expect(compiled).toBe(3);
    db.prepare(insert).run([3]);
    expect(compiled).toBe(4);
    // A cached statement still works after the table changed.
    sqlite.exec('alter table t add column b text');
    db.prepare(insert).run([4]);
    expect((db.prepare(count) as BetterSqlite3.Statement).get()).toEqual({ n: 4 });
    db.close();
  });
});
