// The hash workers: a few worker threads that run the expensive hashes written in JavaScript
// (hash-jobs.ts: SHA-crypt, phpass, bcrypt), so that a login never holds up the event loop and every
// other request goes on while a password is checked. Each job first takes one of the process's hash
// slots (hash-slots.ts), so at most MAX_CONCURRENT_HASHES workers are ever busy, and so ever started.
// Workers start when a job needs one and stay for the next; an idle worker is unref'd, so it never
// keeps the process alive. A worker that fails or dies fails only its job (the caller answers false
// or a clear error) and is replaced by the next job.
import { getAsset, isSea } from 'node:sea';
import { Worker } from 'node:worker_threads';
import type { HashAnswer, HashJob, HashReply } from './hash-jobs.ts';
import { withHashSlot } from './hash-slots.ts';

/**
 * Asset key of the bundled hash-worker.ts in the single executable, which has no source files to
 * start a worker from; scripts/build-binary.ts embeds it under this key.
 */
export const HASH_WORKER_ASSET = 'hash-worker.cjs';

/** A hash needs a few megabytes; a worker that wants more than this is stopped, failing its job. */
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16 };

const live = new Set<Worker>();
const idle: Worker[] = [];

function retire(worker: Worker): void {
  live.delete(worker);
  const i = idle.indexOf(worker);
  if (i >= 0) idle.splice(i, 1);
}

function startWorker(): Worker {
  const worker = isSea()
    ? new Worker(getAsset(HASH_WORKER_ASSET, 'utf8'), { eval: true, resourceLimits: RESOURCE_LIMITS })
    : new Worker(new URL('./hash-worker.ts', import.meta.url), {
        execArgv: [],
        resourceLimits: RESOURCE_LIMITS,
      });
  live.add(worker);
  // Listened to for good: an 'error' event nobody listens to would end the whole process.
  worker.on('error', () => retire(worker));
  worker.on('exit', () => retire(worker));
  return worker;
}

/** The worker's reply to `job`, or a failed one when the worker dies first. */
function replyOf(worker: Worker, job: HashJob): Promise<HashReply> {
  return new Promise((resolve) => {
    const settle = (reply: HashReply) => {
      worker.off('message', settle);
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(reply);
    };
    const onError = (e: Error) => settle({ ok: false, error: e.message });
    const onExit = (code: number) => settle({ ok: false, error: `the worker stopped (exit code ${code})` });
    worker.on('message', settle);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(job);
  });
}

async function runOnWorker(job: HashJob): Promise<string | boolean> {
  const worker = idle.pop() ?? startWorker();
  // Busy, the worker keeps the process alive: a CLI command waits for its hash.
  worker.ref();
  const reply = await replyOf(worker, job);
  if (live.has(worker)) {
    worker.unref();
    idle.push(worker);
  }
  if (!reply.ok) throw new Error(`Password hashing failed: ${reply.error}`);
  return reply.value;
}

/** Runs `job` on a hash worker when a hash slot is free; rejects when the job or its worker fails. */
export function inHashWorker<J extends HashJob>(job: J): Promise<HashAnswer<J>> {
  return withHashSlot(() => runOnWorker(job)) as Promise<HashAnswer<J>>;
}

/** Workers alive and idle (for tests and diagnostics). */
export function hashWorkers(): { alive: number; idle: number } {
  return { alive: live.size, idle: idle.length };
}

/** Stops every worker, busy or idle; their jobs fail. The next job starts a new one. */
export async function stopHashWorkers(): Promise<void> {
  await Promise.all([...live].map((w) => w.terminate()));
}
