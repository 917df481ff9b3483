// The load generator: a separate process (so that it does not share the event loop of the process
// that samples the server), running autocannon programmatically against one scenario and checking
// every answer. One autocannon run of warm-up + measured seconds: only the units completed after
// the warm-up count, so the measured window starts with every connection already busy (a second
// autocannon run would start empty and lose its first round trip, seconds when PINs are hashed). Usage: node driver.ts <plan.json>; answers one
// DriverResult over IPC when forked (else as JSON on stdout).
import { readFileSync } from 'node:fs';
import autocannon, { type Options, type Request, type RequestSpec, type Result } from 'autocannon';
import { generatedUser } from '../fixtures/slapd.ts';
import {
  challengeOf,
  checkEnvelope,
  type Envelope,
  newWindow,
  type Problem,
  problemOf,
  summary,
} from './answers.ts';
import { hotp, staticPassword, tokenKey } from './otp.ts';
import {
  continuesRoundRobin,
  type DriverPlan,
  type DriverResult,
  groupUser,
  type UserGroup,
  type Workload,
} from './plan.ts';
import { type RadiusLoadCounts, runRadiusLoad } from './radius-load.ts';

const plan = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as DriverPlan;
const w = plan.workload;
/** The check of every answer of the workload (of the second request of a challenge login). */
const check = problemOf(w);

// --- counters of the two windows -------------------------------------------------------------------
const warm = newWindow();
const meas = newWindow();
/** performance.now() when the measured window starts. */
let measureFrom = Number.POSITIVE_INFINITY;
const current = () => (performance.now() >= measureFrom ? meas : warm);
const samples: string[] = [];
let seq = continuesRoundRobin(w) && 'seq' in w ? w.seq : 0;

/** A unit (request, or login of two requests) completed as intended; its latency from ctx.t0. */
function done(ctx: Record<string, unknown>): void {
  const win = current();
  win.good++;
  win.latencies.push(performance.now() - (ctx.t0 as number));
}

/** Marks the start of a unit. */
function start(ctx: Record<string, unknown>): void {
  current().started++;
  ctx.t0 = performance.now();
}

function bad(status: number, body: string, why: string): void {
  current().unexpected++;
  if (samples.length < 5) samples.push(`${why}: HTTP ${status} ${body.slice(0, 400)}`);
}

/** The parsed answer when it is HTTP 200, status true and signed as configured; undefined otherwise. */
function envelope(status: number, body: string): Envelope | undefined {
  current().responses++;
  const c = checkEnvelope(status, body, plan.signed);
  if ('why' in c) {
    bad(status, body, c.why);
    return undefined;
  }
  return c.envelope;
}

/** The answer checked: a valid envelope and `problem(e)` undefined; else counted as unexpected. */
function accepted(status: number, body: string, problem: Problem = check): boolean {
  const e = envelope(status, body);
  if (!e) return false;
  const why = problem(e);
  if (why !== undefined) bad(status, body, why);
  return why === undefined;
}

/** A workload of one request per unit: `next` builds each request, `problem` checks each answer. */
function oneRequest(next: () => Request, problem: Problem = check): RequestSpec[] {
  return [
    {
      setupRequest: (_req, ctx) => {
        start(ctx);
        return next();
      },
      onResponse: (status, body, ctx) => {
        if (accepted(status, body, problem)) done(ctx);
      },
    },
  ];
}

const form = (params: Record<string, string>): Request => ({
  method: 'POST',
  path: '/validate/check',
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(params).toString(),
});

const keys = new Map<number, Buffer>();
function keyOf(g: UserGroup, i: number): Buffer {
  let k = keys.get(i);
  if (!k) {
    k = tokenKey(g.prefix, i);
    keys.set(i, k);
  }
  return k;
}

