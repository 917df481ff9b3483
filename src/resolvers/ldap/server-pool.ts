// LDAPURI as a server pool: servers are tried in the given order; one that cannot be reached (or
// does not answer within TIMEOUT) is skipped for SERVERPOOL_SKIP seconds (privacyIDEA's default
// 30), unless every server is skipped, then all are tried again.
import { ResolverError } from '../../errors.ts';
import type { StoreEnvironment } from '../user-store.ts';
import type { Credentials, LdapConnectionConfig, LdapServer } from './config.ts';
import { type Connection, connectTo, ServerFailure } from './connection.ts';

export class ServerPool {
  private readonly cfg: LdapConnectionConfig;
  private readonly clock: () => Date;
  private readonly log: StoreEnvironment['log'];
  private readonly deadUntil = new Map<string, number>();

  constructor(cfg: LdapConnectionConfig, env: StoreEnvironment) {
    this.cfg = cfg;
    this.clock = env.clock;
    this.log = env.log;
  }

  markDead(server: LdapServer, reason: string): void {
    if (this.cfg.servers.length > 1) this.log.warn({ server: server.url, reason }, 'LDAP server skipped');
    this.deadUntil.set(server.url, this.clock().getTime() + this.cfg.skipMs);
  }

  /** A connection to the first usable server, bound as `bind` (anonymous when undefined). */
  async connect(bind: Credentials | undefined): Promise<Connection> {
    const now = this.clock().getTime();
    const live = this.cfg.servers.filter((s) => (this.deadUntil.get(s.url) ?? 0) <= now);
    const failures: string[] = [];
    for (const server of live.length > 0 ? live : this.cfg.servers) {
      try {
        const conn = await connectTo(server, this.cfg, bind);
        this.deadUntil.delete(server.url);
        return conn;
      } catch (e) {
        if (!(e instanceof ServerFailure)) throw e;
        failures.push(e.message);
        this.markDead(server, e.message);
      }
    }
    throw new ResolverError(`LDAP server unreachable: ${failures.join('; ')}`);
  }
}
