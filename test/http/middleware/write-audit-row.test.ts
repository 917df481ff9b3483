import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAuditEntry } from '../../../src/core/audit/index.ts';
import type { Runtime } from '../../../src/core/context.ts';
import { InternalError, ParameterError } from '../../../src/errors.ts';
import { writeAuditRow } from '../../../src/http/middleware/index.ts';
import type { RequestState } from '../../../src/http/state.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { recordingLog, runSteps, startedState } from '../../helpers/koa-steps.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('writeAuditRow on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  /** Runs the step around a stand-in for the later steps that leaves `outcome`. */
  async function audited(action: string, outcome: Partial<RequestState>, rt: Runtime = t.rt) {
    const audit = newAuditEntry(action, new Date('2026-03-01T11:59:59.000Z'), '192.0.2.1');
    const later: Koa.Middleware = async (koa) => {
      Object.assign(koa.state, outcome);
      koa.status = 204;
    };
    const r = await runSteps([writeAuditRow(rt), later], { state: startedState({ audit }) });
    const row = await t.rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('action', '=', action)
      .executeTakeFirst();
    return { ...r, row };
  }

  it('writes a successful reply as success, with the verdict of an id-2 answer', async () => {
    const { row } = await audited('POST /validate/check', {
      reply: { rid: 2, value: false, detail: { multi_challenge: [{ serial: 'S1' }] } },
    });
    expect(row).toMatchObject({ success: 1, authentication: 'CHALLENGE', client: '192.0.2.1' });
    const { row: plain } = await audited('GET /token/', { reply: { value: { tokens: [] } } });
    expect(plain).toMatchObject({ success: 1, authentication: '' });
  });

  it("writes a failure with its message, an unexpected one as 'internal error'", async () => {
    const { row } = await audited('POST /token/init', { failure: new ParameterError('Missing parameter') });
    expect(row).toMatchObject({ success: 0, info: 'Missing parameter' });
    const { row: hidden } = await audited('GET /system/', {
      failure: new InternalError(new Error('secret internals')),
    });
    expect(hidden).toMatchObject({ success: 0, info: 'internal error' });
  });

  it('writes no row for a request without an audit entry (health probes, unknown paths)', async () => {
    const r = await runSteps([writeAuditRow(t.rt)], { state: startedState() });
    expect(r.status).toBe(404);
  });

  it('logs a row that cannot be written; the answer stands', async () => {
    const { lines, log } = recordingLog();
    const broken = {
      ...t.rt,
      log,
      clock: () => {
        throw new Error('clock stopped');
      },
    } as unknown as Runtime;
    const { status, row } = await audited('GET /broken', { reply: { value: true } }, broken);
    expect(status).toBe(204);
    expect(row).toBeUndefined();
    expect(lines.map((l) => [l.level, l.message])).toEqual([['error', 'audit row could not be written']]);
  });
});
