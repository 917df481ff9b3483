// An HTTP listener on a free port of 127.0.0.1 that records every request (method, URL, headers,
// body) and answers what the test sets: the peer of the HTTP SMS gateway tests.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SinkRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface HttpSink {
  url: string;
  requests: SinkRequest[];
  /** What the next requests get; `hang` never answers. */
  answer: { status: number; text: string; hang?: boolean };
  close(): Promise<void>;
}

export async function startHttpSink(): Promise<HttpSink> {
  const sink: Omit<HttpSink, 'url' | 'close'> = { requests: [], answer: { status: 200, text: 'OK' } };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => {
      body += d.toString('utf8');
    });
    req.on('end', () => {
      sink.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (sink.answer.hang) return;
      res.writeHead(sink.answer.status, { 'Content-Type': 'text/plain' });
      res.end(sink.answer.text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(sink, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  });
}