function requests(): RequestSpec[] {
  switch (w.kind) {
    case 'probe': {
      const req: Request = { method: 'GET', path: w.path, headers: {} };
      return oneRequest(() => req);
    }
    case 'static': {
      const g = w.group;
      let next = 0;
      return oneRequest(() => {
        const i = next++ % g.count;
        const pass = w.pass === 'pin' ? w.pin : staticPassword(g.prefix, i);
        return form({ user: groupUser(g, i), realm: g.realm, pass });
      });
    }
    case 'ldap-password': {
      const g = w.group;
      const users = Array.from({ length: g.count }, (_, i) => {
        const u = generatedUser(i + 1);
        if (u.uid !== groupUser(g, i)) throw new Error(`${groupUser(g, i)} is not slapd's ${u.uid}`);
        return { user: u.uid, realm: g.realm, pass: u.password };
      });
      let next = 0;
      return oneRequest(() => form(users[next++ % g.count]!));
    }
    case 'hotp': {
      const g = w.group;
      return oneRequest(() => {
        const s = seq++;
        const i = s % g.count;
        const otp = hotp(keyOf(g, i), Math.floor(s / g.count));
        return form({ user: groupUser(g, i), realm: g.realm, pass: `${w.pin}${otp}` });
      });
    }
    case 'hotp-wrong': {
      const g = w.group;
      // The tokens never succeed, so their counter stays 0: a value outside 0 … window+10 is wrong.
      const wrong: string[] = [];
      for (let i = 0; i < g.count; i++) {
        const key = keyOf(g, i);
        const window = new Set(Array.from({ length: w.window + 10 }, (_, c) => hotp(key, c)));
        let v = 100_000 + i;
        while (window.has(String(v))) v++;
        wrong.push(String(v));
      }
      let next = 0;
      return oneRequest(() => {
        const i = next++ % g.count;
        return form({ user: groupUser(g, i), realm: g.realm, pass: wrong[i]! });
      });
    }
    case 'challenge': {
      const g = w.group;
      return [
        {
          setupRequest: (_req, ctx) => {
            start(ctx);
            const s = seq++;
            const i = s % g.count;
            ctx.i = i;
            ctx.counter = Math.floor(s / g.count);
            ctx.tid = undefined;
            return form({ user: groupUser(g, i), realm: g.realm, pass: w.pin });
          },
          onResponse: (status, body, ctx) => {
            const e = envelope(status, body);
            if (!e) return;
            const tid = challengeOf(e);
            if (tid !== undefined) ctx.tid = tid;
            else bad(status, body, 'no challenge');
          },
        },
        {
          // Without a challenge the login starts over (autocannon goes back to the first request).
          setupRequest: (_req, ctx) => {
            if (typeof ctx.tid !== 'string') return undefined;
            const i = ctx.i as number;
            const otp = hotp(keyOf(g, i), ctx.counter as number);
            return form({ user: groupUser(g, i), realm: g.realm, transaction_id: ctx.tid, pass: otp });
          },
          onResponse: (status, body, ctx) => {
            if (accepted(status, body)) done(ctx);
          },
        },
      ];
    }
    case 'admin-auth': {
      const req = {
        method: 'POST',
        path: '/auth',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: w.username, password: w.password }).toString(),
      };
      return oneRequest(() => req);
    }
    case 'get': {
      const req = { method: 'GET', path: w.path, headers: { authorization: w.jwt } };
      return oneRequest(() => req);
    }
    case 'radius-hotp':
      throw new Error('RADIUS requests are not HTTP requests (radius-load.ts sends them)');
  }
}

/** The HTTP scenarios: autocannon with `connections` connections. */
function httpLoad(): Promise<Result> {
  return autocannon({
    url: plan.url,
    connections: plan.connections,
    duration: plan.warmupSeconds + plan.durationSeconds,
    timeout: 30,
    requests: requests(),
  } satisfies Options);
}

/** The RADIUS scenario: `connections` Access-Requests in flight, each answer checked. */
function radiusLoad(r: Extract<Workload, { kind: 'radius-hotp' }>): Promise<RadiusLoadCounts> {
  const g = r.group;
  return runRadiusLoad({
    host: r.host,
    port: r.port,
    secret: r.secret,
    lanes: plan.connections,
    durationMs: (plan.warmupSeconds + plan.durationSeconds) * 1000,
    timeoutMs: 30_000,
    next: () => {
      const s = seq++;
      const i = s % g.count;
      const otp = hotp(keyOf(g, i), Math.floor(s / g.count));
      return { userName: `${groupUser(g, i)}@${g.realm}`, password: `${r.pin}${otp}` };
    },
    started: () => {
      const ctx: Record<string, unknown> = {};
      start(ctx);
      return ctx.t0 as number;
    },
    answered: (t0, problem) => {
      current().responses++;
      if (problem === undefined) done({ t0 });
      else {
        current().unexpected++;
        if (samples.length < 5) samples.push(`RADIUS answer: ${problem}`);
      }
    },
  });
}

const began = performance.now();
measureFrom = began + plan.warmupSeconds * 1000;
// The parent samples the server (RSS, /healthz, LDAP operations) from the measured window on.
const mark = setTimeout(() => process.send?.({ event: 'measure' }), plan.warmupSeconds * 1000);
const r = await (w.kind === 'radius-hotp' ? radiusLoad(w).then((c) => ({ non2xx: 0, ...c })) : httpLoad());
clearTimeout(mark);
const ended = performance.now();
const result: DriverResult = {
  warmup: summary(warm, (Math.min(ended, measureFrom) - began) / 1000, undefined),
  measured: summary(meas, Math.max(0, ended - measureFrom) / 1000, r),
  seq,
  samples,
};
if (process.send) {
  process.send({ event: 'result', result }, () => process.disconnect());
} else process.stdout.write(`${JSON.stringify(result)}\n`);
