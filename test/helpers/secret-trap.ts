// A TCP listener standing for a server of an attacker's choosing: it records every connection and
// every byte it receives, so that a test can tell whether authsrv contacted it and what it sent.
// As `postgres`, it asks the client for its password in clear (AuthenticationCleartextPassword), as
// a hostile PostgreSQL server may, so that an SQL resolver's password arrives as it is.
import net from 'node:net';

export interface SecretTrap {
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  /** Everything received so far, all connections together. */
  received(): Buffer;
  stop(): Promise<void>;
}

/** AuthenticationCleartextPassword: 'R', length 8, code 3. */
const CLEARTEXT_PASSWORD_REQUEST = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 3]);

export async function startSecretTrap(protocol: 'raw' | 'postgres' = 'raw'): Promise<SecretTrap> {
  let connections = 0;
  const chunks: Buffer[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let messages = 0;
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      messages++;
      // The startup message of PostgreSQL gets the password request; anything after it, or the
      // first request of any other protocol, ends the connection: the trap has what it wanted.
      if (protocol === 'postgres' && messages === 1) socket.write(CLEARTEXT_PASSWORD_REQUEST);
      else socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    received: () => Buffer.concat(chunks),
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
