// What the main process hands the driver process for one scenario run (JSON on the command line),
// and what the driver answers (one JSON line on stdout).

/** A numbered group of users with one token each: user i is `${prefix}${i+1 padded to width}`. */
export interface UserGroup {
  prefix: string;
  width: number;
  count: number;
  realm: string;
}

export const groupUser = (g: UserGroup, i: number) => `${g.prefix}${String(i + 1).padStart(g.width, '0')}`;

export type Workload =
  /** An unauthenticated GET answered without database or audit (the HTTP stack's own cost). */
  | { kind: 'probe'; path: string }
  /** /validate/check with a fixed password per user (pw token without PIN, or spass PIN). */
  | { kind: 'static'; group: UserGroup; pass: 'pw' | 'pin'; pin: string }
  /** /validate/check with PIN + the next HOTP value of the next user, round robin from `seq`. */
  | { kind: 'hotp'; group: UserGroup; pin: string; seq: number }
  /** /validate/check with an OTP value outside every token's look-ahead window. */
  | { kind: 'hotp-wrong'; group: UserGroup; window: number }
  /** PIN only (answered with a challenge), then the HOTP value with the transaction_id. */
  | { kind: 'challenge'; group: UserGroup; pin: string; seq: number }
  /** /validate/check with the user's own password in the user store (slapd's generated users). */
  | { kind: 'ldap-password'; group: UserGroup }
  /** POST /auth of an administrator. */
  | { kind: 'admin-auth'; username: string; password: string }
  /** An authenticated GET whose answer must list at least `minCount` entries in total. */
  | { kind: 'get'; path: string; jwt: string; list: 'tokens' | 'auditdata'; minCount: number }
  /**
   * RADIUS Access-Requests over UDP (no HTTP): PAP, User-Name `user@realm`, User-Password = PIN +
   * the next HOTP value of the next user, round robin from `seq` as 'hotp', Message-Authenticator.
   */
  | {
      kind: 'radius-hotp';
      group: UserGroup;
      pin: string;
      seq: number;
      host: string;
      port: number;
      secret: string;
    };

/** Whether a workload continues a round robin of one-time values: the next run starts at `seq`. */
export const continuesRoundRobin = (w: Workload): boolean =>
  w.kind === 'hotp' || w.kind === 'challenge' || w.kind === 'radius-hotp';

export interface DriverPlan {
  url: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
  /** Whether every answer must carry a response signature (or none). */
  signed: boolean;
  workload: Workload;
}

export interface PhaseResult {
  seconds: number;
  /** Units started in the window (the denominator of the LDAP operations per login). */
  started: number;
  /** Answers received in the window. */
  requests: number;
  /** Units that completed as intended: requests, or logins for the challenge workload. */
  good: number;
  /** Answers that were not what the scenario intends (status, result, authentication, signature). */
  unexpected: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Latency of one unit (a request, or trigger + answer of a login), ms. */
  p50: number;
  p99: number;
}

export interface DriverResult {
  warmup: PhaseResult;
  measured: PhaseResult;
  /** The next round-robin position (hotp, challenge): where the next run must start. */
  seq: number;
  /** Up to five answers that were not as intended. */
  samples: string[];
}
