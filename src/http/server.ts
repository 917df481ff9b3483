// Starts the HTTP(S) listener for a runtime and stops it cleanly: no new connections, in-flight
// requests finished, idle keep-alive connections closed.
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Runtime } from '../core/context.ts';
import { createApp } from './app.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, waits for in-flight requests, then resolves. */
  close(): Promise<void>;
}

export async function startServer(rt: Runtime): Promise<RunningServer> {
  const { host, port, tlsCert, tlsKey } = rt.config.http;
  const handler = createApp(rt).callback();
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
      }),
  };
}
