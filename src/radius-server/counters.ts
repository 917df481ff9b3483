// What the RADIUS server counts: answers by kind and the datagrams it dropped, by reason. They are
// kept here (logged at shutdown, read by the tests) and counted in the runtime's metrics
// (`authsrv_radius_requests_total{result}`, `authsrv_radius_dropped_total{reason}`, docs/metrics.md);
// a dropped datagram is never answered.
import type { Metrics } from '../core/context.ts';

export const DROP_REASONS = [
  /** The source address is covered by no RADIUS client. */
  'unknown_client',
  /** Cannot be decoded: too short, a length beyond the datagram, an attribute over the end … */
  'malformed',
  /** Longer than RFC 2865 allows: a datagram over 4096 octets, a User-Password over 128. */
  'oversized',
  /** A wrong Message-Authenticator: another shared secret, or changed on the way. */
  'bad_authenticator',
  /** No Message-Authenticator where the client requires it (BlastRADIUS). */
  'missing_message_authenticator',
  /** Neither Access-Request nor Status-Server (Accounting-Request …). */
  'unsupported_code',
  /** radius.max_inflight datagrams were already being handled. */
  'overloaded',
  /** The check failed inside authsrv (e.g. the audit row could not be written). */
  'internal_error',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** Answers by kind; `retransmission`: a copy answered from the cache, the OTP not checked again. */
export type AnswerKind = 'accept' | 'reject' | 'challenge' | 'status' | 'retransmission';

export type RadiusCounters = Record<AnswerKind, number> & { dropped: Record<DropReason, number> };

export function newCounters(): RadiusCounters {
  return {
    accept: 0,
    reject: 0,
    challenge: 0,
    status: 0,
    retransmission: 0,
    dropped: Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>,
  };
}

/** The counters of one server and the runtime's metrics, counted together. */
export class RadiusTally {
  readonly counters = newCounters();

  private readonly metrics: Metrics;

  constructor(metrics: Metrics) {
    this.metrics = metrics;
  }

  answered(kind: AnswerKind): void {
    this.counters[kind]++;
    this.metrics.radiusRequest(kind);
  }

  dropped(reason: DropReason): void {
    this.counters.dropped[reason]++;
    this.metrics.radiusDropped(reason);
  }
}
