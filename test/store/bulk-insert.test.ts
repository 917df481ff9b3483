// Multi-row INSERTs cut to the dialect's limit of bound parameters: more rows than one statement may
// carry are all written, in order, on every dialect.
import { afterEach, describe, expect, it } from 'vitest';
import { chunked, insertRows, MAX_PARAMETERS, rowsPerStatement } from '../../src/store/bulk-insert.ts';
import { testDialects } from '../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../helpers/runtime.ts';

describe('rowsPerStatement and chunked', () => {
  it('fit the parameter limits of the dialects', () => {
    expect(rowsPerStatement('sqlite', 2)).toBe(16_383);
    expect(rowsPerStatement('postgres', 15)).toBe(4369);
    expect(rowsPerStatement('mysql', 4)).toBe(16_383);
    expect(rowsPerStatement('sqlite', 100_000)).toBe(1);
    for (const d of ['sqlite', 'postgres', 'mysql'] as const) {
      expect(rowsPerStatement(d, 7) * 7).toBeLessThanOrEqual(MAX_PARAMETERS[d]);
    }
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 2)).toEqual([]);
  });
});

describe.each(testDialects())('insertRows on %s', (dialect) => {
  let t: TestRuntime | undefined;
  afterEach(async () => t?.close());

  it('writes more rows than one statement may carry', async () => {
    t = await openTestRuntime(dialect);
    // Two columns: more than two statements' worth on SQLite, more than one on the others.
    const n = 2 * rowsPerStatement('sqlite', 2) + 5;
    expect(n).toBeGreaterThan(rowsPerStatement(dialect, 2));
    const rows = Array.from({ length: n }, (_, i) => ({ token_id: i + 1, realm_id: (i % 3) + 1 }));
    await t.rt.store.db.transaction().execute((trx) => insertRows(trx, dialect, 'tokenrealm', rows));
    const stored = await t.rt.store.db.selectFrom('tokenrealm').selectAll().orderBy('token_id').execute();
    expect(stored).toEqual(rows);
    await insertRows(t.rt.store.db, dialect, 'tokenrealm', []);
  });
});
