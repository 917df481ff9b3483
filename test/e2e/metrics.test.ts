// GET /metrics (docs/metrics.md) over HTTP: off by default (404 like any unknown path); on behind a
// bearer token on the API's port, or on a listener of its own; the exposition text parsed line by
// line, so that a broken format fails here, and the counts of real logins (accept, reject, a
// challenge, a lockout) read from it; with http.workers = 2 the primary's listener sums the workers.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStatsValue } from '../../src/core/monitoring/index.ts';
import { startMetricsListener } from '../../src/http/metrics.ts';
import {
  type Answer,
  BIN,
  type Cli,
  CREATED,
  callNode,
  cleanEnv,
  launch,
  stop,
} from '../helpers/authsrv-process.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { type Exposition, parseExposition, sampleValue, sumOf } from '../helpers/prometheus.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ok } from '../helpers/user-stores.ts';

/** RFC 4226 test seed ("12345678901234567890"). */
const KEY = '3132333435363738393031323334353637383930';
const TOKEN = 'metrics-scrape-token-0123456789abcdef';

describe('the test parser of the exposition format', () => {
  it('reads families, labels with escapes and special values, and refuses what breaks the format', () => {
    const e = parseExposition(
      '# HELP a_total Some help\n# TYPE a_total counter\na_total{x="1",y="q\\"\\\\\\n"} 3\n' +
        '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 0.5\nh_count 2\n# TYPE g gauge\ng NaN\n',
    );
    expect(e.types.get('h')).toBe('histogram');
    expect(sampleValue(e, 'a_total', { y: 'q"\\\n' })).toBe(3);
    expect(sampleValue(e, 'h_count')).toBe(2);
    expect(Number.isNaN(sampleValue(e, 'g'))).toBe(true);
    for (const bad of [
      'a_total 1\n', // no TYPE
      '# TYPE a counter\na{x=1} 1\n', // unquoted label value
      '# TYPE a counter\na 1 2 3\n', // trailing garbage
      '# TYPE a counter\na one\n', // not a number
      '# TYPE a counter\na 1', // no final newline
      '# TYPE a counter\na{x="1",x="2"} 1\n', // a label twice
    ])
      expect(() => parseExposition(bad), bad).toThrow();
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(testDialects())('GET /metrics on %s', (dialect) => {
  let home: string;
  let tokenFile: string;

  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-metrics-'));
    tokenFile = join(home, 'metrics-token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  describe('off (the default)', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer({ dialect });
    });
    afterAll(() => s?.close());

    it('answers /metrics as any unknown path, also with the token', async () => {
      const unknown = await s.call('GET', '/no-such-path');
      const metrics = await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(metrics.status).toBe(404);
      expect(metrics.status).toBe(unknown.status);
      expect(await metrics.text()).toBe(unknown.text);
    });
  });

  describe('on, behind a bearer token on the API port', () => {
    let s: TestServer;
    let admin: string;
    const scrape = async (): Promise<Exposition> => {
      const r = await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      return parseExposition(await r.text());
    };
    const check = async (serial: string, pass: string) =>
      ok(await s.call('POST', '/validate/check', { serial, pass }));

    beforeAll(async () => {
      s = await startTestServer({
        dialect,
        config: { 'metrics.enabled': 'true', 'metrics.token_file': tokenFile },
      });
      admin = await s.adminToken();
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'hotp', serial: 'MET1', otpkey: KEY, pin: 'pin1' },
          admin,
        ),
      );
      ok(
        await s.call(
          'POST',
          '/token/init',
          { type: 'hotp', serial: 'MET2', otpkey: KEY, pin: 'pin2' },
          admin,
        ),
      );
      ok(await s.call('POST', '/token/set', { serial: 'MET2', max_failcount: '2' }, admin));
      ok(
        await s.call(
          'POST',
          '/policy/cr',
          { scope: 'authentication', action: 'challenge_response=hotp', active: 'true' },
          admin,
        ),
      );
    });
    afterAll(() => s?.close());

    it('refuses a scrape without the token or with a wrong one (401), and other methods (405)', async () => {
      for (const authorization of [undefined, 'Bearer wrong-token-0123456789', TOKEN, `Basic ${TOKEN}`]) {
        const r = await fetch(`${s.url}/metrics`, {
          headers: authorization ? { Authorization: authorization } : {},
        });
        expect(r.status, String(authorization)).toBe(401);
        expect(r.headers.get('www-authenticate')).toMatch(/^Bearer /);
        expect(await r.text()).not.toContain('authsrv_');
      }
      const post = await fetch(`${s.url}/metrics`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}` },
      });
      expect(post.status).toBe(405);
    });

    it('counts logins by answer and token type, the lockout and the challenge', async () => {
      const before = await scrape();
      expect(before.types.get('authsrv_logins_total')).toBe('counter');
      expect(sumOf(before, 'authsrv_logins_total')).toBe(0);

      expect(await check('MET1', `pin1${hotp(KEY, 0)}`)).toBe(true); // accept
      expect(await check('MET1', 'pin1000000')).toBe(false); // reject
      const challenge = await s.call('POST', '/validate/check', { serial: 'MET1', pass: 'pin1' });
      expect(challenge.json.result.authentication).toBe('CHALLENGE');
      // MET2 reaches its max_failcount of 2: one lockout, then a locked reject.
      for (let i = 0; i < 3; i++) expect(await check('MET2', 'pin2000000')).toBe(false);
      const unknown = await s.call('POST', '/validate/check', { serial: 'NOSUCH', pass: 'x' });
      expect(unknown.json.result.status).toBe(false); // an error answer
      const malformed = await s.call('POST', '/validate/check', { pass: 'x' });
      expect(malformed.json.result.status).toBe(false); // neither user nor serial: an error answer too

      const e = await scrape();
      expect(sampleValue(e, 'authsrv_logins_total', { result: 'accept', token_type: 'hotp' })).toBe(1);
      expect(sampleValue(e, 'authsrv_logins_total', { result: 'reject', token_type: 'hotp' })).toBe(4);
      expect(sampleValue(e, 'authsrv_logins_total', { result: 'challenge', token_type: 'hotp' })).toBe(1);
      expect(sampleValue(e, 'authsrv_logins_total', { result: 'error', token_type: 'none' })).toBe(2);
      expect(sumOf(e, 'authsrv_logins_total')).toBe(8);
      expect(e.types.get('authsrv_token_lockouts_total')).toBe('counter');
      expect(sampleValue(e, 'authsrv_token_lockouts_total', { token_type: 'hotp' })).toBe(1);
      expect(e.types.get('authsrv_challenges_total')).toBe('counter');
      expect(sampleValue(e, 'authsrv_challenges_total', { token_type: 'hotp' })).toBe(1);
    });

    it('has latency histograms by route template, method and status class; raw paths never', async () => {
      ok(await s.call('GET', '/token/', { serial: 'MET1' }, admin));
      ok(await s.call('POST', '/token/disable/MET1', {}, admin));
      ok(await s.call('POST', '/token/enable/MET1', {}, admin));
      await s.call('GET', '/no-such-path-4711');
      const e = await scrape();
      expect(e.types.get('authsrv_http_request_duration_seconds')).toBe('histogram');
      const checks = { route: '/validate/check', method: 'POST', status_class: '2xx' };
      expect(sampleValue(e, 'authsrv_http_request_duration_seconds_count', checks)).toBe(8);
      expect(sampleValue(e, 'authsrv_http_request_duration_seconds_bucket', { ...checks, le: '+Inf' })).toBe(
        8,
      );
      expect(sampleValue(e, 'authsrv_http_request_duration_seconds_sum', checks)).toBeGreaterThan(0);
      const routes = new Set(
        e.samples
          .filter((x) => x.name.startsWith('authsrv_http_request_duration'))
          .map((x) => x.labels.route),
      );
      expect(routes).toContain('/token');
      expect(routes).toContain('unmatched');
      expect(routes).toContain('/token/disable/:serial');
      expect(routes).toContain('/policy/:name');
      for (const r of routes) expect(r).not.toMatch(/MET1|4711/);
      // The scrapes themselves are not measured.
      expect(routes).not.toContain('/metrics');
    });

    it('has the process metrics and the stats gauge: the monitoring keys and a registered source', async () => {
      await writeStatsValue(s.rt, 'token_count', 1, { at: new Date('2026-01-01T00:00:00Z') });
      await writeStatsValue(s.rt, 'token_count', 2, { at: new Date('2026-01-02T00:00:00Z') });
      s.rt.metrics.addStatsSource(async () => [['failed "logins"', 7]]);
      const e = await scrape();
      expect(e.types.get('process_cpu_user_seconds_total')).toBe('counter');
      expect(sampleValue(e, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
      expect(sampleValue(e, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(e.types.get('authsrv_stats_last_value')).toBe('gauge');
      expect(sampleValue(e, 'authsrv_stats_last_value', { key: 'token_count' })).toBe(2);
      expect(sampleValue(e, 'authsrv_stats_last_value', { key: 'failed "logins"' })).toBe(7);
    });

    it('writes no audit row for a scrape', async () => {
      await scrape();
      const rows = ok(await s.call('GET', '/audit/', { page_size: '500' }, admin)).auditdata as {
        action: string;
      }[];
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.some((r) => r.action.includes('metrics'))).toBe(false);
    });
  });

  describe('on, with the brute-force throttling', () => {
    let s: TestServer;
    beforeAll(async () => {
      s = await startTestServer({
        dialect,
        config: {
          'metrics.enabled': 'true',
          'metrics.token_file': tokenFile,
          'throttle.enabled': 'true',
          'throttle.free_failures': '0',
          'throttle.base_delay': '1h',
          'throttle.max_delay': '1h',
        },
      });
      const admin = await s.adminToken();
      ok(await s.call('POST', '/token/init', { type: 'spass', serial: 'THR1', pin: 'right' }, admin));
    });
    afterAll(() => s?.close());

    it('counts a refused attempt as throttled', async () => {
      expect(ok(await s.call('POST', '/validate/check', { serial: 'THR1', pass: 'wrong' }))).toBe(false);
      const refused = await s.call('POST', '/validate/check', { serial: 'THR1', pass: 'right' });
      expect(refused.status).toBe(429);
      const r = await fetch(`${s.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const e = parseExposition(await r.text());
      expect(sampleValue(e, 'authsrv_logins_total', { result: 'reject', token_type: 'spass' })).toBe(1);
      expect(sampleValue(e, 'authsrv_logins_total', { result: 'throttled', token_type: 'none' })).toBe(1);
      expect(sumOf(e, 'authsrv_logins_total')).toBe(2);
    });
  });

  describe('on, on a listener of its own (metrics.listen)', () => {
    let s: TestServer;
    let listener: { url: string; close(): Promise<void> };
    beforeAll(async () => {
      s = await startTestServer({
        dialect,
        config: { 'metrics.enabled': 'true', 'metrics.listen': '127.0.0.1:0' },
      });
      listener = await startMetricsListener(s.rt, () => s.rt.metrics.exposition());
    });
    afterAll(async () => {
      await listener?.close();
      await s?.close();
    });

    it('serves /metrics there only: the API port answers 404, the listener nothing but /metrics', async () => {
      const failed = await s.call('POST', '/validate/check', { serial: 'NONE', pass: 'x' });
      expect(failed.json.result.status).toBe(false);
      expect((await fetch(`${s.url}/metrics`)).status).toBe(404);
      const base = listener.url.replace(/\/metrics$/, '');
      expect((await fetch(`${base}/`)).status).toBe(404);
      expect((await fetch(`${base}/validate/check`)).status).toBe(404);
      const r = await fetch(listener.url);
      expect(r.status).toBe(200);
      const e = parseExposition(await r.text());
      expect(sampleValue(e, 'authsrv_logins_total', { result: 'error', token_type: 'none' })).toBe(1);
    });
  });
});

