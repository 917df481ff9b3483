// The benchmark's scenarios (main.ts runs them, --only selects them by id, see args.ts).
import { AUDIT_FILTER_USER, type TokenGroup } from './fixtures.ts';
import type { Workload } from './plan.ts';

export interface Scenario {
  id: string;
  title: string;
  unit: 'req/s' | 'logins/s';
  /** 'large': runs after the bulk tokens and audit rows are in the store. */
  store: 'small' | 'large';
  /** Token groups it needs. */
  groups: string[];
  /** argon2id verifications per unit (the PIN or password hash bound applies). */
  hashes: number;
  /** Connections of this scenario when not --connections (5c, 6c: one administrator's answer time). */
  connections?: number;
  /** Runs against slapd: its searches and binds per login are counted (skipped without slapd). */
  ldap?: boolean;
  /**
   * Measures the workload twice: alone, then while a stream of e-mail challenge requests hangs on
   * an SMTP server that never answers (main.ts starts the silent listener and mail-stream.ts).
   */
  hangingMail?: HangingMail;
  /**
   * Runs with one active WebHook event definition on validate_check (post) that posts to a local
   * listener (main.ts creates it before the run and deletes it after, so no other scenario sees it).
   */
  webhook?: boolean;
  /**
   * Sends RADIUS Access-Requests to the server's own RADIUS listener instead of HTTP (main.ts starts
   * the server with radius.listen and adds a RADIUS client for 127.0.0.1). The RADIUS path has no
   * response signature, so it runs once per database, not once per signing mode.
   */
  radius?: boolean;
  workload(env: RunEnv): Workload;
}

export interface HangingMail {
  /** The token group of the e-mail tokens the challenge requests go to. */
  group: string;
  /** Challenge requests in flight at any time. */
  connections: number;
  /** The SMTP server definition's timeout, seconds: how long each request waits for the mail. */
  smtpTimeoutSeconds: number;
}

export interface RunEnv {
  groups: Record<string, TokenGroup>;
  seq: Record<string, number>;
  adminPassword: string;
  jwt: string;
  /** The RADIUS listener of the running server and the shared secret of its client 127.0.0.1. */
  radius?: { port: number; secret: string };
}

function radiusOf(e: RunEnv): { port: number; secret: string } {
  if (!e.radius) throw new Error('the server was started without a RADIUS listener');
  return e.radius;
}

