// The driver's answer checks (scripts/bench/answers.ts) with crafted answers, and the real driver
// process (scripts/bench/driver.ts, autocannon) against a fake server whose answers are wrong: the
// run must be judged failed (report.ts) instead of yielding a rate.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  answerProblem,
  challengeOf,
  checkEnvelope,
  newWindow,
  notAccepted,
  percentile,
  problemOf,
  summary,
} from '../../../scripts/bench/answers.ts';
import type { DriverPlan, DriverResult, UserGroup, Workload } from '../../../scripts/bench/plan.ts';
import { judge } from '../../../scripts/bench/report.ts';
import { run } from '../../helpers/run.ts';

const SIG = 'rsa_sha256_pss:abcdef';
const group: UserGroup = { prefix: 'pw', width: 5, count: 4, realm: 'bench' };
const body = (result: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id: 1, jsonrpc: '2.0', result, ...extra });
const accept = body(
  { status: true, value: true, authentication: 'ACCEPT' },
  { detail: { message: 'matching 1 tokens' } },
);

describe('the envelope of every answer', () => {
  it('accepts HTTP 200, JSON, result.status true, unsigned when signing is off', () => {
    expect(checkEnvelope(200, accept, false)).toEqual({ envelope: JSON.parse(accept) });
  });

  it('accepts a signed answer when signing is on', () => {
    const signed = body({ status: true, value: true }, { signature: SIG });
    expect(checkEnvelope(200, signed, true)).toHaveProperty('envelope');
  });

  it.each([
    ['a non-200 status', 500, accept, false, 'status'],
    ['a 201', 201, accept, false, 'status'],
    ['a 401 with a valid envelope', 401, accept, false, 'status'],
    ['a body that is not JSON', 200, '<html>502</html>', false, 'not JSON'],
    ['result.status false', 200, body({ status: false, error: { code: 904 } }), false, 'result.status'],
    ['no result', 200, '{}', false, 'result.status'],
    ['no signature when signing is on', 200, accept, true, 'no signature'],
    [
      'a signature of another kind',
      200,
      body({ status: true }, { signature: 'rsa_sha256:1' }),
      true,
      'no signature',
    ],
    [
      'a signature when signing is off',
      200,
      body({ status: true }, { signature: SIG }),
      false,
      'unexpected signature',
    ],
    [
      'any signature field when signing is off',
      200,
      body({ status: true }, { signature: '' }),
      false,
      'unexpected signature',
    ],
  ])('rejects %s', (_what, status, text, signed, why) => {
    expect(checkEnvelope(status, text, signed)).toEqual({ why });
  });
});

