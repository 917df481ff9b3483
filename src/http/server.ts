// Starts the HTTP(S) listener for a runtime and stops it cleanly: no new connections, in-flight
// requests finished, idle keep-alive connections closed.
import { readFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../core/context.ts';
import { closeUserStores } from '../core/directory/index.ts';
import { createApp } from './app.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, waits for in-flight requests, then resolves. */
  close(): Promise<void>;
}

export async function startServer(rt: Runtime): Promise<RunningServer> {
  const { host, port, tlsCert, tlsKey } = rt.config.http;
  const app = createApp(rt).callback();
  // Responses still being produced; on stop they are told to close their connection afterwards,
  // so that a keep-alive client does not hold the process up until the idle timeout.
  const inFlight = new Set<ServerResponse>();
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    res.on('close', () => inFlight.delete(res));
    return app(req, res);
  };
  const tls = tlsCert !== '';
  const server: Server = tls
    ? createHttpsServer({ cert: readFileSync(tlsCert), key: readFileSync(tlsKey) }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = 5000;
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `${tls ? 'https' : 'http'}://${shownHost}:${actual}`,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        for (const res of inFlight) {
          if (!res.headersSent) res.setHeader('Connection', 'close');
          else res.once('finish', () => setImmediate(() => server.closeIdleConnections()));
        }
      }),
  };
}

/**
 * The end of serving: in-flight requests finished (keep-alive clients told to close), the user
 * stores' connections closed, then the database (after the audit rows still being batched).
 */
export async function closeServing(rt: Runtime, server: Pick<RunningServer, 'close'>): Promise<void> {
  await server.close();
  await closeUserStores(rt);
  await rt.store.close();
}