/** Every scenario in the order they run; `bulkTokens`: tokens in the large store (5b checks the count). */
export function scenarioList(bulkTokens: number): Scenario[] {
  const SCENARIOS: Scenario[] = [
    {
      // The floor: what the server's HTTP stack, envelope and response signature cost without any
      // authentication work, so the other rates can be read against it.
      id: '0',
      title: 'GET /healthz/livez (HTTP stack, envelope, signature only)',
      unit: 'req/s',
      store: 'small',
      groups: [],
      hashes: 0,
      workload: () => ({ kind: 'probe', path: '/healthz/livez' }),
    },
    {
      id: '1',
      title: '/validate/check pw token, no PIN',
      unit: 'req/s',
      store: 'small',
      groups: ['pw'],
      hashes: 0,
      workload: (e) => ({ kind: 'static', group: e.groups.pw!, pass: 'pw', pin: '' }),
    },
    {
      id: '1p',
      title: '/validate/check spass, argon2id PIN',
      unit: 'req/s',
      store: 'small',
      groups: ['sp'],
      hashes: 1,
      workload: (e) => ({ kind: 'static', group: e.groups.sp!, pass: 'pin', pin: '4711' }),
    },
    {
      id: '2',
      title: '/validate/check HOTP, no PIN',
      unit: 'logins/s',
      store: 'small',
      groups: ['ho'],
      hashes: 0,
      workload: (e) => ({ kind: 'hotp', group: e.groups.ho!, pin: '', seq: e.seq.ho ?? 0 }),
    },
    {
      id: '2p',
      title: '/validate/check HOTP, argon2id PIN',
      unit: 'logins/s',
      store: 'small',
      groups: ['hp'],
      hashes: 1,
      workload: (e) => ({ kind: 'hotp', group: e.groups.hp!, pin: '4711', seq: e.seq.hp ?? 0 }),
    },
    {
      id: '3',
      title: '/validate/check wrong OTP (fail counter)',
      unit: 'req/s',
      store: 'small',
      groups: ['wr'],
      hashes: 0,
      workload: (e) => ({ kind: 'hotp-wrong', group: e.groups.wr!, window: 10 }),
    },
    {
      id: '4',
      title: 'challenge-response: PIN, then OTP',
      unit: 'logins/s',
      store: 'small',
      groups: ['cr'],
      hashes: 1,
      workload: (e) => ({ kind: 'challenge', group: e.groups.cr!, pin: '4711', seq: e.seq.cr ?? 0 }),
    },
    {
      id: '7',
      title: '/validate/check HOTP, LDAP realm',
      unit: 'logins/s',
      store: 'small',
      groups: ['ldap'],
      hashes: 0,
      ldap: true,
      workload: (e) => ({ kind: 'hotp', group: e.groups.ldap!, pin: '', seq: e.seq.ldap ?? 0 }),
    },
    {
      id: '7p',
      title: '/validate/check LDAP password (passthru to the user store)',
      unit: 'logins/s',
      store: 'small',
      groups: ['ldappw'],
      hashes: 0,
      ldap: true,
      workload: (e) => ({ kind: 'ldap-password', group: e.groups.ldappw! }),
    },
    {
      // Issue 19: a dead SMTP server slows only the requests that mail through it; ordinary logins
      // meanwhile answer as fast as without it. Scenario 2's logins, first alone, then beside 16
      // e-mail challenge requests always in flight, each held for the 2 s SMTP timeout.
      id: '8',
      title: '/validate/check HOTP while e-mail challenges hang on a silent SMTP server',
      unit: 'logins/s',
      store: 'small',
      groups: ['ho', 'em'],
      hashes: 0,
      hangingMail: { group: 'em', connections: 16, smtpTimeoutSeconds: 2 },
      workload: (e) => ({ kind: 'hotp', group: e.groups.ho!, pin: '', seq: e.seq.ho ?? 0 }),
    },
    {
      // Issue 20: what one event definition costs a login. Scenario 2's logins while a WebHook
      // definition on validate_check posts {serial, user, result} to a local listener after every
      // check (the handler is awaited, so its round trip is part of each login).
      id: '9',
      title: '/validate/check HOTP with one WebHook event definition (post validate_check)',
      unit: 'logins/s',
      store: 'small',
      groups: ['ho'],
      hashes: 0,
      webhook: true,
      workload: (e) => ({ kind: 'hotp', group: e.groups.ho!, pin: '', seq: e.seq.ho ?? 0 }),
    },
    {
      // Issue 22: scenario 2's logins over RADIUS (PAP, Message-Authenticator) instead of HTTP, to
      // the server's own listener: a RADIUS login should cost no more CPU than an unsigned
      // /validate/check. Signing does not apply (no response signature on this path).
      id: 'R',
      title: 'RADIUS Access-Request PAP, HOTP, no PIN',
      unit: 'logins/s',
      store: 'small',
      groups: ['ho'],
      hashes: 0,
      radius: true,
      workload: (e) => ({
        kind: 'radius-hotp',
        group: e.groups.ho!,
        pin: '',
        seq: e.seq.ho ?? 0,
        host: '127.0.0.1',
        port: radiusOf(e).port,
        secret: radiusOf(e).secret,
      }),
    },
    {
      id: '5a',
      title: 'POST /auth administrator (argon2id)',
      unit: 'req/s',
      store: 'large',
      groups: [],
      hashes: 1,
      workload: (e) => ({ kind: 'admin-auth', username: 'admin', password: e.adminPassword }),
    },
    {
      id: '5b',
      title: 'GET /token/ page 1, bulk tokens in store',
      unit: 'req/s',
      store: 'large',
      groups: [],
      hashes: 0,
      workload: (e) => ({
        kind: 'get',
        path: '/token/?page=1',
        jwt: e.jwt,
        list: 'tokens',
        minCount: bulkTokens,
      }),
    },
    {
      id: '6',
      title: `GET /audit/?user=… (filter), bulk audit rows`,
      unit: 'req/s',
      store: 'large',
      groups: [],
      hashes: 0,
      workload: (e) => ({
        kind: 'get',
        path: `/audit/?user=${AUDIT_FILTER_USER}&page=1`,
        jwt: e.jwt,
        list: 'auditdata',
        minCount: 1,
      }),
    },
    {
      id: '2L',
      title: 'scenario 2 with bulk tokens + audit rows',
      unit: 'logins/s',
      store: 'large',
      groups: ['ho'],
      hashes: 0,
      workload: (e) => ({ kind: 'hotp', group: e.groups.ho!, pin: '', seq: e.seq.ho ?? 0 }),
    },
  ];

  // At 32 connections a page's latency is mostly the queue in front of it (p50 ≈ 32 ÷ rate); these two
  // measure what one administrator waits for a page, with nobody else asking.
  for (const [from, id] of [
    ['5b', '5c'],
    ['6', '6c'],
  ] as const) {
    const s = SCENARIOS.find((x) => x.id === from)!;
    SCENARIOS.splice(SCENARIOS.indexOf(s) + 1, 0, {
      ...s,
      id,
      title: `${s.title}, one client`,
      connections: 1,
    });
  }
  return SCENARIOS;
}