describe('the answer each workload intends', () => {
  const check = (w: Workload, status: number, text: string, signed = false) =>
    answerProblem(status, text, signed, problemOf(w));
  const staticW: Workload = { kind: 'static', group, pass: 'pw', pin: '' };

  it('logins: value true and ACCEPT', () => {
    for (const w of [
      staticW,
      { kind: 'hotp', group, pin: '', seq: 0 },
      { kind: 'ldap-password', group },
      { kind: 'challenge', group, pin: '4711', seq: 0 },
    ] satisfies Workload[]) {
      expect(check(w, 200, accept)).toBeUndefined();
      expect(check(w, 200, body({ status: true, value: false, authentication: 'REJECT' }))).toBe(
        'not accepted',
      );
      // value true without ACCEPT, ACCEPT without value true
      expect(check(w, 200, body({ status: true, value: true }))).toBe('not accepted');
      expect(check(w, 200, body({ status: true, value: 'true', authentication: 'ACCEPT' }))).toBe(
        'not accepted',
      );
      expect(check(w, 500, accept)).toBe('status');
    }
    expect(notAccepted({ result: { status: true, value: true, authentication: 'CHALLENGE' } })).toBe(
      'not accepted',
    );
  });

  it('probe: {"status": "OK"}', () => {
    const w: Workload = { kind: 'probe', path: '/healthz/livez' };
    expect(check(w, 200, body({ status: true, value: { status: 'OK' } }))).toBeUndefined();
    expect(check(w, 200, body({ status: true, value: { status: 'DOWN' } }))).toBe('not {"status": "OK"}');
    expect(check(w, 200, body({ status: true, value: true }))).toBe('not {"status": "OK"}');
    expect(check(w, 503, body({ status: true, value: { status: 'OK' } }))).toBe('status');
  });

  it('hotp-wrong: rejected with "wrong otp value", and nothing else', () => {
    const w: Workload = { kind: 'hotp-wrong', group, window: 10 };
    const reject = (message: string) =>
      body({ status: true, value: false, authentication: 'REJECT' }, { detail: { message } });
    expect(check(w, 200, reject('wrong otp value'))).toBeUndefined();
    const why = 'not rejected with "wrong otp value"';
    // an accepted login is wrong here, as is a rejection for another reason (locked token, no user…)
    expect(check(w, 200, accept)).toBe(why);
    expect(check(w, 200, reject('Failcounter exceeded'))).toBe(why);
    expect(check(w, 200, reject('The user does not exist'))).toBe(why);
    expect(check(w, 200, body({ status: true, value: false, authentication: 'CHALLENGE' }))).toBe(why);
  });

  it('admin-auth: a token', () => {
    const w: Workload = { kind: 'admin-auth', username: 'admin', password: 'x' };
    expect(check(w, 200, body({ status: true, value: { token: 'eyJ', role: 'admin' } }))).toBeUndefined();
    expect(check(w, 200, body({ status: true, value: { role: 'admin' } }))).toBe('no token');
    expect(check(w, 200, body({ status: true, value: { token: 42 } }))).toBe('no token');
    expect(check(w, 401, body({ status: false }))).toBe('status');
  });

  it('get: a non-empty list and a total count of at least minCount', () => {
    const w: Workload = { kind: 'get', path: '/token/?page=1', jwt: 'j', list: 'tokens', minCount: 100 };
    const page = (tokens: unknown[], count: unknown) => body({ status: true, value: { tokens, count } });
    expect(check(w, 200, page([{ serial: 'A' }], 100))).toBeUndefined();
    expect(check(w, 200, page([{ serial: 'A' }], 250))).toBeUndefined();
    const why = 'no tokens or count below 100';
    expect(check(w, 200, page([{ serial: 'A' }], 99))).toBe(why);
    expect(check(w, 200, page([], 100))).toBe(why);
    expect(check(w, 200, page([{ serial: 'A' }], undefined))).toBe(why);
    expect(check(w, 200, body({ status: true, value: { auditdata: [{}], count: 1000 } }))).toBe(why);
  });

  it('challenge: the first answer must be a challenge with a transaction id', () => {
    const tid = (result: unknown, detail: unknown) =>
      challengeOf({ result, detail } as Parameters<typeof challengeOf>[0]);
    expect(tid({ status: true, value: false, authentication: 'CHALLENGE' }, { transaction_id: '123' })).toBe(
      '123',
    );
    expect(tid({ status: true, value: false, authentication: 'CHALLENGE' }, {})).toBeUndefined();
    expect(
      tid({ status: true, value: false, authentication: 'REJECT' }, { transaction_id: '1' }),
    ).toBeUndefined();
    expect(
      tid({ status: true, value: true, authentication: 'ACCEPT' }, { transaction_id: '1' }),
    ).toBeUndefined();
    expect(tid({ status: true, value: false, authentication: 'CHALLENGE' }, null)).toBeUndefined();
  });
});

