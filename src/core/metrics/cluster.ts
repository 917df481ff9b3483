// The metrics of every worker process of `authsrv serve` (http.workers > 1), summed in the primary
// with prom-client's AggregatorRegistry: the primary asks each worker over the cluster's IPC
// channel for its registry and adds them up (counters and histograms summed, the stats gauge
// taken from one worker, process metrics as prom-client aggregates them).
import type { Metrics } from '../context.ts';

/** In a worker: answers the primary's requests with this worker's metrics. */
export async function exposeToPrimary(metrics: Metrics): Promise<void> {
  if (!metrics.enabled) return;
  const { PromMetrics } = await import('./metrics.ts');
  const { AggregatorRegistry } = await import('prom-client');
  if (!(metrics instanceof PromMetrics)) return;
  AggregatorRegistry.setRegistries([metrics.registry]);
  // Constructing one installs the worker's answering listener (once per process).
  new AggregatorRegistry();
}

let aggregator: { clusterMetrics(): Promise<string> } | undefined;

/**
 * In the primary: the exposition text of all workers' metrics together, and what the primary alone
 * counts (its RADIUS server's datagrams).
 */
export async function clusterExposition(primary: Metrics): Promise<string> {
  if (!aggregator) {
    const { AggregatorRegistry } = await import('prom-client');
    aggregator = new AggregatorRegistry();
  }
  const workers = await aggregator.clusterMetrics();
  const { PromMetrics } = await import('./metrics.ts');
  const own = primary instanceof PromMetrics ? await primary.ownExposition() : '';
  if (own === '') return workers;
  return `${workers.endsWith('\n') || workers === '' ? workers : `${workers}\n`}${own}`;
}
