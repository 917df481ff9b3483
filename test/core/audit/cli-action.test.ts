// The audit row of a CLI command (src/core/audit/cli-action.ts): one way for every state-changing
// command (`audited` in src/cli/common.ts) and for `authsrv db upgrade`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditedCliAction, recordCliAction } from '../../../src/core/audit/index.ts';
import { localOperator } from '../../../src/core/context.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('CLI action audit rows on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
  });
  afterEach(async () => t?.close());

  const rows = () => t.rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
  const operator = localOperator().username;

  it('writes the row of a command that succeeded, with the columns of its result', async () => {
    const serial = await auditedCliAction(
      t.ctx,
      { command: 'token init', detail: 'hotp', fields: { user: 'alice', realm: 'r1' } },
      async () => 'OATH0001',
      (s) => ({ serial: s, token_type: 'hotp' }),
    );
    expect(serial).toBe('OATH0001');
    expect(await rows()).toMatchObject([
      {
        action: 'CLI token init',
        success: 1,
        administrator: operator,
        user_agent: 'authsrv-cli',
        info: 'hotp',
        user: 'alice',
        realm: 'r1',
        serial: 'OATH0001',
        token_type: 'hotp',
      },
    ]);
  });

  it("writes the row of a command that failed, with the failure's message, and passes the error on", async () => {
    const failing = auditedCliAction(t.ctx, { command: 'token delete', detail: 'X1' }, async () => {
      throw new Error('no such token');
    });
    await expect(failing).rejects.toThrow('no such token');
    expect(await rows()).toMatchObject([
      { action: 'CLI token delete', success: 0, info: 'X1 no such token' },
    ]);
  });

  it('records a command that is already done, from the time it started', async () => {
    const startedAt = new Date('2026-03-01T11:59:00.000Z');
    await recordCliAction(t.ctx, { command: 'db upgrade', detail: '0001_base, 0002_user_stores' }, startedAt);
    expect(await rows()).toMatchObject([
      {
        action: 'CLI db upgrade',
        success: 1,
        administrator: operator,
        user_agent: 'authsrv-cli',
        info: '0001_base, 0002_user_stores',
        startdate: startedAt.toISOString(),
        date: '2026-03-01T12:00:00.000Z',
        duration: 60,
      },
    ]);
  });
});
