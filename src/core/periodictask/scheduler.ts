// Running periodic tasks: `authsrv serve` (its primary process only, also with http.workers > 1)
// ticks every few seconds; each tick runs, in ordering, every active task naming this node whose
// next cron time after the node's last run has come, once it has claimed that run in the database
// (claims.ts). A task still running here is not started again; a failed run of a task with
// retry_if_failed is due again at the next tick. `authsrv task run` runs one task now.
import { Cron } from 'croner';
import { ParameterError } from '../../errors.ts';
import { parseOptions, type RunSummary, taskModule } from '../../task-modules/index.ts';
import { auditedCliAction } from '../audit/index.ts';
import type { Context, Runtime } from '../context.ts';
import { type Claim, claimRun, releaseRun } from './claims.ts';
import { getPeriodicTask, listPeriodicTasks, type PeriodicTask } from './definitions.ts';

/** How often a server looks for due tasks: every 10 seconds (croner's six-field syntax). */
export const TICK_PATTERN = '*/10 * * * * *';

export interface RunOutcome {
  task: string;
  node: string;
  ok: boolean;
  summary?: RunSummary;
  error?: string;
}

/**
 * Whether `task` is due on `node` at `now`: its first cron time after the node's last run (or,
 * never run there, after the definition's last change) has come.
 */
export function isDue(task: PeriodicTask, node: string, now: Date): boolean {
  const from = new Date(task.lastRuns[node] ?? task.lastUpdate);
  const next = new Cron(task.interval, { paused: true }).nextRun(from);
  return next !== null && next.getTime() <= now.getTime();
}

/**
 * Runs a claimed task's module and ends the claim; a failure is reported, not thrown, and logged
 * unless the caller reports it itself (`authsrv task run`).
 */
async function execute(
  rt: Runtime,
  task: PeriodicTask,
  claim: Claim,
  logFailure = true,
): Promise<RunOutcome> {
  const outcome: RunOutcome = { task: task.name, node: claim.node, ok: false };
  try {
    const module = taskModule(task.taskmodule);
    outcome.summary = await module.run(rt, parseOptions(module, task.options));
    outcome.ok = true;
    rt.log.info({ task: task.name, summary: outcome.summary }, 'periodic task done');
  } catch (e) {
    outcome.error = (e as Error).message;
    if (logFailure) rt.log.error({ task: task.name, err: e }, 'periodic task failed');
  }
  try {
    await releaseRun(rt, claim, !outcome.ok && task.retryIfFailed);
  } catch (e) {
    rt.log.error({ task: task.name, err: e }, 'periodic task: recording the run failed');
  }
  return outcome;
}

/** The scheduler of one process: its tick, and the runs it has under way. */
export class TaskScheduler {
  private readonly running = new Map<number, Promise<RunOutcome>>();

  private readonly rt: Runtime;

  constructor(rt: Runtime) {
    this.rt = rt;
  }

  /**
   * One look for due tasks: claims and starts each (not waiting for it to end); returns the
   * names of the tasks it started.
   */
  async tick(): Promise<string[]> {
    const now = this.rt.clock();
    const started: string[] = [];
    for (const task of await listPeriodicTasks(this.rt)) {
      if (!task.active || !task.nodes.includes(this.rt.node)) continue;
      if (this.running.has(task.id) || !isDue(task, this.rt.node, now)) continue;
      const claim = await claimRun(this.rt, task.id, this.rt.node, task.lastRuns[this.rt.node]);
      if (!claim) continue;
      const run = execute(this.rt, task, claim).finally(() => this.running.delete(task.id));
      this.running.set(task.id, run);
      started.push(task.name);
    }
    return started;
  }

  /** Waits until the runs under way have ended; their outcomes. */
  async idle(): Promise<RunOutcome[]> {
    return Promise.all(this.running.values());
  }
}

/** A running scheduler; stop() ends the ticks and waits for the runs under way. */
export interface SchedulerHandle {
  scheduler: TaskScheduler;
  stop(): Promise<void>;
}

/** Starts ticking (croner, TICK_PATTERN); a failed tick is logged and the next one tries again. */
export function startScheduler(rt: Runtime, pattern = TICK_PATTERN): SchedulerHandle {
  const scheduler = new TaskScheduler(rt);
  const job = new Cron(pattern, { protect: true, unref: true }, async () => {
    try {
      await scheduler.tick();
    } catch (e) {
      rt.log.error({ err: e }, 'periodic task scheduler: tick failed');
    }
  });
  return {
    scheduler,
    async stop() {
      job.stop();
      await scheduler.idle();
    },
  };
}

/**
 * `authsrv task run NAME`: runs one task now on this node whatever its schedule, active or not,
 * and records it as the node's last run; refused while a run is under way on this node. A failed
 * run is an error (and its audit row says so).
 */
export async function runPeriodicTaskNow(ctx: Context, idOrName: string): Promise<RunOutcome> {
  const task = await getPeriodicTask(ctx, idOrName);
  return auditedCliAction(ctx, { command: 'task run', detail: task.name }, async () => {
    const claim = await claimRun(ctx, task.id, ctx.node, task.lastRuns[ctx.node]);
    if (!claim)
      throw new ParameterError(`The periodic task ${task.name} is running on node ${ctx.node} already`);
    const outcome = await execute(ctx, task, claim, false);
    if (!outcome.ok) throw new ParameterError(`The periodic task ${task.name} failed: ${outcome.error}`);
    return outcome;
  });
}
