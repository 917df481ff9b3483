// runTransaction: the databases' deadlock and serialisation aborts are retried, anything else is
// not; and no code of src/ opens a transaction another way (which would lose the retry). A
// rehearsal always rolls back, and a store that is a transaction already is joined, not nested.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Transaction } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  type Database,
  isTransientConflict,
  rehearse,
  runTransaction,
  type Store,
} from '../../src/store/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime } from '../helpers/runtime.ts';

/** A store whose transactions fail with the given errors, in turn, and then run the work. */
function failingStore(errors: unknown[]): { store: Pick<Store, 'db'>; attempts: () => number } {
  let attempts = 0;
  const db = {
    transaction: () => ({
      execute: async (work: (trx: unknown) => Promise<unknown>) => {
        attempts++;
        const error = errors.shift();
        if (error) throw error;
        return work('trx');
      },
    }),
  };
  return { store: { db } as unknown as Pick<Store, 'db'>, attempts: () => attempts };
}

const deadlock = Object.assign(new Error('Deadlock found when trying to get lock'), {
  errno: 1213,
  code: 'ER_LOCK_DEADLOCK',
});
const pgDeadlock = Object.assign(new Error('deadlock detected'), { code: '40P01' });
const pgSerialization = Object.assign(new Error('could not serialize access'), { code: '40001' });

describe('isTransientConflict', () => {
  it('knows the deadlock and serialisation errors of MariaDB and PostgreSQL', () => {
    for (const e of [deadlock, pgDeadlock, pgSerialization]) expect(isTransientConflict(e)).toBe(true);
  });
  it('refuses everything else', () => {
    const duplicate = Object.assign(new Error('Duplicate entry'), { errno: 1062, code: 'ER_DUP_ENTRY' });
    for (const e of [duplicate, new Error('x'), null, undefined, 'ER_LOCK_DEADLOCK', { code: '23505' }])
      expect(isTransientConflict(e)).toBe(false);
  });
});

describe('runTransaction', () => {
  it('runs the work again after a deadlock, and returns its value', async () => {
    const f = failingStore([deadlock, pgSerialization]);
    await expect(runTransaction(f.store, async (trx) => `done in ${String(trx)}`)).resolves.toBe(
      'done in trx',
    );
    expect(f.attempts()).toBe(3);
  });
  it('gives up after five attempts with the database error', async () => {
    const f = failingStore(Array.from({ length: 6 }, () => pgDeadlock));
    await expect(runTransaction(f.store, async () => 1)).rejects.toBe(pgDeadlock);
    expect(f.attempts()).toBe(5);
  });
  it('does not retry other errors', async () => {
    const other = new Error('constraint');
    const f = failingStore([other]);
    await expect(runTransaction(f.store, async () => 1)).rejects.toBe(other);
    expect(f.attempts()).toBe(1);
  });
});

describe('transactions in src/', () => {
  it('are all opened through runTransaction', () => {
    const root = resolve(import.meta.dirname, '../..');
    const files = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
        e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
      );
    const offenders = files(join(root, 'src'))
      .filter((f) => !f.endsWith(join('store', 'transaction.ts')))
      .filter((f) => /\.transaction\(\)/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(offenders).toEqual([]);
  });
});

describe.each(testDialects())('rehearse and an outer transaction (%s)', (dialect) => {
  it('rolls a rehearsal back, returning its result or its error; runTransaction joins an outer one', async () => {
    const t = await openTestRuntime(dialect);
    try {
      const store = t.rt.store;
      const names = async () =>
        (await store.db.selectFrom('serviceid').select('name').execute()).map((r) => r.name);
      const insert = (trx: Transaction<Database>, name: string) =>
        trx.insertInto('serviceid').values({ name, description: '' }).execute();
      const rehearsed = await rehearse(store, async (trx) => {
        await insert(trx, 'rehearsed');
        return 42;
      });
      expect(rehearsed).toBe(42);
      await expect(rehearse(store, () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
      expect(await names()).toEqual([]);

      await expect(
        store.db.transaction().execute(async (trx) => {
          await runTransaction({ db: trx }, (inner) => insert(inner, 'joined'));
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
      expect(await names()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
