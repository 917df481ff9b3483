// Claiming a run of a task on a node in the database, so that with several processes sharing one
// database (nodes, workers, a CLI `authsrv task run`) each (task, node) run happens once: the
// claim moves the row's last run from the value the claimant read to now and marks it running, in
// one transaction guarded by that previous value; whoever finds another value lost the race.
import { isUniqueViolation, runTransaction } from '../../store/index.ts';
import type { Runtime } from '../context.ts';

/** A run marked as under way longer than this was cut short (its process ended): ignored. */
export const STALE_RUN_MS = 6 * 3_600_000;

export interface Claim {
  taskId: number;
  node: string;
  /** The last run the claim replaced (ISO), undefined when the node had never run the task. */
  previous: string | undefined;
  /** This run's start (ISO), now the node's last run. */
  startedAt: string;
}

function isRunning(runningSince: string, now: Date): boolean {
  return runningSince !== '' && now.getTime() - Date.parse(runningSince) < STALE_RUN_MS;
}

/**
 * Claims the run of `taskId` on `node` if the node's last run is still `previous` and no run is
 * under way there; undefined when another process was first or a run is under way.
 */
export async function claimRun(
  rt: Runtime,
  taskId: number,
  node: string,
  previous: string | undefined,
): Promise<Claim | undefined> {
  const now = rt.clock();
  const startedAt = now.toISOString();
  const claim: Claim = { taskId, node, previous, startedAt };
  try {
    return await runTransaction(rt.store, async (trx) => {
      const row = await trx
        .selectFrom('periodictask_lastrun')
        .selectAll()
        .where('task_id', '=', taskId)
        .where('node', '=', node)
        .executeTakeFirst();
      if (!row) {
        if (previous !== undefined) return undefined; // the row was deleted: the task was
        await trx
          .insertInto('periodictask_lastrun')
          .values({ task_id: taskId, node, timestamp: startedAt, running_since: startedAt })
          .execute();
        return claim;
      }
      if (row.timestamp !== previous || isRunning(row.running_since, now)) return undefined;
      const r = await trx
        .updateTable('periodictask_lastrun')
        .set({ timestamp: startedAt, running_since: startedAt })
        .where('id', '=', row.id)
        .where('timestamp', '=', row.timestamp)
        .where('running_since', '=', row.running_since)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) === 1 ? claim : undefined;
    });
  } catch (e) {
    if (isUniqueViolation(e)) return undefined; // another process inserted the first run
    throw e;
  }
}

/**
 * Ends a claimed run. A failed run of a task with retry_if_failed gives the node's last run back
 * (so that the run is due again at the next tick); any other run stays recorded.
 */
export async function releaseRun(rt: Runtime, claim: Claim, retry: boolean): Promise<void> {
  await runTransaction(rt.store, async (trx) => {
    const mine = trx
      .updateTable('periodictask_lastrun')
      .where('task_id', '=', claim.taskId)
      .where('node', '=', claim.node)
      .where('timestamp', '=', claim.startedAt);
    if (!retry) {
      await mine.set({ running_since: '' }).execute();
    } else if (claim.previous !== undefined) {
      await mine.set({ timestamp: claim.previous, running_since: '' }).execute();
    } else {
      await trx
        .deleteFrom('periodictask_lastrun')
        .where('task_id', '=', claim.taskId)
        .where('node', '=', claim.node)
        .where('timestamp', '=', claim.startedAt)
        .execute();
    }
  });
}
