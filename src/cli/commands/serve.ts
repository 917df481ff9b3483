// `authsrv serve`: one process (http.workers = 1), or a node:cluster primary with worker processes
// that share the listening port and the database. The primary does the one-time work (migrations,
// key check, first administrator, audit rotation) and only supervises; the workers answer requests.
import cluster, { type Worker } from 'node:cluster';
import { availableParallelism } from 'node:os';
import { isSea } from 'node:sea';
import { Command } from 'commander';
import { type Config, ConfigError } from '../../config/index.ts';
import { startAuditRotation } from '../../core/audit/index.ts';
import { ensureInitialAdmin } from '../../core/auth/index.ts';
import { localOperator, type Runtime, withCaller } from '../../core/context.ts';
import { closeUserStores } from '../../core/directory/index.ts';
import { openRuntime } from '../../core/runtime.ts';
import { AuthsrvError } from '../../errors.ts';
import { VERSION } from '../../version.ts';
import { configFrom } from '../common.ts';

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
export function resolveWorkers(configured: number): number {
  return configured === 0 ? availableParallelism() : configured;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('run the authentication server (http.workers: several processes sharing the port)')
    .action(async (_opts, cmd: Command) => {
      const config = configFrom(cmd);
      if (cluster.isWorker && process.env[WORKER_ENV] === '1') return runWorker(config);
      const workers = resolveWorkers(config.http.workers);
      if (workers > 1 && cluster.isPrimary) return runPrimary(config, workers);
      return runSingle(config);
    });
}

/** The one-time start-up work: migrations and key check (in openRuntime), the first administrator. */
async function openPrimary(config: Config, workers: number): Promise<Runtime> {
  const rt = await openRuntime(config);
  try {
    if (workers > 1 && !rt.hsm.isReady()) {
      throw new ConfigError(
        `http.workers = ${workers} needs an encryption key that is unlocked at start: the key is ` +
          'password protected and POST /system/hsm would unlock it in one worker process only. ' +
          'Set security.key_password_file, or http.workers = 1.',
      );
    }
    const password = await ensureInitialAdmin(withCaller(rt, localOperator()));
    if (password) {
      console.log(`Created administrator "admin" with password: ${password}`);
      console.log('This password is shown only once. Change it with: authsrv admin passwd admin');
    }
    if (!rt.hsm.isReady()) {
      console.log(
        'The encryption key is password protected: unlock it with POST /system/hsm (or security.key_password_file).',
      );
    }
    return rt;
  } catch (e) {
    await rt.store.close();
    throw e;
  }
}

function listeningLine(rt: Runtime, url: string, workers: number): string {
  const processes = workers > 1 ? `, ${workers} worker processes` : '';
  return `authsrv ${VERSION} listening on ${url} (node ${rt.node}, database ${rt.store.dialect}${processes})`;
}

