// Several server processes on one port (http.workers > 1), with node:cluster. The primary forks the
// workers, restarts one that dies (at once after a long life, with growing delays after quick
// deaths) and stops them all; a worker tells the primary when it listens. The primary does the
// one-time work (migrations, first administrator, audit rotation) and answers no request.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { isSea } from 'node:sea';
import { type Config, ConfigError } from '../config/index.ts';
import type { Runtime } from '../core/context.ts';
import { AuthsrvError } from '../errors.ts';

/**
 * Marks a process forked by our own primary. cluster.isWorker alone would also be true under a
 * foreign cluster manager (pm2), whose workers must behave like a plain `authsrv serve`. The name
 * does not start with AUTHSRV_, which the configuration loader would check as a key.
 */
const WORKER_ENV = 'NODE_AUTHSRV_WORKER';
/** A worker that ran at least this long before dying is restarted at once (after the first step). */
const STABLE_AFTER_MS = 10_000;
const RESTART_FIRST_MS = 500;
const RESTART_MAX_MS = 30_000;

interface ListeningMessage {
  authsrv: 'listening';
  url: string;
}

/** http.workers as a process count: 0 is one per CPU core. */
export function workerCount(configured: number): number {
  return configured === 0 ? availableParallelism() : configured;
}

/** How this process serves: as a worker of our primary, as the primary of several workers, or alone. */
export function servingRole(workers: number): 'worker' | 'primary' | 'single' {
  if (cluster.isWorker && process.env[WORKER_ENV] === '1') return 'worker';
  return workers > 1 && cluster.isPrimary ? 'primary' : 'single';
}

/** Several workers need a key unlocked at start: POST /system/hsm would unlock it in one worker only. */
export function refuseLockedKeyForWorkers(rt: Runtime, workers: number): void {
  if (workers <= 1 || rt.hsm.isReady()) return;
  throw new ConfigError(
    `http.workers = ${workers} needs an encryption key that is unlocked at start: the key is ` +
      'password protected and POST /system/hsm would unlock it in one worker process only. ' +
      'Set security.key_password_file, or http.workers = 1.',
  );
}

/**
 * Several workers share the API's port, so that a scrape there would see one worker's counts: the
 * primary serves the sum of all of them on metrics.listen, which is then required.
 */
export function refuseMetricsOnSharedPort(config: Config, workers: number): void {
  if (workers <= 1 || !config.metrics.enabled || config.metrics.listen) return;
  throw new ConfigError(
    `metrics.enabled with http.workers = ${workers} needs metrics.listen (e.g. 127.0.0.1:9464): ` +
      'there the primary process serves the metrics of all worker processes together; on the ' +
      "API's port a scrape would reach one worker only.",
  );
}

/** In a worker: tells the primary that this worker listens, at `url`. */
export function announceListening(url: string): void {
  process.send?.({ authsrv: 'listening', url } satisfies ListeningMessage);
}

/** In a worker: leaves the cluster; the IPC channel to the primary is the last thing holding the process. */
export function leaveCluster(): void {
  cluster.worker?.disconnect();
}

/**
 * When a worker that lived `lived` ms is replaced: the delay doubles while workers keep dying young,
 * so that a crash loop does not spin, and starts over after a worker that ran stably.
 */
export function restartBackoff(quickDeaths: number, lived: number): { quickDeaths: number; delay: number } {
  const deaths = lived < STABLE_AFTER_MS ? quickDeaths + 1 : 1;
  return { quickDeaths: deaths, delay: Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** (deaths - 1)) };
}

export interface WorkerPool {
  /** Where the workers listen. */
  url: string;
  /** Forwards the signal to every worker and waits for all of them to exit. */
  stop(signal: NodeJS.Signals): Promise<void>;
}

/**
 * Forks `count` workers and resolves once every one listens. A worker that exits before it listens
 * fails the start (it would fail the same way again: port taken, database unreachable; its own
 * message is on stderr already) after the others are stopped.
 */
export async function startWorkers(rt: Pick<Runtime, 'log'>, count: number): Promise<WorkerPool> {
  // A single executable repeats its own path as argv[1]: the worker must get the same argv as this
  // process, not that path as its first argument.
  if (isSea()) cluster.setupPrimary({ exec: process.argv[2] ?? '', args: process.argv.slice(3) });
  const supervisor = new Supervisor(rt.log, count);
  try {
    const url = await supervisor.start();
    return { url, stop: (signal) => supervisor.stop(signal) };
  } catch (e) {
    await supervisor.stop('SIGTERM');
    throw e;
  }
}

/** The workers' lives: forked, counted as listening, restarted after an unexpected exit, stopped. */
class Supervisor {
  private readonly started = new Map<Worker, number>();
  private readonly listening = new Set<Worker>();
  private readonly restarts = new Set<NodeJS.Timeout>();
  private quickDeaths = 0;
  private stopping = false;
  private url = '';
  /** Set while starting: settles the start when all workers listen or one exits first. */
  private starting: { ready(): void; failed(e: Error): void } | undefined;

  private readonly log: Runtime['log'];
  private readonly count: number;

  constructor(log: Runtime['log'], count: number) {
    this.log = log;
    this.count = count;
    cluster.on('exit', (worker, code, signal) => this.exited(worker, code, signal));
  }

  async start(): Promise<string> {
    try {
      await new Promise<void>((ready, failed) => {
        this.starting = { ready, failed };
        for (let i = 0; i < this.count; i++) this.fork();
      });
    } finally {
      this.starting = undefined;
    }
    return this.url;
  }

  private fork(): void {
    const worker = cluster.fork({ [WORKER_ENV]: '1' });
    this.started.set(worker, Date.now());
    worker.on('message', (m: ListeningMessage) => {
      if (m?.authsrv !== 'listening') return;
      this.listening.add(worker);
      this.url = m.url;
      this.log.info({ worker: worker.process.pid }, 'worker started');
      if (this.listening.size === this.count) this.starting?.ready();
    });
  }

  private exited(worker: Worker, code: number, signal: string): void {
    const lived = Date.now() - (this.started.get(worker) ?? Date.now());
    const wasListening = this.listening.delete(worker);
    this.started.delete(worker);
    if (this.stopping) return;
    if (this.starting && !wasListening) {
      this.starting.failed(
        new AuthsrvError(
          `worker process ${worker.process.pid} exited (${signal ?? `code ${code}`}) before it was listening`,
        ),
      );
      return;
    }
    const delay = this.restartDelay(lived);
    this.log.error(
      { worker: worker.process.pid, code, signal, restartInMs: delay },
      'worker exited unexpectedly; starting a new one',
    );
    const timer = setTimeout(() => {
      this.restarts.delete(timer);
      if (!this.stopping) this.fork();
    }, delay);
    this.restarts.add(timer);
  }

  private restartDelay(lived: number): number {
    const next = restartBackoff(this.quickDeaths, lived);
    this.quickDeaths = next.quickDeaths;
    return next.delay;
  }

  async stop(signal: NodeJS.Signals): Promise<void> {
    this.stopping = true;
    for (const t of this.restarts) clearTimeout(t);
    const all = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    await Promise.all(
      all.map(
        (w) =>
          new Promise<void>((done) => {
            if (w.isDead()) return done();
            w.once('exit', () => done());
            w.process.kill(signal);
          }),
      ),
    );
  }
}
