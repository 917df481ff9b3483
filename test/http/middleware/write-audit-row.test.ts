import type Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, newAuditEntry } from '../../../src/core/audit/index.ts';
import type { Runtime } from '../../../src/core/context.ts';
import { InternalError, ParameterError } from '../../../src/errors.ts';
import { type Answer, writeAuditRow } from '../../../src/http/middleware/index.ts';
import { type RequestState, requestState } from '../../../src/http/state.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { recordingLog, runSteps, startedState } from '../../helpers/koa-steps.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

/** A stand-in for the answer step: answers the failure it finds as a 599 with its code, else leaves the status. */
const answer: Answer = async (koa) => {
  const { failure } = requestState(koa);
  if (failure) {
    koa.status = 599;
    koa.body = `failure ${failure.code}`;
  }
};

describe.each(testDialects())('writeAuditRow on %s', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect);
  });
  afterAll(async () => t?.close());

  /** Runs the step around a stand-in for the later steps that leaves `outcome` (and the handler's `columns`). */
  async function audited(
    action: string,
    outcome: Partial<RequestState>,
    rt: Runtime = t.rt,
    later: Koa.Middleware = async (koa) => {
      Object.assign(koa.state, outcome);
      koa.status = 204;
    },
    columns: Partial<AuditEntry> = {},
  ) {
    const audit = Object.assign(
      newAuditEntry(action, new Date('2026-03-01T11:59:59.000Z'), '192.0.2.1'),
      columns,
    );
    const r = await runSteps([writeAuditRow(rt, answer), later], { state: startedState({ audit }) });
    const row = await t.rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('action', '=', action)
      .executeTakeFirst();
    return { ...r, row };
  }

  it('writes a successful reply as success', async () => {
    const { row: plain } = await audited('GET /token/', { reply: { value: { tokens: [] } } });
    expect(plain).toMatchObject({ success: 1, authentication: '' });
  });

  // issue 16 item 10: an authentication that answered may still have failed; its row keeps the
  // success core gave it with its verdict (checkAuditColumns, loginColumns, pollAuditColumns).
  it('keeps the success of an authentication, which core recorded with its verdict', async () => {
    const challenged = { rid: 2 as const, value: false, detail: { multi_challenge: [{ serial: 'S1' }] } };
    const { row } = await audited('POST /validate/check', { reply: challenged }, t.rt, undefined, {
      authentication: 'CHALLENGE',
      success: false,
    });
    expect(row).toMatchObject({ success: 0, authentication: 'CHALLENGE', client: '192.0.2.1' });
    const { row: rejected } = await audited(
      'GET /validate/radiuscheck',
      { reply: { empty: true } },
      t.rt,
      undefined,
      {
        authentication: 'REJECT',
        success: false,
      },
    );
    expect(rejected).toMatchObject({ success: 0, authentication: 'REJECT' });
    const { row: accepted } = await audited(
      'POST /auth',
      { reply: { rid: 2, value: { auth: true } } },
      t.rt,
      undefined,
      {
        authentication: 'ACCEPT',
        success: true,
      },
    );
    expect(accepted).toMatchObject({ success: 1, authentication: 'ACCEPT' });
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
    const r = await runSteps([writeAuditRow(t.rt, answer)], { state: startedState() });
    expect(r.status).toBe(404);
  });

  it('answers with an error when the row cannot be written, and logs the entry it would have held', async () => {
    const { lines, log } = recordingLog();
    const broken = {
      ...t.rt,
      log,
      clock: () => {
        throw new Error('clock stopped');
      },
    } as unknown as Runtime;
    const { status, text, row, state } = await audited('POST /broken', { reply: { value: true } }, broken);
    expect([status, text]).toEqual([599, 'failure -500']);
    expect(state.failure).toBeInstanceOf(InternalError);
    expect(row).toBeUndefined();
    expect(lines.map((l) => [l.level, l.message])).toEqual([
      ['error', 'audit row could not be written: the request is answered with an error'],
    ]);
    expect(lines[0]!.fields.audit).toMatchObject({ action: 'POST /broken', success: true });
  });

  it('answers with an error when preparing the row fails', async () => {
    const { lines, log } = recordingLog();
    // A failure whose message cannot be read for the row.
    const weird = {
      code: 905,
      get expose(): never {
        throw new Error('no message');
      },
    } as unknown as RequestState['failure'];
    const { status } = await audited('POST /weird', { failure: weird }, { ...t.rt, log } as Runtime);
    expect(status).toBe(599);
    expect(lines.map((l) => l.message)).toEqual([
      'audit row could not be written: the request is answered with an error',
    ]);
  });

  it('records success and the failed answer when the answer failed after the handler finished', async () => {
    const { row } = await audited('POST /token/disable', {
      reply: { value: 1 },
      failure: new InternalError(new Error('signer gone')),
    });
    expect(row).toMatchObject({ success: 1, info: 'the answer failed: internal error' });
    const { row: withInfo } = await audited(
      'POST /token/load/<filename>',
      {
        reply: { value: 1 },
        failure: new InternalError(new Error('signer gone')),
      },
      t.rt,
      async (koa) => {
        Object.assign(koa.state, { reply: { value: 1 }, failure: new InternalError(undefined) });
        requestState(koa).audit!.info = 'oathcsv, t.csv';
        koa.status = 204;
      },
    );
    expect(withInfo).toMatchObject({ success: 1, info: 'oathcsv, t.csv; the answer failed: internal error' });
  });

  it('writes the row, and answers, when a failure escapes the later steps', async () => {
    const { lines, log } = recordingLog();
    const throwing: Koa.Middleware = async () => {
      throw new TypeError('escaped');
    };
    const r = await audited('POST /escaped', {}, { ...t.rt, log } as Runtime, throwing);
    expect(r.status).toBe(599);
    expect(r.row).toMatchObject({ success: 0, info: 'internal error' });
    expect(lines.map((l) => l.message)).toEqual(['unexpected error after the answer']);
  });

  it('writes the row of a request whose client went away before the answer', async () => {
    const client = new AbortController();
    let done!: () => void;
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    const outer: Koa.Middleware = async (_koa, next) => {
      await next();
      done();
    };
    const handler: Koa.Middleware = async (koa) => {
      const gone = new Promise((resolve) => koa.req.socket.once('close', resolve));
      client.abort();
      await gone;
      Object.assign(koa.state, { reply: { value: true } });
      koa.status = 204;
    };
    const audit = newAuditEntry('POST /slow', new Date('2026-03-01T11:59:59.000Z'), '192.0.2.1');
    const steps = [outer, writeAuditRow(t.rt, answer), handler];
    const r = await runSteps(steps, { state: startedState({ audit }), signal: client.signal }).catch(
      (e) => e,
    );
    expect(r).toBeInstanceOf(Error);
    // The request ran on after its client left, and its row is written all the same.
    await finished;
    const row = await t.rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('action', '=', 'POST /slow')
      .executeTakeFirst();
    expect(row).toMatchObject({ success: 1 });
  });
});
