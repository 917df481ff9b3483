// The scheduler of periodic tasks with the runtime's clock moved by the test: a task runs when its
// cron time has come and then not again before the next one; only on the nodes it names and only
// while active; a failed run is due again at the next tick with retry_if_failed and not without;
// a run marked as under way on this node is not started again; and two runtimes (processes) on
// one database run each (task, node) once, whether they share a node name or not.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.ts';
import type { Runtime } from '../../../src/core/context.ts';
import {
  getPeriodicTask,
  runPeriodicTaskNow,
  STALE_RUN_MS,
  setPeriodicTask,
  setPeriodicTaskActive,
  TaskScheduler,
} from '../../../src/core/periodictask/index.ts';
import { openRuntime } from '../../../src/core/runtime.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (minutes: number, seconds = 0) => new Date(T0.getTime() + minutes * 60_000 + seconds * 1000);

describe.each(testDialects())('the periodic task scheduler on %s', (dialect) => {
  let t: TestRuntime;
  let scheduler: TaskScheduler;

  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0 });
    scheduler = new TaskScheduler(t.rt);
  });
  afterEach(async () => t.close());

  const define = (extra: Record<string, string> = {}) =>
    setPeriodicTask(t.ctx, {
      name: 'cleanup',
      interval: '*/5 * * * *',
      nodes: t.rt.node,
      taskmodule: 'ChallengeCleanup',
      ordering: '0',
      ...extra,
    });
  /** One tick at `when`, waiting for the runs it started; the names of the tasks it started. */
  const tickAt = async (s: TaskScheduler, setNow: (d: Date) => void, when: Date) => {
    setNow(when);
    const started = await s.tick();
    await s.idle();
    return started;
  };
  const tick = (when: Date) => tickAt(scheduler, t.setNow, when);
  const challenge = (serial: string, expiration: Date) =>
    t.rt.store.db
      .insertInto('challenge')
      .values({
        transaction_id: `tx-${serial}`,
        serial,
        challenge: '',
        data: '',
        session: '',
        timestamp: T0.toISOString(),
        expiration: expiration.toISOString(),
        received_count: 0,
        otp_valid: 0,
      })
      .execute();
  const challenges = async () =>
    (await t.rt.store.db.selectFrom('challenge').select('serial').orderBy('serial').execute()).map(
      (r) => r.serial,
    );
  const lastRun = async (name = 'cleanup') => (await getPeriodicTask(t.rt, name)).lastRuns[t.rt.node];

  it('runs a task when its cron time has come, once, and records the run for the node', async () => {
    await define();
    await challenge('OLD', at(3));
    await challenge('NEW', at(60));
    expect(await tick(at(4, 59))).toEqual([]);
    expect(await challenges()).toEqual(['NEW', 'OLD']);
    expect(await tick(at(5))).toEqual(['cleanup']);
    expect(await challenges()).toEqual(['NEW']); // the expired challenge is gone
    expect(await lastRun()).toBe(at(5).toISOString());
    expect(await tick(at(5, 10))).toEqual([]);
    expect(await tick(at(9, 59))).toEqual([]);
    // A server that was down for a while runs a missed task once, not once per missed time.
    expect(await tick(at(31))).toEqual(['cleanup']);
    expect(await tick(at(31, 10))).toEqual([]);
    expect(await lastRun()).toBe(at(31).toISOString());
  });

  it('runs only on the nodes a task names and only while it is active', async () => {
    await define({ nodes: 'elsewhere' });
    await define({ name: 'mine', ordering: '1' });
    expect(await tick(at(5))).toEqual(['mine']);
    await setPeriodicTaskActive(t.ctx, 'mine', false);
    expect(await tick(at(10))).toEqual([]);
    await setPeriodicTaskActive(t.ctx, 'mine', true);
    expect(await tick(at(10, 10))).toEqual(['mine']);
    expect((await getPeriodicTask(t.rt, 'cleanup')).lastRuns).toEqual({});
  });

  /** A task whose stored options no longer pass its module's check: every run of it fails. */
  const failing = async (retry: string) => {
    await define({
      name: 'rotate',
      taskmodule: 'AuditRotation',
      retry_if_failed: retry,
      options: '{"max_rows":"5"}',
    });
    await t.rt.store.db.updateTable('periodictask_option').set({ value: 'many' }).execute();
  };

  it('runs a failed task again at the next tick with retry_if_failed', async () => {
    await failing('true');
    expect(await tick(at(5))).toEqual(['rotate']);
    expect(await lastRun('rotate')).toBeUndefined(); // the failed run is not recorded
    expect(await tick(at(5, 10))).toEqual(['rotate']);
    await t.rt.store.db.updateTable('periodictask_option').set({ value: '5' }).execute();
    expect(await tick(at(5, 20))).toEqual(['rotate']);
    expect(await lastRun('rotate')).toBe(at(5, 20).toISOString());
    expect(await tick(at(5, 30))).toEqual([]);
  });

  it('waits for the next cron time after a failed run without retry_if_failed', async () => {
    await failing('false');
    expect(await tick(at(5))).toEqual(['rotate']);
    expect(await lastRun('rotate')).toBe(at(5).toISOString());
    expect(await tick(at(5, 10))).toEqual([]);
    expect(await tick(at(10))).toEqual(['rotate']);
  });

  it('does not start a task a process of this node is running, unless that run is long stale', async () => {
    await define();
    expect(await tick(at(5))).toEqual(['cleanup']);
    // Another process of this node claimed the run at 12:10 and is still at it.
    await t.rt.store.db
      .updateTable('periodictask_lastrun')
      .set({ timestamp: at(10).toISOString(), running_since: at(10).toISOString() })
      .execute();
    expect(await tick(at(15))).toEqual([]);
    await expect(runPeriodicTaskNow(t.ctx, 'cleanup')).rejects.toThrow(
      `The periodic task cleanup is running on node ${t.rt.node} already`,
    );
    // That process ended without finishing the run: after STALE_RUN_MS the task runs again.
    expect(await tick(new Date(at(10).getTime() + STALE_RUN_MS))).toEqual(['cleanup']);
  });

  it('authsrv task run: runs a task now whatever its schedule and writes an audit row', async () => {
    await define({ active: 'false' });
    await challenge('OLD', at(-1));
    const outcome = await runPeriodicTaskNow(t.ctx, 'cleanup');
    expect(outcome).toEqual({ task: 'cleanup', node: t.rt.node, ok: true, summary: { deleted: 1 } });
    expect(await lastRun()).toBe(T0.toISOString());
    await failing('true');
    await expect(runPeriodicTaskNow(t.ctx, 'rotate')).rejects.toThrow(
      /The periodic task rotate failed: .*max_rows/,
    );
    const rows = await t.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.success, r.info.split(':')[0]])).toEqual([
      ['CLI task run', 1, 'cleanup'],
      ['CLI task run', 0, 'rotate The periodic task rotate failed'],
    ]);
  });
});

