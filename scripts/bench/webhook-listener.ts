// An HTTP listener on 127.0.0.1 that answers every request 200 and counts the POSTs: the receiver
// of scenario 9's WebHook event definition. The benchmark starts it itself and depends on nothing
// in test/.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookListener {
  url: string;
  /** POST requests received so far. */
  received(): number;
  close(): Promise<void>;
}

export async function startWebhookListener(): Promise<WebhookListener> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST') received++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
