// `authsrv serve`: one process (http.workers = 1), or a node:cluster primary with worker processes
// that share the listening port and the database (src/http/cluster.ts supervises them). The primary
// does the one-time work (migrations, key check, first administrator, audit rotation) and runs the
// periodic tasks; the workers answer requests.
import { Command } from 'commander';
import type { Config } from '../../config/index.ts';
import { startAuditRotation } from '../../core/audit/index.ts';
import { ensureInitialAdmin } from '../../core/auth/index.ts';
import { localOperator, type Runtime, withCaller } from '../../core/context.ts';
import { clusterExposition, exposeToPrimary } from '../../core/metrics/index.ts';
import { startScheduler } from '../../core/periodictask/index.ts';
import { openRuntime } from '../../core/runtime.ts';
import {
  announceListening,
  leaveCluster,
  refuseLockedKeyForWorkers,
  refuseMetricsOnSharedPort,
  servingRole,
  startWorkers,
  workerCount,
} from '../../http/cluster.ts';
import { stopSignal } from '../../http/stop-signal.ts';
import { VERSION } from '../../version.ts';
import { configFrom } from '../common.ts';
import { forgetServing, recordServing } from '../serving-file.ts';

interface ServeOptions {
  host?: string;
  port?: string;
  workers?: string;
}

/** The configuration keys the flags set; checked like the file's and the environment's values. */
function flagOverrides(opts: ServeOptions): Record<string, string> {
  const out: Record<string, string> = {};
  if (opts.host !== undefined) out['http.host'] = opts.host;
  if (opts.port !== undefined) out['http.port'] = opts.port;
  if (opts.workers !== undefined) out['http.workers'] = opts.workers;
  return out;
}

export function serveCommand(): Command {
  return new Command('serve')
    .description('run the authentication server (http.workers: several processes sharing the port)')
    .option('--host <address>', 'address to listen on (http.host, AUTHSRV_HTTP_HOST; default 127.0.0.1)')
    .option('--port <number>', 'TCP port, 0 for any free one (http.port, AUTHSRV_HTTP_PORT; default 5000)')
    .option('--workers <number>', 'processes sharing the port, 0 for one per CPU (http.workers; default 1)')
    .addHelpText(
      'after',
      '\nEach setting comes from the first of: these flags, AUTHSRV_* variables, the configuration file, the default.',
    )
    .action(async (opts: ServeOptions, cmd: Command) => {
      const config = configFrom(cmd, flagOverrides(opts));
      const workers = workerCount(config.http.workers);
      const role = servingRole(workers);
      if (role === 'worker') return runWorker(config);
      if (role === 'primary') return runPrimary(config, workers);
      return runSingle(config);
    });
}

/** The one-time start-up work: migrations and key check (in openRuntime), the first administrator. */
async function openPrimary(config: Config, workers: number): Promise<Runtime> {
  refuseMetricsOnSharedPort(config, workers);
  const rt = await openRuntime(config, { metrics: true });
  try {
    refuseLockedKeyForWorkers(rt, workers);
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

/**
 * The listener of metrics.listen, if set, with a line saying where it is; `exposition` gives this
 * process's metrics, or in a cluster's primary those of all workers.
 */
async function metricsListener(
  rt: Runtime,
  exposition: () => Promise<string>,
): Promise<{ close(): Promise<void> } | undefined> {
  if (!rt.metrics.enabled || !rt.config.metrics.listen) return undefined;
  const { startMetricsListener } = await import('../../http/metrics.ts');
  const listener = await startMetricsListener(rt, exposition);
  console.log(`metrics on ${listener.url}`);
  return listener;
}

/**
 * authsrv's own RADIUS server at radius.listen, if set, with a line saying where it is. It runs in
 * the single process or in a cluster's primary only, so that the retransmission cache sees every
 * copy of a request (a UDP port shared by workers would hand a retransmission to any of them).
 */
async function radiusListener(rt: Runtime): Promise<{ close(): Promise<void> } | undefined> {
  const at = rt.config.radius.listen;
  if (!at) return undefined;
  const { startRadiusServer } = await import('../../radius-server/index.ts');
  const server = await startRadiusServer(rt, at.host, at.port);
  console.log(`RADIUS on udp ${server.address}`);
  return server;
}

function listeningLine(rt: Runtime, url: string, workers: number): string {
  const processes = workers > 1 ? `, ${workers} worker processes` : '';
  return `authsrv ${VERSION} listening on ${url} (node ${rt.node}, database ${rt.store.dialect}${processes})`;
}

async function runSingle(config: Config): Promise<void> {
  // The HTTP stack is loaded only here, so that the other commands start quickly.
  const { closeServing, startServer } = await import('../../http/server.ts');
  const rt = await openPrimary(config, 1);
  const server = await startServer(rt);
  const metrics = await metricsListener(rt, () => rt.metrics.exposition()).catch(async (e) => {
    await closeServing(rt, server);
    throw e;
  });
  const radius = await radiusListener(rt).catch(async (e) => {
    await metrics?.close();
    await closeServing(rt, server);
    throw e;
  });
  console.log(listeningLine(rt, server.url, 1));
  recordServing(config.dataDir, server.url);
  const rotation = startAuditRotation(rt);
  const tasks = startScheduler(rt);
  const signal = await stopSignal('default');
  rt.log.info({ signal }, 'shutting down');
  rotation.stop();
  await tasks.stop();
  await radius?.close();
  await metrics?.close();
  await closeServing(rt, server);
  forgetServing(config.dataDir);
}

/**
 * A worker: its own runtime on the already migrated database (no migration, key check or node
 * registration: the primary did them), its own listener on the shared port. It stops like the
 * single process, then leaves the cluster so that the process ends (also after a failed start).
 */
async function runWorker(config: Config): Promise<void> {
  try {
    const { closeServing, startServer } = await import('../../http/server.ts');
    const rt = await openRuntime(config, { migrate: false, metrics: true });
    const server = await startServer(rt).catch(async (e) => {
      await rt.store.close();
      throw e;
    });
    await exposeToPrimary(rt.metrics);
    announceListening(server.url);
    const signal = await stopSignal('ignore');
    rt.log.info({ signal }, 'worker shutting down');
    await closeServing(rt, server);
  } finally {
    leaveCluster();
  }
}

async function runPrimary(config: Config, count: number): Promise<void> {
  const rt = await openPrimary(config, count);
  const workers = await startWorkers(rt, count).catch(async (e) => {
    await rt.store.close();
    throw e;
  });
  const metrics = await metricsListener(rt, () => clusterExposition(rt.metrics)).catch(async (e) => {
    await workers.stop('SIGTERM');
    await rt.store.close();
    throw e;
  });
  const radius = await radiusListener(rt).catch(async (e) => {
    await metrics?.close();
    await workers.stop('SIGTERM');
    await rt.store.close();
    throw e;
  });
  console.log(listeningLine(rt, workers.url, count));
  recordServing(config.dataDir, workers.url);
  const rotation = startAuditRotation(rt);
  // Periodic tasks run in the primary only: once per node, however many workers answer requests.
  const tasks = startScheduler(rt);
  const signal = await stopSignal('ignore');
  rt.log.info({ signal }, 'shutting down');
  rotation.stop();
  await tasks.stop();
  await radius?.close();
  await metrics?.close();
  await workers.stop(signal);
  await rt.store.close();
  forgetServing(config.dataDir);
}