async function runSingle(config: Config): Promise<void> {
  // The HTTP stack is loaded only here, so that the other commands start quickly.
  const { startServer } = await import('../../http/server.ts');
  const rt = await openPrimary(config, 1);
  const server = await startServer(rt);
  console.log(listeningLine(rt, server.url, 1));
  const rotation = startAuditRotation(rt);
  await new Promise<void>((resolve) => {
    const stop = async (signal: string) => {
      rt.log.info({ signal }, 'shutting down');
      rotation.stop();
      await closeServing(rt, server);
      resolve();
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

/**
 * The end of serving: in-flight requests finished (keep-alive clients told to close), the user
 * stores' connections closed, then the database (after the audit rows still being batched).
 */
async function closeServing(rt: Runtime, server: { close(): Promise<void> }): Promise<void> {
  await server.close();
  await closeUserStores(rt);
  await rt.store.close();
}

/**
 * A worker: its own runtime on the already migrated database (no migration, key check or node
 * registration: the primary did them), its own listener on the shared port. It stops like the
 * single process (in-flight requests finished, told to close their connection), then leaves the
 * cluster so that the process ends.
 */
async function runWorker(config: Config): Promise<void> {
  try {
    await serveInWorker(config);
  } finally {
    // The IPC channel to the primary is the last thing holding the process, also after a failed start.
    cluster.worker?.disconnect();
  }
}

async function serveInWorker(config: Config): Promise<void> {
  const { startServer } = await import('../../http/server.ts');
  const rt = await openRuntime(config, { migrate: false });
  const server = await startServer(rt).catch(async (e) => {
    await rt.store.close();
    throw e;
  });
  process.send?.({ authsrv: 'listening', url: server.url } satisfies ListeningMessage);
  await new Promise<void>((resolve) => {
    let stopping = false;
    // A terminal's Ctrl-C reaches the primary and every worker, and the primary forwards it too:
    // the second signal must not kill a worker that is finishing its requests.
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      rt.log.info({ signal }, 'worker shutting down');
      await closeServing(rt, server);
      resolve();
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
  });
}

async function runPrimary(config: Config, count: number): Promise<void> {
  const rt = await openPrimary(config, count);
  // A single executable repeats its own path as argv[1]: the worker must get the same argv as this
  // process, not that path as its first argument.
  if (isSea()) cluster.setupPrimary({ exec: process.argv[2] ?? '', args: process.argv.slice(3) });

  const started = new Map<Worker, number>();
  const listening = new Set<Worker>();
  const restarts = new Set<NodeJS.Timeout>();
  let quickDeaths = 0;
  let stopping = false;
  let url = '';
  let ready: (() => void) | undefined;
  let failed: ((e: Error) => void) | undefined;

  const fork = () => {
    const worker = cluster.fork({ [WORKER_ENV]: '1' });
    started.set(worker, Date.now());
    worker.on('message', (m: ListeningMessage) => {
      if (m?.authsrv !== 'listening') return;
      listening.add(worker);
      url = m.url;
      rt.log.info({ worker: worker.process.pid }, 'worker started');
      if (listening.size === count) ready?.();
    });
  };

  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (started.get(worker) ?? Date.now());
    const wasListening = listening.delete(worker);
    started.delete(worker);
    if (stopping) return;
    if (ready) {
      // Still starting: a worker that cannot start (port taken, database unreachable) would fail
      // the same way again; its own message is on stderr already.
      if (!wasListening) {
        failed?.(
          new AuthsrvError(
            `worker process ${worker.process.pid} exited (${signal ?? `code ${code}`}) before it was listening`,
          ),
        );
        return;
      }
    }
    quickDeaths = lived < STABLE_AFTER_MS ? quickDeaths + 1 : 1;
    const delay = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** (quickDeaths - 1));
    rt.log.error(
      { worker: worker.process.pid, code, signal, restartInMs: delay },
      'worker exited unexpectedly; starting a new one',
    );
    const timer = setTimeout(() => {
      restarts.delete(timer);
      if (!stopping) fork();
    }, delay);
    restarts.add(timer);
  });

  /** Forwards the signal and waits for every worker to exit. */
  const stopWorkers = async (signal: NodeJS.Signals) => {
    stopping = true;
    for (const t of restarts) clearTimeout(t);
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
  };

  try {
    await new Promise<void>((resolve, reject) => {
      ready = resolve;
      failed = reject;
      for (let i = 0; i < count; i++) fork();
    });
  } catch (e) {
    await stopWorkers('SIGTERM');
    await rt.store.close();
    throw e;
  } finally {
    ready = undefined;
    failed = undefined;
  }
  console.log(listeningLine(rt, url, count));
  const rotation = startAuditRotation(rt);

  await new Promise<void>((resolve) => {
    const stop = async (signal: NodeJS.Signals) => {
      if (stopping) return;
      rt.log.info({ signal }, 'shutting down');
      rotation.stop();
      await stopWorkers(signal);
      await rt.store.close();
      resolve();
    };
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
  });
}
