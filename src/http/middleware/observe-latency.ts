// Outermost step when metrics are on: how long the request took, by the route template the router
// matched (never the raw path, which would make one series per serial or user), method and status.
// The steps inside answer every failure, so the status here is the one sent.
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';

/** The label of a request no route matched (unknown paths, wrong methods). */
const UNMATCHED = 'unmatched';

export function observeLatency(rt: Pick<Runtime, 'metrics'>): Koa.Middleware {
  return async (koa, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const matched = (koa as { _matchedRoute?: unknown })._matchedRoute;
      const route = typeof matched === 'string' ? matched : UNMATCHED;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      rt.metrics.request(route, koa.method, koa.status, seconds);
    }
  };
}