// Two runtimes in one test process on one server database. (On SQLite two processes share the file
// under its write lock, test/e2e/multi-node.test.ts; two connections in one process cannot: the
// busy wait of one blocks the thread the other needs to finish.)
const SERVER_DIALECTS = testDialects().filter((d) => d !== 'sqlite');

describe.each(SERVER_DIALECTS)('two runtimes with their schedulers on one %s database', (dialect) => {
  let t: TestRuntime;
  let scheduler: TaskScheduler;

  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0 });
    scheduler = new TaskScheduler(t.rt);
  });

  const define = (extra: Record<string, string> = {}) =>
    setPeriodicTask(t.ctx, {
      name: 'cleanup',
      interval: '*/5 * * * *',
      nodes: t.rt.node,
      taskmodule: 'ChallengeCleanup',
      ordering: '0',
      ...extra,
    });
  const lastRun = async () => (await getPeriodicTask(t.rt, 'cleanup')).lastRuns[t.rt.node];

  let other: Runtime | undefined;
  let otherNow = T0;
  afterEach(async () => {
    await other?.store.close();
    other = undefined;
    await t.close();
  });
  const openOther = async (node: string) => {
    const config = loadConfig({
      env: {},
      overrides: {
        data_dir: t.dataDir,
        database_url: t.rt.config.databaseUrl,
        node_name: node,
        'throttle.enabled': 'false',
      },
    });
    other = await openRuntime(config, {
      logger: pino({ level: 'silent' }),
      clock: () => new Date(otherNow),
    });
    return new TaskScheduler(other);
  };

  it('runs a task once per tick when both processes are the same node, ticking at once', async () => {
    const second = await openOther(t.rt.node);
    await define({ interval: '* * * * *' });
    for (let minute = 1; minute <= 6; minute++) {
      t.setNow(at(minute));
      otherNow = at(minute);
      const started = await Promise.all([scheduler.tick(), second.tick()]);
      await Promise.all([scheduler.idle(), second.idle()]);
      expect(started.flat()).toEqual(['cleanup']);
      expect(await lastRun()).toBe(at(minute).toISOString());
    }
  });

  it('runs a task once on each node it names', async () => {
    const second = await openOther('node-b');
    await define({ nodes: `${t.rt.node},node-b,node-c` });
    for (const minute of [5, 10]) {
      t.setNow(at(minute));
      otherNow = at(minute);
      const started = await Promise.all([scheduler.tick(), second.tick(), scheduler.tick(), second.tick()]);
      await Promise.all([scheduler.idle(), second.idle()]);
      expect(started.flat()).toEqual(['cleanup', 'cleanup']);
    }
    expect((await getPeriodicTask(t.rt, 'cleanup')).lastRuns).toEqual({
      [t.rt.node]: at(10).toISOString(),
      'node-b': at(10).toISOString(),
    });
  });
});
