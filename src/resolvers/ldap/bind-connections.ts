// The connections on which user passwords are checked, by binding them as the user, so that the
// service connection is never rebound. At most MAX_BIND_CONNECTIONS are open (more checks at once
// wait for one to be released), and as many stay open when idle, so a login under load binds on
// an open connection instead of paying a TCP (and TLS) handshake for a connection of its own.
import { ResolverError } from '../../errors.ts';
import type { Connection } from './connection.ts';
import type { ServerPool } from './server-pool.ts';

const MAX_BIND_CONNECTIONS = 4;

export class BindConnections {
  private readonly pool: ServerPool;
  private readonly timeoutMs: number;
  private readonly idle: Connection[] = [];
  private readonly busy = new Set<Connection>();
  /** Connections being opened (not in `busy` yet). */
  private opening = 0;
  /** Checks waiting for a connection: handed one, or undefined to open their own. */
  private readonly waiters: ((conn: Connection | undefined) => void)[] = [];
  private closed = false;

  constructor(pool: ServerPool, timeoutMs: number) {
    this.pool = pool;
    this.timeoutMs = timeoutMs;
  }

  private ensureOpen(): void {
    if (this.closed) throw new ResolverError('The LDAP resolver has been closed');
  }

  /** A connection for one check; `reused` when it was open before (and may have dropped since). */
  async acquire(): Promise<{ conn: Connection; reused: boolean }> {
    this.ensureOpen();
    for (let conn = this.idle.pop(); conn; conn = this.idle.pop()) {
      if (conn.alive) {
        this.busy.add(conn);
        return { conn, reused: true };
      }
      conn.kill();
    }
    if (this.busy.size + this.opening >= MAX_BIND_CONNECTIONS) {
      const handed = await this.released();
      // A connection handed over is still in `busy`, now this check's.
      if (handed) return { conn: handed, reused: true };
      this.ensureOpen();
    }
    this.opening++;
    try {
      const conn = await this.pool.connect(undefined);
      this.busy.add(conn);
      return { conn, reused: false };
    } finally {
      this.opening--;
    }
  }

  /**
   * Waits for a connection to be released. After TIMEOUT of waiting (a slow or hung server), or
   * when the released one was lost, the check opens a connection of its own (undefined).
   */
  private released(): Promise<Connection | undefined> {
    return new Promise<Connection | undefined>((resolve) => {
      const waiter = (c: Connection | undefined) => {
        clearTimeout(timer);
        resolve(c);
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(undefined);
      }, this.timeoutMs);
      this.waiters.push(waiter);
    });
  }

  release(conn: Connection): void {
    const alive = !this.closed && conn.alive;
    const waiter = this.waiters.shift();
    if (waiter && alive) {
      waiter(conn);
      return;
    }
    this.busy.delete(conn);
    if (alive && this.idle.length < MAX_BIND_CONNECTIONS) {
      this.idle.push(conn);
      return;
    }
    void conn.close();
    // The lost connection's place is free: the first waiter opens a new one.
    waiter?.(undefined);
  }

  /** Refuses further checks, wakes the waiting ones and hands back every connection to close. */
  closeAll(): Connection[] {
    this.closed = true;
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
    const conns = [...this.idle.splice(0), ...this.busy];
    this.busy.clear();
    return conns;
  }
}
