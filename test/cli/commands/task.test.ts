// `authsrv task list|show|set|enable|disable|delete|run|modules`: the services and messages of
// /periodictask/, --json, `task run` running a task now against the configured database (no
// server), exit 1 and one error line when a run fails or the input is bad, an audit row per change.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv task on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));
  afterEach(async () => {
    for (const t of ['periodictask_option', 'periodictask_lastrun', 'periodictask'] as const)
      await ctx.store.db.deleteFrom(t).execute();
  });

  const json = async (args: string[]) => {
    const r = await c.run([...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  const expiredChallenge = () =>
    ctx.store.db
      .insertInto('challenge')
      .values({
        transaction_id: 'tx-old',
        serial: 'OLD',
        challenge: '',
        data: '',
        session: '',
        timestamp: '2020-01-01T00:00:00.000Z',
        expiration: '2020-01-01T00:05:00.000Z',
        received_count: 0,
        otp_valid: 0,
      })
      .execute();

  it('sets, replaces, shows, lists, enables, disables, runs and deletes a task', async () => {
    const set = await c.run([
      'task',
      'set',
      'cleanup',
      '--interval',
      '*/5 * * * *',
      '--nodes',
      ctx.node,
      '--module',
      'ChallengeCleanup',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toMatch(/^Periodic task 'cleanup' saved \(id \d+\)\.\n$/);
    // The same name again replaces the task completely.
    const saved = await json([
      'task',
      'set',
      'cleanup',
      '--interval',
      '0 * * * *',
      '--nodes',
      `${ctx.node},b`,
      '--module',
      'ChallengeCleanup',
      '--ordering',
      '3',
      '--no-retry',
      '--inactive',
    ]);
    expect(saved).toMatchObject({
      name: 'cleanup',
      interval: '0 * * * *',
      nodes: [ctx.node, 'b'],
      ordering: 3,
      active: false,
      retry_if_failed: false,
      options: {},
      last_runs: {},
    });
    expect((await json(['task', 'list'])).map((t: { id: number }) => t.id)).toEqual([saved.id]);
    expect(await json(['task', 'enable', 'cleanup'])).toEqual({ enabled: saved.id });
    expect((await json(['task', 'show', String(saved.id)])).active).toBe(true);
    expect(await json(['task', 'disable', 'cleanup'])).toEqual({ disabled: saved.id });
    await expiredChallenge();
    // run: whatever its schedule and state, against the database, without a server.
    const ran = await json(['task', 'run', 'cleanup']);
    expect(ran).toEqual({ task: 'cleanup', node: expect.any(String), ok: true, summary: { deleted: 1 } });
    expect(await ctx.store.db.selectFrom('challenge').selectAll().execute()).toEqual([]);
    const shown = await c.run(['task', 'show', 'cleanup']);
    expect(shown.stdout).toMatch(
      new RegExp(`last_runs: +${ran.node} \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{6}\\+0000`),
    );
    const table = await c.run(['task', 'list']);
    expect(table.stdout).toMatch(/cleanup.*ChallengeCleanup/);
    expect(await json(['task', 'delete', 'cleanup'])).toEqual({ deleted: saved.id });
    expect(await json(['task', 'list'])).toEqual([]);
    const rows = await ctx.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .where('action', 'like', 'CLI task%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.success, r.info])).toEqual([
      ['CLI task set', 1, 'cleanup'],
      ['CLI task set', 1, 'cleanup'],
      ['CLI task enable', 1, 'cleanup'],
      ['CLI task disable', 1, 'cleanup'],
      ['CLI task run', 1, 'cleanup'],
      ['CLI task delete', 1, 'cleanup'],
    ]);
  });

  it('lists the modules with their options', async () => {
    const modules = await json(['task', 'modules']);
    expect(Object.keys(modules)).toEqual([
      'EventCounter',
      'SimpleStats',
      'ChallengeCleanup',
      'AuditRotation',
      'InactiveTokenSweep',
      'CRLRefresh',
    ]);
    expect(modules.AuditRotation.max_rows).toEqual({
      type: 'int',
      required: false,
      description: expect.any(String),
    });
  });

  it('refuses bad input and failed runs with one error line and exit 1', async () => {
    const base = ['task', 'set', 'x', '--nodes', ctx.node, '--module', 'AuditRotation'];
    expect(expectOneLineError(await c.run([...base, '--interval', 'soon', 'max_rows=5']))).toMatch(
      /Invalid interval 'soon'/,
    );
    expect(expectOneLineError(await c.run([...base, '--interval', '* * * * *']))).toMatch(
      /needs max_age or max_rows/,
    );
    expect(expectOneLineError(await c.run([...base, '--interval', '* * * * *', 'max_rows']))).toMatch(
      /KEY=VALUE/,
    );
    expect(await json(['task', 'list'])).toEqual([]);
    expect(expectOneLineError(await c.run(['task', 'run', 'nothere']))).toBe(
      'authsrv: The periodic task nothere does not exist.',
    );
    // A stored definition whose options no longer pass its module's check: the run fails.
    await json([...base, '--interval', '* * * * *', 'max_rows=5']);
    await ctx.store.db.updateTable('periodictask_option').set({ value: 'many' }).execute();
    expect(expectOneLineError(await c.run(['task', 'run', 'x']))).toMatch(
      /The periodic task x failed: Option 'max_rows'/,
    );
    expect(await json(['task', 'delete', 'x'])).toEqual({ deleted: expect.any(Number) });
  });
});
