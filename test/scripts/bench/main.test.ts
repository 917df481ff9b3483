// The real benchmark (scripts/bench/main.ts), briefly: server start, fixtures, the driver process, the
// table and the results file; then once with the server's answers made wrong, which must fail loudly.
// Short runs at 2 connections on SQLite, the results file in a temporary directory (--results-dir).
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../helpers/run.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const MAIN = join(ROOT, 'scripts/bench/main.ts');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function bench(args: string[], env: Record<string, string> = {}): Promise<Run> {
  // No BENCH_* or AUTHSRV_* of the caller's shell may change the run.
  const clean: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('BENCH_') && !k.startsWith('AUTHSRV_')) clean[k] = v;
  }
  const r = await run(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...clean, ...env } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The table's rows (after the two header lines) as cells. */
function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => l.startsWith('| '))
    .slice(1)
    .map((l) =>
      l
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    );
}

describe('npm run bench, briefly', () => {
  const base = mkdtempSync(join(tmpdir(), 'authsrv-bench-e2e-'));
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  const QUICK = ['--quick', '--db', 'sqlite', '--duration', '1', '--warmup', '1'];

  it('runs scenarios 0, 1 and 1p: table rows with rates, results file, exit code 0', {
    timeout: 120_000,
  }, async () => {
    const results = join(base, 'results');
    const t0 = performance.now();
    const run = await bench([...QUICK, '--signing', 'on', '--only', '0,1', '--connections', '2'], {
      BENCH_RESULTS_DIR: results,
    });
    const seconds = (performance.now() - t0) / 1000;
    process.stderr.write(`bench e2e: ${seconds.toFixed(1)} s\n`);
    const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    expect(run.stderr).not.toContain('BENCHMARK FAILED');

    const rows = tableRows(run.stdout);
    expect(
      rows.map((r) => r[0]!.split(' ')[0]),
      output,
    ).toEqual(['0', '1', '1p']);
    for (const [scenario, db, signing, rate, p50, p99, cpu, rss] of rows) {
      expect([db, signing], scenario).toEqual(['sqlite', 'on']);
      const m = /^(\d+) (req\/s|logins\/s)$/.exec(rate!);
      expect(m, `${scenario}: ${rate}`).not.toBeNull();
      expect(Number(m![1]), scenario).toBeGreaterThan(0);
      for (const n of [p50, p99, cpu, rss]) expect(n, scenario).toMatch(/^\d+(\.\d+)?$/);
    }
    expect(rows[2]![8]).toMatch(/^\d+% of hash bound \(\d+\/s measured just before\); /);
    expect(run.stdout).toMatch(/PIN hash bound: .* ms per hash alone .* lanes hashing at once did \d+\/s/);

    // The results file: in the directory asked for, with every run as intended.
    const file = /^Results: (.+\.json)$/m.exec(run.stdout)?.[1];
    expect(file, output).toBeDefined();
    expect(resolve(file!).startsWith(results)).toBe(true);
    expect(readdirSync(results)).toEqual([file!.slice(results.length + 1)]);
    const json = JSON.parse(readFileSync(file!, 'utf8')) as {
      options: { dbs: string[]; signing: boolean[]; durationSeconds: number; connections: number };
      hashBound: { msPerHash: number; perSecond: number };
      results: {
        scenario: string;
        ok: boolean;
        rate: number;
        hashBound?: number;
        measured: { good: number; unexpected: number };
      }[];
    };
    expect(json.options).toMatchObject({
      dbs: ['sqlite'],
      signing: [true],
      durationSeconds: 1,
      connections: 2,
    });
    expect(json.results.map((r) => [r.scenario, r.ok])).toEqual([
      ['0', true],
      ['1', true],
      ['1p', true],
    ]);
    // The bound at the start, and 1p's own, measured just before its run.
    expect(json.hashBound.msPerHash).toBeGreaterThan(0);
    expect(json.hashBound.perSecond).toBeGreaterThan(0);
    expect(json.results.map((r) => r.hashBound !== undefined)).toEqual([false, false, true]);
    expect(json.results[2]!.hashBound).toBeGreaterThan(0);
    for (const r of json.results) {
      expect(r.rate).toBeGreaterThan(0);
      expect(r.measured.good).toBeGreaterThan(0);
      expect(r.measured.unexpected).toBe(0);
    }
    expect(seconds).toBeLessThan(90);
  });

  it('runs scenario 8: logins alone, then beside e-mail challenges hanging on a silent SMTP server', {
    timeout: 120_000,
  }, async () => {
    const results = join(base, 'results-8');
    const run = await bench([...QUICK, '--signing', 'off', '--only', '8', '--connections', '2'], {
      BENCH_RESULTS_DIR: results,
    });
    const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    const rows = tableRows(run.stdout);
    expect(rows, output).toHaveLength(1);
    const [scenario, db, signing, rate, p50, p99, , , note] = rows[0]!;
    expect(scenario).toBe('8 /validate/check HOTP while e-mail challenges hang on a silent SMTP server');
    expect([db, signing]).toEqual(['sqlite', 'off']);
    expect(rate).toMatch(/^\d+ logins\/s$/);
    for (const n of [p50, p99]) expect(n).toMatch(/^\d+(\.\d+)?$/);
    expect(note).toMatch(
      /^without the hanging sender \d+ logins\/s, p50 [\d.]+ ms, p99 [\d.]+ ms, server CPU [\d.]+ ms per unit; with it: 16 e-mail challenges in flight \(SMTP timeout 2 s\), (\d+) of \1 answered "could not be sent" after [\d.]+–[\d.]+ s \(p50 [\d.]+ s\), \1 SMTP connections left unanswered$/,
    );

    const file = /^Results: (.+\.json)$/m.exec(run.stdout)?.[1];
    const json = JSON.parse(readFileSync(file!, 'utf8')) as {
      results: {
        scenario: string;
        ok: boolean;
        measured: { good: number; unexpected: number };
        alone: { rate: number; measured: { good: number; unexpected: number } };
        mail: {
          requests: number;
          notSent: number;
          other: number;
          smtpConnections: number;
          smtpTimeoutSeconds: number;
        };
      }[];
    };
    const [r] = json.results;
    expect(json.results).toHaveLength(1);
    expect(r!.ok).toBe(true);
    // Both phases logged users in, every answer as intended.
    for (const p of [r!.measured, r!.alone.measured]) {
      expect(p.good).toBeGreaterThan(0);
      expect(p.unexpected).toBe(0);
    }
    // Every challenge request reached the silent server and was answered "could not be sent".
    expect(r!.mail.notSent).toBeGreaterThan(0);
    expect(r!.mail).toMatchObject({ other: 0, requests: r!.mail.notSent, smtpTimeoutSeconds: 2 });
    expect(r!.mail.smtpConnections).toBe(r!.mail.requests);
  });

  it('runs scenario R: RADIUS logins over UDP, once although both signing modes are asked for', {
    timeout: 120_000,
  }, async () => {
    const run = await bench([...QUICK, '--signing', 'on,off', '--only', 'R', '--connections', '2'], {
      BENCH_RESULTS_DIR: join(base, 'results-R'),
    });
    const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    const rows = tableRows(run.stdout);
    expect(rows, output).toHaveLength(1);
    const [scenario, db, signing, rate, p50, p99, cpu, , note] = rows[0]!;
    expect(scenario).toBe('R RADIUS Access-Request PAP, HOTP, no PIN');
    expect([db, signing]).toEqual(['sqlite', 'n/a']);
    expect(rate).toMatch(/^[1-9]\d* logins\/s$/);
    for (const n of [p50, p99, cpu]) expect(n).toMatch(/^\d+(\.\d+)?$/);
    expect(note).toBe('UDP, 2 requests in flight; no response signature on this path, run once per database');
    const file = /^Results: (.+\.json)$/m.exec(run.stdout)?.[1];
    const json = JSON.parse(readFileSync(file!, 'utf8')) as {
      results: { ok: boolean; measured: { good: number; unexpected: number; timeouts: number } }[];
    };
    expect(json.results).toHaveLength(1);
    expect(json.results[0]!.ok).toBe(true);
    expect(json.results[0]!.measured).toMatchObject({ unexpected: 0, timeouts: 0 });
    expect(json.results[0]!.measured.good).toBeGreaterThan(0);
  });

  it('runs scenario 9: every login posts the webhook of its event definition to the listener', {
    timeout: 120_000,
  }, async () => {
    const run = await bench([...QUICK, '--signing', 'off', '--only', '9', '--connections', '2'], {
      BENCH_RESULTS_DIR: join(base, 'results-9'),
    });
    const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, output).toBe(0);
    const rows = tableRows(run.stdout);
    expect(rows, output).toHaveLength(1);
    const [scenario, , , rate, , , , , note] = rows[0]!;
    expect(scenario).toBe('9 /validate/check HOTP with one WebHook event definition (post validate_check)');
    expect(rate).toMatch(/^\d+ logins\/s$/);
    const counts = /^(\d+) webhook POSTs received for (\d+) logins in the measured window$/.exec(note!);
    expect(counts, output).not.toBeNull();
    // The handler is awaited inside each check: every login of the window posted once (a login
    // in flight at the window's start may add one).
    expect(Number(counts![2])).toBeGreaterThan(0);
    expect(Number(counts![1])).toBeGreaterThanOrEqual(Number(counts![2]));
    expect(Number(counts![1])).toBeLessThanOrEqual(Number(counts![2]) + 2);
  });

  it('fails loudly when the server answers wrongly: **FAILED** row, banner, exit code 1', {
    timeout: 120_000,
  }, async () => {
    // A preload for the server process (BENCH_SERVER_NODE_ARGS) that turns the probe's "OK" into
    // "KO" (the same length: Content-Length stays right; the envelope is serialised like Python's
    // json.dumps, "status": "OK"): an answer the driver must not count.
    const preload = join(base, 'wrong-answers.mjs');
    writeFileSync(
      preload,
      `import http from 'node:http';
const end = http.ServerResponse.prototype.end;
http.ServerResponse.prototype.end = function (chunk, ...rest) {
  if (chunk !== undefined && typeof chunk !== 'function') {
    const text = Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    if (/"status": ?"OK"/.test(text)) {
      const wrong = text.replace(/"status": ?"OK"/, (m) => m.replace('OK', 'KO'));
      chunk = Buffer.isBuffer(chunk) ? Buffer.from(wrong, 'utf8') : wrong;
    }
  }
  return end.call(this, chunk, ...rest);
};
`,
    );
    const results = join(base, 'results-wrong');
    const run = await bench([...QUICK, '--signing', 'off', '--only', '0', '--connections', '1'], {
      BENCH_RESULTS_DIR: results,
      BENCH_SERVER_NODE_ARGS: `--import=${pathToFileURL(preload).href}`,
    });
    const output = `stdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.code, output).toBe(1);
    const rows = tableRows(run.stdout);
    expect(rows, output).toHaveLength(1);
    expect(rows[0]![0]).toMatch(/^0 GET \/healthz\/livez/);
    expect(rows[0]![3]).toBe('**FAILED**');
    expect(rows[0]![8]).toMatch(/unexpected answers/);
    expect(run.stdout).not.toMatch(/\d req\/s/);
    expect(run.stderr).toContain('BENCHMARK FAILED: 1 run(s) did not succeed as intended');
    expect(run.stderr).toMatch(/not \{"status": "OK"\}: HTTP 200 .*"status": ?"KO"/);
    // The results file is written all the same, with the failure.
    const file = /^Results: (.+\.json)$/m.exec(run.stdout)?.[1];
    expect(file && existsSync(file) && resolve(file).startsWith(results), output).toBe(true);
    const json = JSON.parse(readFileSync(file!, 'utf8')) as { results: { ok: boolean; failure: string }[] };
    expect(json.results).toHaveLength(1);
    expect(json.results[0]!.ok).toBe(false);
    expect(json.results[0]!.failure).toMatch(/measured: nothing succeeded as intended/);
  });
});
