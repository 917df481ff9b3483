// GET /metrics (docs/metrics.md): the answer to a scrape, on the API's port (behind the bearer
// token of metrics.token_file) or on a listener of its own (metrics.listen), which serves nothing
// else and which `authsrv serve`'s primary runs so that it sums the metrics of every worker.
// Scrapes are not audited, like the health probes: monitoring would flood the audit log.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type Koa from 'koa';
import type { Runtime } from '../core/context.ts';
import { METRICS_CONTENT_TYPE } from '../core/metrics/index.ts';

export const METRICS_PATH = '/metrics';

interface ScrapeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The exposition text, if the method and the Authorization header allow it. */
async function answerScrape(
  rt: Pick<Runtime, 'metrics' | 'log'>,
  method: string,
  authorization: string | undefined,
  exposition: () => Promise<string>,
): Promise<ScrapeAnswer> {
  const plain = { 'Content-Type': 'text/plain; charset=utf-8' };
  if (method !== 'GET' && method !== 'HEAD') {
    return { status: 405, headers: { ...plain, Allow: 'GET, HEAD' }, body: 'Method Not Allowed\n' };
  }
  if (!rt.metrics.authorizes(authorization)) {
    return {
      status: 401,
      headers: { ...plain, 'WWW-Authenticate': 'Bearer realm="authsrv metrics"' },
      body: 'Unauthorized\n',
    };
  }
  try {
    return { status: 200, headers: { 'Content-Type': METRICS_CONTENT_TYPE }, body: await exposition() };
  } catch (err) {
    rt.log.error({ err }, 'the metrics could not be collected');
    return { status: 503, headers: plain, body: 'Metrics unavailable\n' };
  }
}

/**
 * The step that answers /metrics on the API's port, mounted when metrics are on without a
 * listener of their own; every other path goes on to the API.
 */
export function serveMetrics(rt: Pick<Runtime, 'metrics' | 'log'>): Koa.Middleware {
  return async (koa, next) => {
    if (koa.path !== METRICS_PATH) return next();
    const a = await answerScrape(rt, koa.method, koa.get('Authorization') || undefined, () =>
      rt.metrics.exposition(),
    );
    koa.status = a.status;
    koa.set(a.headers);
    koa.body = a.body;
  };
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/**
 * The listener of metrics.listen: /metrics only (404 for any other path). `exposition` is this
 * process's metrics, or in a cluster's primary those of all its workers.
 */
export async function startMetricsListener(
  rt: Pick<Runtime, 'metrics' | 'log' | 'config'>,
  exposition: () => Promise<string>,
): Promise<MetricsListener> {
  const at = rt.config.metrics.listen;
  if (!at) throw new Error('metrics.listen is not set');
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0];
    const answer =
      path === METRICS_PATH
        ? answerScrape(rt, req.method ?? '', req.headers.authorization, exposition)
        : Promise.resolve({ status: 404, headers: { 'Content-Type': 'text/plain' }, body: 'Not Found\n' });
    void answer.then((a) => {
      res.writeHead(a.status, {
        ...a.headers,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
      });
      res.end(req.method === 'HEAD' ? undefined : a.body);
    });
  });
  server.keepAliveTimeout = 5000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(at.port, at.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = at.host.includes(':') ? `[${at.host}]` : at.host;
  return {
    url: `http://${host}:${port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
