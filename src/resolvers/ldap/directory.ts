// The connections of one LDAP store and what may go wrong on them. One connection bound as BINDDN
// (or anonymous) carries every search and write; password checks bind further connections
// (bind-connections.ts). So one authentication (findByLogin + checkPassword) costs one search and
// one bind, and no new connection. A reused connection that turns out to be gone is replaced and a
// read is retried once on the new one. Every LDAP request (each page of a search) must be answered
// within TIMEOUT, so a dead or hung server fails after TIMEOUT per server tried, never hangs.
import { type Client, type Entry, ResultCodeError, type SearchOptions } from 'ldapts';
import { AuthsrvError, ResolverError } from '../../errors.ts';
import type { StoreEnvironment } from '../user-store.ts';
import { BindConnections } from './bind-connections.ts';
import type { LdapConnectionConfig } from './config.ts';
import type { Connection } from './connection.ts';
import { CREDENTIAL_CODES, INSUFFICIENT_ACCESS_RIGHTS, NO_SUCH_OBJECT, REFERRAL } from './result-codes.ts';
import { ServerPool } from './server-pool.ts';

function isConnectionLost(e: unknown): boolean {
  return /Connection closed before message response|Socket connection not established|LDAP connection was lost|Socket error/.test(
    String((e as Error)?.message ?? e),
  );
}

/** Lost before the request went out: even a write may be sent again. */
function isUnsent(e: unknown): boolean {
  return /LDAP connection was lost|Socket connection not established/.test(String(e));
}

function isTimeout(e: unknown): boolean {
  return /Operation timed out/.test(String((e as Error)?.message ?? e));
}

const PAGE_SIZE = 200;

/** What a paged search asks for besides its base and size limit. */
export type PagedSearch = Pick<SearchOptions, 'scope' | 'filter' | 'attributes' | 'explicitBufferAttributes'>;

export class Directory {
  private readonly cfg: LdapConnectionConfig;
  private readonly pool: ServerPool;
  private readonly binds: BindConnections;
  private service: Promise<Connection> | undefined;
  private closed = false;

  constructor(cfg: LdapConnectionConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.pool = new ServerPool(cfg, env);
    this.binds = new BindConnections(this.pool, cfg.timeoutMs);
  }

  ensureOpen(): void {
    if (this.closed) throw new ResolverError('The LDAP resolver has been closed');
  }

  /** The bound service connection, opened (again) when there is none or it dropped. */
  private async serviceConnection(): Promise<{ conn: Connection; reused: boolean }> {
    this.ensureOpen();
    const current = this.service;
    if (current) {
      const conn = await current.catch(() => undefined);
      if (conn?.alive) return { conn, reused: true };
      if (this.service === current) this.service = undefined;
      conn?.kill();
    }
    if (!this.service) {
      const opening = this.pool.connect(this.cfg.bind);
      this.service = opening;
      opening.catch(() => {
        if (this.service === opening) this.service = undefined;
      });
    }
    const conn = await this.service;
    if (this.closed) {
      await conn.close();
      this.ensureOpen();
    }
    return { conn, reused: false };
  }

  /**
   * Runs an operation on the service connection. A reused connection that turns out to be gone is
   * replaced and a read (or a write that was never sent) is tried once more.
   */
  async run<T>(what: string, op: (c: Client) => Promise<T>, idempotent = true): Promise<T> {
    const { conn, reused } = await this.serviceConnection();
    try {
      return await op(conn.client);
    } catch (e) {
      const lost = isConnectionLost(e) && !conn.alive;
      // A server that stopped answering: another server of the pool may still.
      const hung = isTimeout(e) && idempotent && this.cfg.servers.length > 1;
      if ((lost && reused && (idempotent || isUnsent(e))) || hung) {
        if (hung) this.pool.markDead(conn.server, 'timeout');
        conn.kill();
        const again = await this.serviceConnection();
        try {
          return await op(again.conn.client);
        } catch (e2) {
          throw this.operationError(what, e2, again.conn);
        }
      }
      throw this.operationError(what, e, conn);
    }
  }

  /**
   * A paged search under `base`. The server is asked for at most `limit` entries; when it stops with
   * sizeLimitExceeded (its own limit or ours), the entries received so far are the result.
   */
  async pagedSearch(base: string, options: PagedSearch, limit: number): Promise<Entry[]> {
    return this.run('search', async (client) => {
      const out: Entry[] = [];
      const pages = client.searchPaginated(base, {
        ...options,
        sizeLimit: limit,
        paged: { pageSize: Math.min(limit, PAGE_SIZE) },
      });
      for await (const page of pages) {
        // Search references (referrals) are in page.searchReferences: never chased.
        for (const e of page.searchEntries) if (out.length < limit) out.push(e);
        // Some servers (Active Directory) ignore the requested size limit.
        if (out.length >= limit) break;
      }
      return out;
    });
  }

  /** Whether `password` is the password of `dn`: a bind on a connection of its own. */
  async checkBind(dn: string, password: string): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      const { conn, reused } = await this.binds.acquire();
      try {
        await conn.client.bind(dn, password);
        this.binds.release(conn);
        return true;
      } catch (e) {
        if (e instanceof ResultCodeError && CREDENTIAL_CODES.has(e.code)) {
          this.binds.release(conn);
          return false;
        }
        conn.kill();
        this.binds.release(conn);
        if (isConnectionLost(e) && reused && attempt === 0) continue;
        throw this.operationError('password check', e, conn);
      }
    }
  }

  /** The error to report for a failed operation; a connection that can no longer be used is killed. */
  private operationError(what: string, e: unknown, conn: Connection): Error {
    if (e instanceof AuthsrvError) return e;
    if (isTimeout(e)) {
      conn.kill();
      this.pool.markDead(conn.server, 'timeout');
      return new ResolverError(
        `${conn.server.url} did not answer the ${what} within ${this.cfg.timeoutMs / 1000} s`,
      );
    }
    if (isConnectionLost(e)) {
      conn.kill();
      return new ResolverError(`The connection to ${conn.server.url} was lost during the ${what}`);
    }
    if (e instanceof ResultCodeError) {
      if (e.code === NO_SUCH_OBJECT) {
        return new ResolverError(
          what === 'search' || what.startsWith('lookup')
            ? `The ${what} failed: LDAPBASE '${this.cfg.base}' does not exist on ${conn.server.url}`
            : `The ${what} failed: no such object (${e.message})`,
        );
      }
      if (e.code === INSUFFICIENT_ACCESS_RIGHTS)
        return new ResolverError(`The ${what} failed: BINDDN has insufficient access rights`);
      if (e.code === REFERRAL)
        return new ResolverError(`The ${what} failed: the server answered with a referral`);
    }
    return new ResolverError(`The LDAP ${what} on ${conn.server.url} failed: ${(e as Error).message ?? e}`);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const service = this.service;
    this.service = undefined;
    const conns = this.binds.closeAll();
    const serviceConn = service ? await service.catch(() => undefined) : undefined;
    if (serviceConn) conns.push(serviceConn);
    await Promise.allSettled(conns.map((c) => c.close()));
  }
}
