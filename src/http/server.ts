// Starts the HTTP(S) listener for a runtime and stops it cleanly: no new connections, in-flight
// requests finished, idle keep-alive connections closed.
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Runtime } from '../core/context.ts';
import { closeUserStores } from '../core/directory/index.ts';
import { closeMachineStores } from '../core/machineresolver/index.ts';
import { readRegularFile } from '../files/index.ts';
import { createApp } from './app.ts';
import { securityHeaders, servesTls } from './middleware/index.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, waits for in-flight requests, then resolves. */
  close(): Promise<void>;
}

/** A certificate chain or a key: a few kilobytes; a megabyte is a mistake (a wrong file, a device). */
const MAX_TLS_FILE_BYTES = 1024 * 1024;

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
  const tls = servesTls(rt.config);
  const server: Server = tls
    ? createHttpsServer(
        {
          cert: readRegularFile(tlsCert, 'http.tls_cert', MAX_TLS_FILE_BYTES),
          key: readRegularFile(tlsKey, 'http.tls_key', MAX_TLS_FILE_BYTES),
        },
        handler,
      )
    : createHttpServer(handler);
  server.on('clientError', answerClientError(securityHeaders(tls)));
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

/** Node's statuses for requests it cannot read (as its own default answers them); else 400. */
const CLIENT_ERROR_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
};

/**
 * Answers a request Node could not parse (a URL or headers over 16 KiB, a malformed request line)
 * as Node itself would, but with the headers of every answer (set-security-headers.ts).
 */
function answerClientError(headers: Readonly<Record<string, string>>) {
  return (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node: no answer when an answer on this connection has begun (a pipelined request).
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const status = CLIENT_ERROR_STATUS[err.code ?? ''] ?? 400;
    const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, 'Connection: close', 'Content-Length: 0'];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    socket.end(`${lines.join('\r\n')}\r\n\r\n`);
  };
}

/**
 * The end of serving: in-flight requests finished (keep-alive clients told to close), the user
 * stores' connections closed, then the database (after the audit rows still being batched).
 */
export async function closeServing(rt: Runtime, server: Pick<RunningServer, 'close'>): Promise<void> {
  await server.close();
  await closeUserStores(rt);
  await closeMachineStores(rt);
  await rt.store.close();
}
