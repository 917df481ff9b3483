// runTransaction: the databases' deadlock and serialisation aborts are retried, anything else is
// not; and no code of src/ opens a transaction another way (which would lose the retry).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isTransientConflict, runTransaction, type Store } from '../../src/store/index.ts';

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
