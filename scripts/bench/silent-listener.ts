// A TCP listener on 127.0.0.1 that accepts every connection and never says a word: an SMTP server
// that hangs its clients before the greeting (scenario 8). The benchmark starts it itself, as it
// starts slapd, and depends on nothing in test/.

import type { AddressInfo } from 'node:net';
import { createServer, type Socket } from 'node:net';

export interface SilentListener {
  port: number;
  /** Connections accepted so far. */
  accepted(): number;
  /** Stops listening and drops every connection still open. */
  close(): Promise<void>;
}

export async function startSilentListener(): Promise<SilentListener> {
  const open = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    open.add(socket);
    // The client gives up (its timeout) and closes; nothing is ever written back.
    socket.on('error', () => undefined);
    socket.on('close', () => open.delete(socket));
    socket.resume();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
