import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { actionValues, grantedRealms, isAllowed } from '../../../src/core/access/access.ts';
import { REUSE_MS } from '../../../src/core/change-counters.ts';
import {
  type Caller,
  type Context,
  localOperator,
  type Runtime,
  withCaller,
} from '../../../src/core/context.ts';
import { setPolicy } from '../../../src/core/policy/index.ts';
import { openRuntime } from '../../../src/core/runtime.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { readsOf, recordSql } from '../../helpers/sql-recorder.ts';

/** Counts the statements of a runtime's store that read the `meta` table (the change counters). */
function countMetaReads(rt: Runtime): () => number {
  const sql = recordSql(rt);
  return () => readsOf(sql.take(), 'meta');
}

const admin = (): Caller => ({
  role: 'admin',
  username: 'alice',
  realm: '',
  authtype: 'password',
  client: '',
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDialects())('the policies of one request on %s', (dialect) => {
  let a: TestRuntime;
  /** A second node on the same database. */
  let b: Runtime;

  beforeEach(async () => {
    a = await openTestRuntime(dialect);
    b = await openRuntime(a.rt.config, { logger: pino({ level: 'silent' }), clock: () => a.rt.clock() });
    // An active admin policy, so that every question reads the policies.
    await setPolicy(a.ctx, 'read', { scope: 'admin', action: 'tokenlist, auditlog' });
  });
  afterEach(async () => {
    await b?.store.close();
    await a?.close();
  });

  it('shares one read of the change counters among the questions of one caller', async () => {
    const reads = countMetaReads(a.rt);
    const caller = admin();
    // The questions of GET /audit/: the right of the route, then the service's on another context.
    expect(await isAllowed(withCaller(a.rt, caller), 'auditlog')).toBe(true);
    const ctx = withCaller(a.rt, caller);
    expect(await grantedRealms(ctx, 'auditlog')).toBeUndefined();
    expect([...(await actionValues(ctx, 'auditlog_age')).keys()]).toEqual([]);
    expect([...(await actionValues(ctx, 'hide_audit_columns')).keys()]).toEqual([]);
    expect(reads()).toBe(1);
    // The next request (another caller object) reads the counters afresh.
    expect(await isAllowed(withCaller(a.rt, admin()), 'auditlog')).toBe(true);
    expect(reads()).toBe(1);
  });

  it('shows a caller a policy change made on this node at once', async () => {
    const ctx: Context = withCaller(a.rt, admin());
    expect(await isAllowed(ctx, 'tokenlist')).toBe(true);
    expect(await isAllowed(ctx, 'delete')).toBe(false);
    await setPolicy(withCaller(a.rt, localOperator()), 'delete', { scope: 'admin', action: 'delete' });
    expect(await isAllowed(ctx, 'delete')).toBe(true);
  });

  it('shows a change made on another node to the next caller at once, to a kept one within REUSE_MS', async () => {
    const kept: Context = withCaller(a.rt, admin());
    expect(await isAllowed(kept, 'delete')).toBe(false);
    await setPolicy(withCaller(b, localOperator()), 'delete', { scope: 'admin', action: 'delete' });
    expect(await isAllowed(withCaller(a.rt, admin()), 'delete')).toBe(true);
    await sleep(REUSE_MS + 50);
    expect(await isAllowed(kept, 'delete')).toBe(true);
  });
});
