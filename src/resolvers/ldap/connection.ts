// One connection to one LDAP server: the socket (TCP or TLS), StartTLS and the bind, all within
// TIMEOUT. ldapts would silently reconnect a dropped connection without its bind and without
// StartTLS; the socket handed to it is therefore made here and ldapts may never open another: a
// lost connection is replaced by a new one (connected, StartTLS, bound) by whoever holds it.
import net from 'node:net';
import tls from 'node:tls';
import { Client, ResultCodeError } from 'ldapts';
import { ResolverError } from '../../errors.ts';
import type { Credentials, LdapConnectionConfig, LdapServer } from './config.ts';
import { CREDENTIAL_CODES } from './result-codes.ts';

/** A server could not be used (unreachable, hung, TLS failed): the pool tries the next one. */
export class ServerFailure extends Error {}

/** One open connection: the ldapts client and the raw socket under it (which alone can kill it). */
export class Connection {
  readonly client: Client;
  readonly server: LdapServer;
  private readonly socket: net.Socket;

  constructor(client: Client, server: LdapServer, socket: net.Socket) {
    this.client = client;
    this.server = server;
    this.socket = socket;
  }

  get alive(): boolean {
    return this.client.isConnected && !this.socket.destroyed;
  }

  kill(): void {
    this.socket.destroy();
  }

  async close(): Promise<void> {
    try {
      if (this.alive) await this.client.unbind();
    } catch {
      // closing anyway
    } finally {
      this.socket.destroy();
    }
  }
}

function sleepReject(ms: number, onTimeout: () => Error): { promise: Promise<never>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const promise = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  promise.catch(() => {});
  return { promise, cancel: () => clearTimeout(timer) };
}

function socketErrorText(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return err.message ?? String(e);
  }
}

function isTlsError(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code ?? '';
  return (
    /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO|HOSTNAME|ALTNAME/i.test(code) ||
    /certificate|ssl|tls/i.test(String(e))
  );
}

/** The name TLS checks the certificate for: none for an IP address. */
function serverName(server: LdapServer): string | undefined {
  return net.isIP(server.host) ? undefined : server.host;
}

function openSocket(server: LdapServer, cfg: LdapConnectionConfig, ms: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = server.secure
      ? tls.connect({ host: server.host, port: server.port, servername: serverName(server), ...cfg.tls })
      : net.connect({ host: server.host, port: server.port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new ServerFailure(`no connection to ${server.url} within ${ms / 1000} s`));
    }, ms);
    socket.once(server.secure ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      // ldapts replaces this listener when it takes the socket over.
      socket.on('error', () => {});
      socket.setNoDelay(true);
      socket.setKeepAlive(true, 30_000);
      // An idle pooled connection must not keep a CLI process alive.
      socket.unref();
      resolve(socket);
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      socket.destroy();
      reject(
        new ServerFailure(
          server.secure && isTlsError(e)
            ? `TLS with ${server.url} failed: ${(e as Error).message}`
            : `cannot connect to ${server.url}: ${socketErrorText(e)}`,
        ),
      );
    });
  });
}

/** An ldapts client that talks over `socket` and can never open a connection of its own. */
function clientOn(socket: net.Socket, server: LdapServer, cfg: LdapConnectionConfig): Client {
  let handedOver = false;
  const handOver = () => {
    // ldapts calls this again to reconnect a dropped connection, without StartTLS or bind: refuse.
    if (handedOver) throw new Error('the LDAP connection was lost');
    handedOver = true;
    return socket;
  };
  return new Client({
    url: server.url,
    timeout: cfg.timeoutMs,
    connectTimeout: cfg.timeoutMs,
    createConnection: handOver as unknown as typeof net.connect,
    createSecureConnection: ((options: unknown) =>
      typeof options === 'object' && options !== null && 'socket' in options
        ? tls.connect(options as tls.ConnectionOptions)
        : handOver()) as unknown as typeof tls.connect,
  });
}

async function startTls(client: Client, server: LdapServer, cfg: LdapConnectionConfig): Promise<void> {
  try {
    await client.startTLS({ ...cfg.tls, host: server.host, servername: serverName(server) });
  } catch (e) {
    if (e instanceof ResultCodeError) {
      throw new ServerFailure(`${server.url} refused StartTLS: ${e.message}`);
    }
    throw new ServerFailure(`StartTLS with ${server.url} failed: ${(e as Error).message}`);
  }
}

/** What a failure while setting a connection up means: a server to skip, or a refused bind. */
function setupError(e: unknown, server: LdapServer, bind: Credentials | undefined): Error {
  if (e instanceof ServerFailure) return e;
  if (e instanceof ResultCodeError) {
    return new ResolverError(
      CREDENTIAL_CODES.has(e.code)
        ? `The LDAP server ${server.url} rejected the bind as '${bind?.dn}': wrong BINDDN or BINDPW`
        : `The bind as '${bind?.dn}' on ${server.url} failed: ${e.message}`,
    );
  }
  return new ServerFailure(`${server.url}: ${(e as Error).message}`);
}

/**
 * Connects to one server: TCP or TLS, StartTLS, and the bind when given, all within TIMEOUT.
 * Throws ServerFailure when the server is not usable, ResolverError when it refuses the bind.
 */
export async function connectTo(
  server: LdapServer,
  cfg: LdapConnectionConfig,
  bind: Credentials | undefined,
): Promise<Connection> {
  const started = Date.now();
  const socket = await openSocket(server, cfg, cfg.timeoutMs);
  const client = clientOn(socket, server, cfg);
  const conn = new Connection(client, server, socket);
  const remaining = cfg.timeoutMs - (Date.now() - started);
  const deadline = sleepReject(Math.max(remaining, 1), () => {
    socket.destroy();
    return new ServerFailure(`${server.url} did not answer within ${cfg.timeoutMs / 1000} s`);
  });
  try {
    await Promise.race([
      deadline.promise,
      (async () => {
        if (cfg.startTls && !server.secure) await startTls(client, server, cfg);
        if (bind) await client.bind(bind.dn, bind.password);
      })(),
    ]);
    return conn;
  } catch (e) {
    conn.kill();
    throw setupError(e, server, bind);
  } finally {
    deadline.cancel();
  }
}