// ---------------------------------------------------------------------------------------------

describe('authsrv serve with metrics.enabled', () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-metrics-refused-'));
    writeFileSync(join(home, 'token'), `${TOKEN}\n`, { mode: 0o600 });
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it('refuses to start with a missing token file, naming it; other commands do not read it', async () => {
    const env = {
      AUTHSRV_DATA_DIR: join(home, 'data'),
      AUTHSRV_HTTP_PORT: '0',
      AUTHSRV_METRICS_ENABLED: 'true',
      AUTHSRV_METRICS_TOKEN_FILE: join(home, 'missing-token'),
    };
    const serve = launch(['serve'], env, home);
    expect((await serve.exited).code).not.toBe(0);
    expect(serve.output().stderr).toContain('metrics.token_file');
    expect(serve.output().stderr).toContain(join(home, 'missing-token'));
    const status = spawnSync(process.execPath, [BIN, 'status'], {
      cwd: home,
      env: cleanEnv(env),
      encoding: 'utf8',
    });
    expect(status.stderr).toBe('');
    expect(status.status).toBe(0);
  });

  it('refuses to start with http.workers = 2 without metrics.listen, naming the key', async () => {
    const cli = launch(
      ['serve'],
      {
        AUTHSRV_DATA_DIR: join(home, 'data'),
        AUTHSRV_HTTP_PORT: '0',
        AUTHSRV_HTTP_WORKERS: '2',
        AUTHSRV_METRICS_ENABLED: 'true',
        AUTHSRV_METRICS_TOKEN_FILE: join(home, 'token'),
      },
      home,
    );
    const { code } = await cli.exited;
    expect(code).not.toBe(0);
    expect(cli.output().stderr).toMatch(/metrics\.enabled with http\.workers = 2 needs metrics\.listen/);
    expect(cli.output().stdout).not.toMatch(/listening on/);
  });
});

