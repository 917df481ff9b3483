// The metrics of one runtime, on a registry of its own (so that several runtimes in one process,
// as in the tests, count apart). Every count is a synchronous in-memory increment: the login path
// pays no await and no database access for it. Loaded only when metrics are on (open.ts): loading
// prom-client costs a CLI command tens of milliseconds.
import type { Logger } from 'pino';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { LoginResult, Metrics, StatsSource } from '../context.ts';
import { bearerMatches } from './token.ts';

/** Methods of the HTTP specification; anything else is counted as OTHER (label values stay few). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const none = (tokenType: string) => tokenType || 'none';

export class PromMetrics implements Metrics {
  readonly enabled = true;
  readonly registry = new Registry();
  private readonly sources: StatsSource[] = [];
  private readonly logins: Counter<'result' | 'token_type'>;
  private readonly lockouts: Counter<'token_type'>;
  private readonly challenges: Counter<'token_type'>;
  /** Registered at the first RADIUS datagram (see radiusCounters). */
  private radius: { requests: Counter<'result'>; drops: Counter<'reason'> } | undefined;
  private readonly latency: Histogram<'route' | 'method' | 'status_class'>;

  private readonly token: string | undefined;

  constructor(log: Logger, token: string | undefined) {
    this.token = token;
    const registers = [this.registry];
    this.logins = new Counter({
      name: 'authsrv_logins_total',
      help: 'Authentication requests on the /validate endpoints, by answer and deciding token type',
      labelNames: ['result', 'token_type'],
      registers,
    });
    this.lockouts = new Counter({
      name: 'authsrv_token_lockouts_total',
      help: 'Tokens whose fail counter reached its maximum',
      labelNames: ['token_type'],
      registers,
    });
    this.challenges = new Counter({
      name: 'authsrv_challenges_total',
      help: 'Challenges created (challenge-response and out-of-band tokens)',
      labelNames: ['token_type'],
      registers,
    });
    this.latency = new Histogram({
      name: 'authsrv_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route template, method and status class',
      labelNames: ['route', 'method', 'status_class'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const sources = this.sources;
    new Gauge({
      name: 'authsrv_stats_last_value',
      help: 'The last value of each monitoring stats key',
      labelNames: ['key'],
      registers,
      // Every worker reads the same database: the cluster's value is any one worker's.
      aggregator: 'first',
      async collect() {
        this.reset();
        for (const source of sources) {
          try {
            for (const [key, value] of await source()) this.set({ key }, value);
          } catch (err) {
            log.warn({ err }, 'a metrics source failed; its values are left out of this scrape');
          }
        }
      },
    });
    collectDefaultMetrics({ register: this.registry });
  }

  login(result: LoginResult, tokenType: string): void {
    this.logins.inc({ result, token_type: none(tokenType) });
  }

  lockout(tokenType: string): void {
    this.lockouts.inc({ token_type: none(tokenType) });
  }

  challenge(tokenType: string): void {
    this.challenges.inc({ token_type: none(tokenType) });
  }

  radiusRequest(result: string): void {
    this.radiusCounters().requests.inc({ result });
  }

  radiusDropped(reason: string): void {
    this.radiusCounters().drops.inc({ reason });
  }

  /**
   * The RADIUS counters, registered when the first datagram is counted: only the process that
   * serves RADIUS has them, so that in a cluster the workers' sum lacks them and the primary adds
   * its own (ownExposition) without a family twice.
   */
  private radiusCounters(): NonNullable<PromMetrics['radius']> {
    this.radius ??= {
      requests: new Counter({
        name: 'authsrv_radius_requests_total',
        help: 'Datagrams the RADIUS server answered, by answer (a retransmission is answered from the cache)',
        labelNames: ['result'],
        registers: [this.registry],
      }),
      drops: new Counter({
        name: 'authsrv_radius_dropped_total',
        help: 'Datagrams the RADIUS server dropped without an answer, by reason',
        labelNames: ['reason'],
        registers: [this.registry],
      }),
    };
    return this.radius;
  }

  /** What only this process counts (the RADIUS server of a cluster's primary), as exposition text. */
  async ownExposition(): Promise<string> {
    if (!this.radius) return '';
    const names = ['authsrv_radius_requests_total', 'authsrv_radius_dropped_total'];
    const parts = await Promise.all(names.map((n) => this.registry.getSingleMetricAsString(n)));
    return parts.map((p) => `${p.trimEnd()}\n`).join('');
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.latency.observe(
      {
        route,
        method: METHODS.has(method) ? method : 'OTHER',
        status_class: `${Math.floor(status / 100)}xx`,
      },
      seconds,
    );
  }

  addStatsSource(source: StatsSource): void {
    this.sources.push(source);
  }

  authorizes(authorization: string | undefined): boolean {
    return this.token === undefined || bearerMatches(authorization, this.token);
  }

  exposition(): Promise<string> {
    return this.registry.metrics();
  }
}
