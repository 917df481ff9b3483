import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../../src/core/context.ts';
import { health, isReady } from '../../../src/core/system/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('health on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  /** The runtime with a locked key and/or a database that does not answer; counts the questions asked. */
  function degraded(o: { locked?: boolean; databaseDown?: boolean }) {
    const asked = { database: 0 };
    const db = o.databaseDown
      ? {
          getExecutor() {
            asked.database++;
            throw new Error('connection refused');
          },
        }
      : t.rt.store.db;
    const rt = {
      ...t.rt,
      hsm: { isReady: () => !o.locked },
      store: { ...t.rt.store, db },
    } as unknown as Runtime;
    return { rt, asked };
  }

  it('is ready with an unlocked key and a database that answers', async () => {
    expect(await isReady(t.rt)).toBe(true);
    expect(await health(t.rt)).toEqual({ ready: true, database: true, hsm: true });
  });

  it('is not ready while the database does not answer, and says so', async () => {
    const { rt } = degraded({ databaseDown: true });
    expect(await isReady(rt)).toBe(false);
    expect(await health(rt)).toEqual({ ready: false, database: false, hsm: true });
  });

  it('is not ready while the key is locked; readiness alone does not ask the database then', async () => {
    const { rt, asked } = degraded({ locked: true, databaseDown: true });
    expect(await isReady(rt)).toBe(false);
    expect(asked.database).toBe(0);
    expect(await health(rt)).toEqual({ ready: false, database: false, hsm: false });
    expect(asked.database).toBe(1);
  });
});