const LISTENING = /^authsrv (\S+) listening on (https?:\/\/\S+) \(.*\b(\d+) worker processes\)/m;
const METRICS_AT = /^metrics on (http:\/\/\S+)$/m;

describe('authsrv serve with http.workers = 2 and metrics.listen', () => {
  let home: string;
  let cli: Cli;
  let url: string;
  let metricsUrl: string;
  let admin: string;

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'authsrv-metrics-workers-'));
    cli = launch(
      ['serve'],
      {
        AUTHSRV_DATA_DIR: join(home, 'data'),
        AUTHSRV_HTTP_PORT: '0',
        AUTHSRV_HTTP_WORKERS: '2',
        AUTHSRV_METRICS_ENABLED: 'true',
        AUTHSRV_METRICS_LISTEN: '127.0.0.1:0',
      },
      home,
    );
    const password = (await cli.waitFor(CREATED))[1]!;
    metricsUrl = (await cli.waitFor(METRICS_AT))[1]!;
    url = (await cli.waitFor(LISTENING))[2]!;
    const answer = (r: Answer) => {
      if (r.status !== 200) throw new Error(r.text);
      return r.json.result.value;
    };
    admin = answer(await callNode(url, 'POST', '/auth', { username: 'admin', password })).token;
    answer(await callNode(url, 'POST', '/token/init', { type: 'hotp', serial: 'W1', otpkey: KEY }, admin));
    answer(await callNode(url, 'POST', '/token/set', { serial: 'W1', max_failcount: '1000' }, admin));
  }, 60_000);
  afterAll(async () => {
    if (cli) await stop(cli);
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('sums the logins of both workers in the primary', async () => {
    // Each request on a new connection: the cluster hands connections to the workers in turn.
    for (let i = 0; i < 20; i++) {
      const r = await callNode(url, 'POST', '/validate/check', { serial: 'W1', pass: '000000' });
      expect(r.json.result.value).toBe(false);
    }
    // Both workers answered some of them (the audit's thread_id is one per process).
    const rows = (
      await callNode(url, 'GET', '/audit/', { action: 'POST /validate/check', page_size: '100' }, admin)
    ).json.result.value.auditdata as { thread_id: string }[];
    expect(rows).toHaveLength(20);
    expect(new Set(rows.map((row) => row.thread_id)).size).toBe(2);
    const r = await fetch(metricsUrl);
    expect(r.status).toBe(200);
    const e = parseExposition(await r.text());
    expect(sampleValue(e, 'authsrv_logins_total', { result: 'reject', token_type: 'hotp' })).toBe(20);
    expect(
      sampleValue(e, 'authsrv_http_request_duration_seconds_count', {
        route: '/validate/check',
        method: 'POST',
        status_class: '2xx',
      }),
    ).toBe(20);
    expect(sampleValue(e, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    // The API's port does not serve them.
    expect((await callNode(url, 'GET', '/metrics', {})).status).toBe(404);
  });
});
