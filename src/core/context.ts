// What every service function receives: the runtime (database, config, keys, clock, logger) and
// the caller on whose behalf it acts. Services never look at Koa or commander.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Random, SecurityModule, ServerKeys } from '../crypto/index.ts';
import type { AllowedFiles } from '../files/index.ts';
import type { Store } from '../store/index.ts';

export type { Random };

export type Role = 'admin' | 'user';

export interface Caller {
  role: Role;
  username: string;
  /** '' for local administrators. */
  realm: string;
  /** How the caller proved who it is: password (JWT login), local (the CLI operator). */
  authtype: 'password' | 'local' | 'pi' | 'remote_user';
  /** Client address as seen after trusted-proxy handling; '' for the CLI. */
  client: string;
}

export interface Runtime {
  store: Store;
  config: Config;
  hsm: SecurityModule;
  keys: ServerKeys;
  log: Logger;
  /** Current time; replaced in tests. */
  clock: () => Date;
  random: Random;
  /** Node name of this server among those sharing the database. */
  node: string;
  /** The rule for every file a setting names (files.allowed_dirs). */
  files: AllowedFiles;
  /** What the services count for GET /metrics (src/core/metrics); counts nothing when it is off. */
  metrics: Metrics;
}

/** What a login on the /validate path answered (ACCEPT, REJECT …), or why it had no answer. */
export type LoginResult = 'accept' | 'reject' | 'challenge' | 'declined' | 'throttled' | 'error';

/** Values read at each scrape, by key (the monitoring store's stats keys' last values). */
export type StatsSource = () => Promise<Iterable<readonly [string, number]>>;

/**
 * The metrics of a runtime (created by src/core/metrics). Each count is a synchronous increment
 * in memory: the login path pays no await and no database access for it.
 */
export interface Metrics {
  readonly enabled: boolean;
  /** A /validate check answered; token type '' when no single token decided. */
  login(result: LoginResult, tokenType: string): void;
  /** A token's fail counter reached its maximum. */
  lockout(tokenType: string): void;
  /** A challenge was created. */
  challenge(tokenType: string): void;
  /**
   * authsrv's RADIUS server answered a datagram: `result` accept, reject, challenge, status (a
   * Status-Server) or retransmission (a copy answered from its cache).
   */
  radiusRequest(result: string): void;
  /** authsrv's RADIUS server dropped a datagram unanswered; `reason` is one of a few fixed names. */
  radiusDropped(reason: string): void;
  /** An HTTP request was answered: its route template (never the raw path), method, status, duration. */
  request(route: string, method: string, status: number, seconds: number): void;
  /** Adds a source of the gauge `authsrv_stats_last_value{key}`, read at each scrape. */
  addStatsSource(source: StatsSource): void;
  /** Whether an Authorization header may read the metrics (metrics.token_file; true without one). */
  authorizes(authorization: string | undefined): boolean;
  /** The exposition text of this process's metrics. */
  exposition(): Promise<string>;
}

export interface Context extends Runtime {
  caller: Caller;
}

/** The operator running the CLI on the server itself: an administrator by virtue of shell access. */
export function localOperator(): Caller {
  const user = process.env.SUDO_USER ?? process.env.USER ?? 'root';
  return { role: 'admin', username: `${user}@cli`, realm: '', authtype: 'local', client: '' };
}

export function withCaller(runtime: Runtime, caller: Caller): Context {
  return { ...runtime, caller };
}
