// Named statements on PostgreSQL (src/store/pg-named-statements.ts): the queries prepared() keeps
// are prepared once per connection by PostgreSQL, nothing else is, a statement made stale by a
// schema change is prepared anew, and `named_statements=off` in the URL turns it all off.
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DatabaseError } from '../../src/errors.ts';
import { migrate, openDatabase, type Store } from '../../src/store/database.ts';
import { namedStatementsSetting } from '../../src/store/pg-named-statements.ts';
import { prepared } from '../../src/store/prepared.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/dialects.ts';

describe('named_statements in a database URL', () => {
  it('is on unless the URL says otherwise, and leaves the URL without it', () => {
    const base = 'postgres://u@h/db';
    expect(namedStatementsSetting(base)).toEqual({ url: base, named: true });
    expect(namedStatementsSetting(`${base}?named_statements=off`)).toEqual({ url: base, named: false });
    expect(namedStatementsSetting(`${base}?named_statements=ON`)).toEqual({ url: base, named: true });
    expect(namedStatementsSetting(`${base}?named_statements=0&host=/run/pg`)).toEqual({
      url: `${base}?host=/run/pg`,
      named: false,
    });
    expect(namedStatementsSetting(`${base}?host=/run/pg&named_statements=false`)).toEqual({
      url: `${base}?host=/run/pg`,
      named: false,
    });
    expect(namedStatementsSetting(`${base}?a=1&named_statements=true&b=2`)).toEqual({
      url: `${base}?a=1&b=2`,
      named: true,
    });
  });

  it('reads only the query parameters, with their %-escapes decoded', () => {
    // A password may hold what looks like the parameter; only what follows the '?' is read.
    const withPassword = 'postgres://u:a&named_statements=off@h/db';
    expect(namedStatementsSetting(withPassword)).toEqual({ url: withPassword, named: true });
    expect(namedStatementsSetting('postgres://u@h/db?named%5Fstatements=of%66')).toEqual({
      url: 'postgres://u@h/db',
      named: false,
    });
    expect(() => namedStatementsSetting('postgres://u@h/db?named_statements=%E0%A4%A')).toThrow(
      DatabaseError,
    );
  });

  it('refuses a value that is neither on nor off', () => {
    expect(() => namedStatementsSetting('postgres://u@h/db?named_statements=maybe')).toThrow(DatabaseError);
    expect(() => namedStatementsSetting('postgres://u@h/db?named_statements=')).toThrow(
      "named_statements in the database URL must be on or off, not ''",
    );
  });
});

const metaByName = prepared((db, v: { name: string }) =>
  db.selectFrom('meta').selectAll().where('name', '=', v.name),
);

describe.runIf(process.env.AUTHSRV_TEST_POSTGRES_URL !== undefined)('named statements on PostgreSQL', () => {
  let tdb: TestDatabase;
  let store: Store;
  const open = async (suffix = '') => {
    store = await openDatabase(tdb.url + suffix);
    await migrate(store);
    await store.db.insertInto('meta').values({ name: 'n1', value: 'v1' }).execute();
  };
  beforeEach(async () => {
    tdb = await createTestDatabase('postgres');
  });
  afterEach(async () => {
    await store.close();
    await tdb.drop();
  });

  /** The statements PostgreSQL keeps for the connection the callback runs on. */
  const kept = async (db: Store['db']) =>
    (
      await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements`.execute(db)
    ).rows;

  it('prepares a kept query once per connection and nothing else', async () => {
    await open();
    await store.db.connection().execute(async (conn) => {
      for (let i = 0; i < 3; i++) {
        const { rows } = await metaByName.run(conn, { name: 'n1' });
        expect(rows).toEqual([{ name: 'n1', value: 'v1' }]);
      }
      await conn.selectFrom('meta').selectAll().where('name', '=', 'n1').execute();
      const statements = await kept(conn);
      expect(statements).toHaveLength(1);
      expect(statements[0]!.name).toMatch(/^authsrv_[0-9a-f]{32}_0$/);
      expect(statements[0]!.statement).toBe('select * from "meta" where "name" = $1');
    });
  });

  it('prepares nothing with named_statements=off', async () => {
    await open('?named_statements=off');
    await store.db.connection().execute(async (conn) => {
      expect((await metaByName.run(conn, { name: 'n1' })).rows).toEqual([{ name: 'n1', value: 'v1' }]);
      expect(await kept(conn)).toEqual([]);
    });
  });

  it('prepares a statement anew when a schema change made it stale', async () => {
    await open();
    await store.db.connection().execute(async (conn) => {
      await metaByName.run(conn, { name: 'n1' });
      // Another node's migration adds a column: `select *` now has another result type.
      await sql`alter table meta add column extra text default 'x'`.execute(store.db);
      const { rows } = await metaByName.run(conn, { name: 'n1' });
      expect(rows).toEqual([{ name: 'n1', value: 'v1', extra: 'x' }]);
      // The stale statement was deallocated; the new one is kept under the next generation.
      expect((await kept(conn)).map((s) => s.name.slice(-2))).toEqual(['_1']);
    });
  });

  it('fails a transaction that meets a stale statement once, with the real error', async () => {
    await open();
    await store.db.connection().execute(async (conn) => {
      await metaByName.run(conn, { name: 'n1' });
      await sql`alter table meta add column extra text default 'x'`.execute(store.db);
      const inTransaction = conn.transaction().execute((trx) => metaByName.run(trx, { name: 'n1' }));
      await expect(inTransaction).rejects.toMatchObject({ code: '0A000' });
      // The next use on that connection prepares the statement anew.
      expect((await metaByName.run(conn, { name: 'n1' })).rows).toEqual([
        { name: 'n1', value: 'v1', extra: 'x' },
      ]);
    });
  });
});
