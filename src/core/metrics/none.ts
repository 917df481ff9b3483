// What the metrics are when metrics.enabled is false, and the exposition's media type: without
// prom-client, so that a runtime without metrics never loads it.
import type { Metrics } from '../context.ts';

/** Prometheus text exposition format 0.0.4 (prom-client's Registry.PROMETHEUS_CONTENT_TYPE). */
export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** The runtime's metrics when metrics.enabled is false: nothing counted, nothing kept, none shown. */
export const NO_METRICS: Metrics = {
  enabled: false,
  login() {},
  lockout() {},
  challenge() {},
  radiusRequest() {},
  radiusDropped() {},
  request() {},
  addStatsSource() {},
  authorizes: () => false,
  exposition: async () => '',
};
