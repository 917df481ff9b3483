// The compiled-statement cache of the SQLite store: one compilation per SQL text, the least
// recently used text evicted beyond the size, and statements that survive schema changes.
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { statementCache } from '../../src/store/sqlite.ts';

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
