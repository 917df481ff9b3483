// The metrics of a runtime: none when metrics.enabled is false, else a registry with the bearer
// token of metrics.token_file when one is set.
import type { Logger } from 'pino';
import type { Config } from '../../config/index.ts';
import type { Metrics } from '../context.ts';
import { NO_METRICS } from './none.ts';
import { readMetricsToken } from './token.ts';

/** `log` reports a stats source that fails at a scrape. */
export async function openMetrics(config: Config, log: Logger): Promise<Metrics> {
  if (!config.metrics.enabled) return NO_METRICS;
  const file = config.metrics.tokenFile;
  const token = file === '' ? undefined : readMetricsToken(file);
  const { PromMetrics } = await import('./metrics.ts');
  return new PromMetrics(log, token);
}
