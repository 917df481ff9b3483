// Prometheus metrics (docs/metrics.md): what the services count as they work (logins by answer
// and token type, fail-counter lockouts, challenges created), the HTTP front end's request
// latencies, process metrics, and values other resources report at each scrape (the stats keys'
// last values, through `metrics.addStatsSource`); the bearer token that guards the exposition, and
// the aggregation over the worker processes of `authsrv serve`. Off by default (metrics.enabled):
// every runtime carries a Metrics (its type is in ../context.ts), the disabled one does nothing.
export { clusterExposition, exposeToPrimary } from './cluster.ts';
export { METRICS_CONTENT_TYPE, NO_METRICS } from './none.ts';
export { openMetrics } from './open.ts';
