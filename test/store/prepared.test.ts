// Prepared queries (src/store/prepared.ts): built and compiled once per database and shape, run with
// new values, on every dialect: the same answers as the query built each time, lists of any length,
// transactions, and plugins that still see every statement.
import type { KyselyPlugin, QueryId } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Store } from '../../src/store/database.ts';
import { prepared } from '../../src/store/prepared.ts';
import { createTestDatabase, type TestDatabase, testDialects } from '../helpers/dialects.ts';

describe.each(testDialects())('prepared queries on %s', (dialect) => {
  let tdb: TestDatabase;
  let store: Store;
  beforeEach(async () => {
    tdb = await createTestDatabase(dialect);
    store = await openDatabase(tdb.url);
    await migrate(store);
    await store.db
      .insertInto('meta')
      .values(
        ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((name, i) => ({ name, value: String(i) })),
      )
      .execute();
  });
  afterEach(async () => {
    await store.close();
    await tdb.drop();
  });

  it('compiles once per shape and answers as the query built each time', async () => {
    let builds = 0;
    const byNames = prepared((db, v: { names: readonly string[]; above: string }) => {
      builds++;
      return db
        .selectFrom('meta')
        .select(['name', 'value'])
        .where('name', 'in', v.names)
        .where('value', '>', v.above)
        .orderBy('name');
    });
    const direct = (names: string[], above: string) =>
      store.db
        .selectFrom('meta')
        .select(['name', 'value'])
        .where('name', 'in', names)
        .where('value', '>', above)
        .orderBy('name')
        .execute();
    for (const [names, above] of [
      [['a', 'c', 'e'], '0'],
      [['b', 'd', 'f'], '3'],
      [['j'], ''],
      [['i'], '9'],
      [['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i'], '2'],
      [['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'], '5'],
    ] as [string[], string][]) {
      const { rows } = await byNames.run(store.db, { names, above });
      expect(rows, `${names} > ${above}`).toEqual(await direct(names, above));
    }
    // Lengths 3 and 1 are kept (built once each); lists longer than 8 are built on every run.
    expect(builds).toBe(4);
    await byNames.run(store.db, { names: ['x', 'y', 'z'], above: '' });
    await byNames.run(store.db, { names: ['x'], above: '' });
    expect(builds).toBe(4);
  });

  it('builds one query per shape string', async () => {
    const q = prepared((db, v: { name: string }, shape) =>
      shape === 'count'
        ? db
            .selectFrom('meta')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('name', '=', v.name)
        : db.selectFrom('meta').select('value as n').where('name', '=', v.name),
    );
    expect((await q.run(store.db, { name: 'c' }, 'count')).rows.map((r) => Number(r.n))).toEqual([1]);
    expect((await q.run(store.db, { name: 'c' }, 'value')).rows.map((r) => Number(r.n))).toEqual([2]);
    expect((await q.run(store.db, { name: 'zz' }, 'count')).rows.map((r) => Number(r.n))).toEqual([0]);
  });

  it('writes with new values each run, and counts the rows it changed', async () => {
    const setValue = prepared((db, v: { name: string; value: string }) =>
      db.updateTable('meta').set({ value: v.value }).where('name', '=', v.name),
    );
    const add = prepared((db, v: { name: string; value: string }) => db.insertInto('meta').values(v));
    expect(Number((await setValue.run(store.db, { name: 'a', value: 'A' })).numAffectedRows)).toBe(1);
    expect(Number((await setValue.run(store.db, { name: 'b', value: 'B' })).numAffectedRows)).toBe(1);
    expect(Number((await setValue.run(store.db, { name: 'nope', value: 'N' })).numAffectedRows)).toBe(0);
    await add.run(store.db, { name: 'k', value: 'K' });
    await add.run(store.db, { name: 'l', value: 'L' });
    const rows = await store.db
      .selectFrom('meta')
      .select(['name', 'value'])
      .where('name', 'in', ['a', 'b', 'k', 'l', 'nope'])
      .orderBy('name')
      .execute();
    expect(rows).toEqual([
      { name: 'a', value: 'A' },
      { name: 'b', value: 'B' },
      { name: 'k', value: 'K' },
      { name: 'l', value: 'L' },
    ]);
  });

  it('runs inside a transaction, whose rollback takes its writes back', async () => {
    const setValue = prepared((db, v: { name: string; value: string }) =>
      db.updateTable('meta').set({ value: v.value }).where('name', '=', v.name),
    );
    const readValue = prepared((db, v: { name: string }) =>
      db.selectFrom('meta').select('value').where('name', '=', v.name),
    );
    await expect(
      store.db.transaction().execute(async (trx) => {
        await setValue.run(trx, { name: 'a', value: 'changed' });
        expect((await readValue.run(trx, { name: 'a' })).rows).toEqual([{ value: 'changed' }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await readValue.run(store.db, { name: 'a' })).rows).toEqual([{ value: '0' }]);
  });

  it('shows every run to the plugins, with one query id from transformQuery to transformResult', async () => {
    const seen: { sql: string; id: QueryId }[] = [];
    const results: QueryId[] = [];
    const executor = store.db.getExecutor();
    const plugin: KyselyPlugin = {
      transformQuery(args) {
        seen.push({ sql: executor.compileQuery(args.node, args.queryId).sql, id: args.queryId });
        return args.node;
      },
      async transformResult(args) {
        results.push(args.queryId);
        return args.result;
      },
    };
    const readValue = prepared((db, v: { name: string }) =>
      db.selectFrom('meta').select('value').where('name', '=', v.name),
    );
    await readValue.run(store.db, { name: 'a' });
    const watched = store.db.withPlugin(plugin);
    expect((await readValue.run(watched, { name: 'b' })).rows).toEqual([{ value: '1' }]);
    expect((await readValue.run(watched, { name: 'c' })).rows).toEqual([{ value: '2' }]);
    expect(seen).toHaveLength(2);
    expect(seen[0]?.sql).toMatch(/^select .value. from .meta. where .name. = /);
    expect(results).toEqual(seen.map((s) => s.id));
    expect(seen[0]?.id).not.toBe(seen[1]?.id);
  });

  it('compiles anew when a plugin changes the query', async () => {
    const readValue = prepared((db, v: { name: string }) =>
      db.selectFrom('meta').select('value').where('name', '=', v.name),
    );
    // A plugin that turns the query into one for another row: its query is what runs.
    const otherRow: KyselyPlugin = {
      transformQuery: (args) => {
        const node = args.node as { kind: string };
        return node.kind === 'SelectQueryNode'
          ? store.db.selectFrom('meta').select('value').where('name', '=', 'j').toOperationNode()
          : args.node;
      },
      transformResult: async (args) => args.result,
    };
    expect((await readValue.run(store.db, { name: 'a' })).rows).toEqual([{ value: '0' }]);
    expect((await readValue.run(store.db.withPlugin(otherRow), { name: 'a' })).rows).toEqual([
      { value: '9' },
    ]);
  });
});
