// What the driver (driver.ts) counts as an answer as intended, and how it sums up a window: pure
// functions, so that test/scripts/ can check them with crafted answers.
import type { PhaseResult, Workload } from './plan.ts';

export interface Envelope {
  result?: { status?: boolean; value?: unknown; authentication?: string };
  detail?: { message?: string; transaction_id?: string } | null;
  signature?: string;
}

/** A problem check of a parsed answer: what is wrong with it, undefined when it is as intended. */
export type Problem = (e: Envelope) => string | undefined;

/**
 * The parsed answer when it is HTTP 200, JSON, result.status true and signed as `signed` says;
 * otherwise why not ('status', 'not JSON', 'result.status', 'no signature', 'unexpected signature').
 */
export function checkEnvelope(
  status: number,
  body: string,
  signed: boolean,
): { envelope: Envelope } | { why: string } {
  if (status !== 200) return { why: 'status' };
  let e: Envelope;
  try {
    e = JSON.parse(body) as Envelope;
  } catch {
    return { why: 'not JSON' };
  }
  if (e.result?.status !== true) return { why: 'result.status' };
  const isSigned = typeof e.signature === 'string' && e.signature.startsWith('rsa_sha256_pss:');
  if (isSigned !== signed || (!signed && e.signature !== undefined)) {
    return { why: signed ? 'no signature' : 'unexpected signature' };
  }
  return { envelope: e };
}

/** What is wrong with an answer that should accept a login; undefined when it does. */
export function notAccepted(e: Envelope): string | undefined {
  return e.result?.value === true && e.result.authentication === 'ACCEPT' ? undefined : 'not accepted';
}

/** The transaction id of an answer that should be a challenge (first step of 'challenge'). */
export function challengeOf(e: Envelope): string | undefined {
  const tid = e.detail?.transaction_id;
  return e.result?.value === false && e.result.authentication === 'CHALLENGE' && typeof tid === 'string'
    ? tid
    : undefined;
}

/** privacyIDEA's answer to a PIN-only request of an e-mail token whose mail could not be sent. */
export const MAIL_NOT_SENT = 'The PIN was correct, but the EMail could not be sent!';

/**
 * What is wrong with the answer to an e-mail challenge request whose SMTP server never answers
 * (scenario 8): it must say that the mail could not be sent, and make no challenge.
 */
export function mailNotSent(e: Envelope): string | undefined {
  return e.result?.value === false &&
    e.detail?.message === MAIL_NOT_SENT &&
    e.detail.transaction_id === undefined
    ? undefined
    : 'not "could not be sent"';
}

/** The check of each answer of a workload (for 'challenge': of its second request, the OTP). */
export function problemOf(w: Workload): Problem {
  switch (w.kind) {
    case 'probe':
      return (e) =>
        e.result?.status === true && (e.result.value as { status?: unknown } | undefined)?.status === 'OK'
          ? undefined
          : 'not {"status": "OK"}';
    case 'static':
    case 'ldap-password':
    case 'hotp':
    case 'challenge':
    case 'radius-hotp': // not an HTTP answer: radius-load.ts checks RADIUS answers itself
      return notAccepted;
    case 'hotp-wrong':
      return (e) =>
        e.result?.value === false &&
        e.result.authentication === 'REJECT' &&
        e.detail?.message === 'wrong otp value'
          ? undefined
          : 'not rejected with "wrong otp value"';
    case 'admin-auth':
      return (e) =>
        typeof (e.result?.value as { token?: unknown } | undefined)?.token === 'string'
          ? undefined
          : 'no token';
    case 'get':
      return (e) => {
        const v = e.result?.value as Record<string, unknown> | undefined;
        const list = v?.[w.list];
        return Array.isArray(list) && list.length > 0 && Number(v?.count) >= w.minCount
          ? undefined
          : `no ${w.list} or count below ${w.minCount}`;
      };
  }
}

/**
 * One answer checked as the driver does: undefined when it is as intended, else why not (the
 * envelope's reason, or the problem's).
 */
export function answerProblem(
  status: number,
  body: string,
  signed: boolean,
  problem: Problem,
): string | undefined {
  const c = checkEnvelope(status, body, signed);
  return 'why' in c ? c.why : problem(c.envelope);
}

// --- counters of a window --------------------------------------------------------------------------

export interface Window {
  /** Units started (first request built) in the window. */
  started: number;
  responses: number;
  good: number;
  unexpected: number;
  latencies: number[];
}

export const newWindow = (): Window => ({ started: 0, responses: 0, good: 0, unexpected: 0, latencies: [] });

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** autocannon's counts of the whole run (reported with the measured window). */
export interface RunCounts {
  non2xx: number;
  errors: number;
  timeouts: number;
}

export function summary(win: Window, seconds: number, r: RunCounts | undefined): PhaseResult {
  const sorted = win.latencies.sort((a, b) => a - b);
  return {
    seconds,
    started: win.started,
    requests: win.responses,
    good: win.good,
    unexpected: win.unexpected,
    // autocannon counts these over the whole run: they are reported with the measured window.
    non2xx: r?.non2xx ?? 0,
    errors: r?.errors ?? 0,
    timeouts: r?.timeouts ?? 0,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
  };
}