describe('the sums of a window', () => {
  it('percentiles', () => {
    expect(percentile([], 50)).toBe(0);
    expect(percentile([5], 99)).toBe(5);
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(51);
    expect(percentile(sorted, 99)).toBe(100);
  });

  it('summary: the window and autocannon counts', () => {
    const win = { ...newWindow(), started: 4, responses: 3, good: 2, unexpected: 1, latencies: [9, 1, 5] };
    expect(summary(win, 2, { non2xx: 1, errors: 2, timeouts: 3 })).toEqual({
      seconds: 2,
      started: 4,
      requests: 3,
      good: 2,
      unexpected: 1,
      non2xx: 1,
      errors: 2,
      timeouts: 3,
      p50: 5,
      p99: 9,
    });
    expect(summary(newWindow(), 1, undefined)).toMatchObject({ good: 0, non2xx: 0, errors: 0, p50: 0 });
  });
});

// --- the driver process against a fake server --------------------------------------------------------

const DRIVER = resolve(import.meta.dirname, '../../../scripts/bench/driver.ts');

describe('the driver against a fake server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'authsrv-bench-driver-'));
  let answer: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (d: string) => {
      text += d;
    });
    req.on('end', () => {
      if (seen.length < 20) seen.push(`${req.method} ${req.url} ${text}`);
      answer(req, res);
    });
  });
  const json = (status: number, text: string) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(text);
  };
  let url = '';

  beforeAll(async () => {
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((done) => server.close(done));
    rmSync(dir, { recursive: true, force: true });
  });

  /** One driver run (0.3 s warm-up + 0.7 s measured, 2 connections); its DriverResult. */
  async function drive(signed: boolean): Promise<DriverResult> {
    seen.length = 0;
    const plan: DriverPlan = {
      url,
      connections: 2,
      warmupSeconds: 0.3,
      durationSeconds: 0.7,
      signed,
      workload: { kind: 'static', group, pass: 'pw', pin: '' },
    };
    const file = join(dir, 'plan.json');
    writeFileSync(file, JSON.stringify(plan));
    // Asynchronous: the fake server answers from this process meanwhile.
    const r = await run(process.execPath, [DRIVER, file]);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout.trim()) as DriverResult;
  }

  it('counts accepted logins as good: the run passes', async () => {
    answer = json(200, accept);
    const r = await drive(false);
    expect(r.measured.good).toBeGreaterThan(0);
    expect(r.measured.unexpected + r.measured.non2xx + r.warmup.unexpected).toBe(0);
    expect(r.samples).toEqual([]);
    expect(judge(r)).toBeUndefined();
    // It asked /validate/check with the users of the group and their static passwords.
    expect(seen[0]).toMatch(/^POST \/validate\/check user=pw00001&realm=bench&pass=[0-9a-f]{12}$/);
  });

  it('value false (REJECT) answers: the run fails, nothing counted as good', async () => {
    answer = json(200, body({ status: true, value: false, authentication: 'REJECT' }));
    const r = await drive(false);
    expect(r.measured.good).toBe(0);
    expect(r.measured.unexpected).toBeGreaterThan(0);
    expect(r.samples[0]).toMatch(/^not accepted: HTTP 200 \{"id":1/);
    const failure = judge(r);
    expect(failure).toMatch(/measured: \d+ unexpected answers, 0 non-2xx/);
    expect(failure).toMatch(/measured: nothing succeeded as intended/);
    expect(failure).toMatch(/e\.g\. not accepted/);
  });

  it('HTTP 500 answers: counted as non-2xx and unexpected, the run fails', async () => {
    answer = json(500, body({ status: false, error: { message: 'boom' } }));
    const r = await drive(false);
    expect(r.measured.good).toBe(0);
    expect(r.measured.non2xx).toBeGreaterThan(0);
    expect(r.samples[0]).toMatch(/^status: HTTP 500/);
    expect(judge(r)).toMatch(/non-2xx/);
  });

  it('unsigned answers while signing is on: the run fails', async () => {
    answer = json(200, accept);
    const r = await drive(true);
    expect(r.measured.good).toBe(0);
    expect(r.samples[0]).toMatch(/^no signature: HTTP 200/);
    expect(judge(r)).toMatch(/unexpected answers/);
  });
});
