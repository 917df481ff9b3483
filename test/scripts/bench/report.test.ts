// The benchmark's verdicts (scripts/bench/report.ts): a run whose answers were not as intended must
// end as a **FAILED** row and exit code 1, never as a rate.
import { describe, expect, it } from 'vitest';
import type { DriverResult, PhaseResult } from '../../../scripts/bench/plan.ts';
import { failedStep, failureReport, judge, type Row, renderTable } from '../../../scripts/bench/report.ts';

const phase = (p: Partial<PhaseResult> = {}): PhaseResult => ({
  seconds: 2,
  started: 100,
  requests: 100,
  good: 100,
  unexpected: 0,
  non2xx: 0,
  errors: 0,
  timeouts: 0,
  p50: 1,
  p99: 2,
  ...p,
});
const result = (
  measured: Partial<PhaseResult> = {},
  warmup: Partial<PhaseResult> = {},
  samples: string[] = [],
) => ({ warmup: phase(warmup), measured: phase(measured), seq: 0, samples }) satisfies DriverResult;

const row = (r: Partial<Row> = {}): Row => ({
  scenario: '1',
  title: '/validate/check pw token, no PIN',
  db: 'sqlite',
  signing: 'on',
  unit: 'req/s',
  rate: 1234.4,
  p50: 1.23,
  p99: 4.56,
  rssMiB: 99.6,
  cpuMsPerUnit: 0.1234,
  ok: true,
  notes: [],
  ...r,
});

describe('judge: did a run succeed as intended', () => {
  it('passes a clean run', () => {
    expect(judge(result())).toBeUndefined();
  });

  it('passes a warm-up that ended before its first answer (slow PIN hashing)', () => {
    expect(judge(result({}, { good: 0, requests: 0 }))).toBeUndefined();
  });

  it.each([
    [
      'an unexpected answer (e.g. result.value false)',
      { unexpected: 1 },
      /measured: 1 unexpected answers, 0 non-2xx/,
    ],
    ['a non-2xx status', { non2xx: 3 }, /measured: 0 unexpected answers, 3 non-2xx, 0 errors, 0 timeouts/],
    ['a connection error', { errors: 2 }, /measured: .*, 2 errors, 0 timeouts/],
    ['a timeout', { timeouts: 1 }, /measured: .*, 0 errors, 1 timeouts/],
  ])('fails the measured run on %s, even among good answers', (_what, measured, message) => {
    const failure = judge(result(measured));
    expect(failure).toMatch(message);
    expect(failure).not.toMatch(/nothing succeeded/);
  });

  it('fails on a wrong answer in the warm-up alone', () => {
    expect(judge(result({}, { unexpected: 1 }))).toMatch(/^warm-up: 1 unexpected answers/);
  });

  it('fails a measured run in which nothing succeeded, even without a wrong answer', () => {
    expect(judge(result({ good: 0 }))).toBe('measured: nothing succeeded as intended');
  });

  it('lists every problem and the samples of wrong answers', () => {
    const failure = judge(
      result({ good: 0, unexpected: 5, non2xx: 5 }, { unexpected: 2 }, [
        'not accepted: HTTP 200 {"result":{"status":true,"value":false}}',
        'status: HTTP 500 oops',
      ]),
    )!;
    expect(failure.split('\n')).toEqual([
      'warm-up: 2 unexpected answers, 0 non-2xx, 0 errors, 0 timeouts; ' +
        'measured: 5 unexpected answers, 5 non-2xx, 0 errors, 0 timeouts; measured: nothing succeeded as intended',
      '      e.g. not accepted: HTTP 200 {"result":{"status":true,"value":false}}',
      '      e.g. status: HTTP 500 oops',
    ]);
  });
});

describe('the table', () => {
  it('shows a good row with its rate, latencies, CPU, RSS and notes', () => {
    const table = renderTable([row({ notes: ['a', 'b'] })]).split('\n');
    expect(table).toEqual([
      '| Scenario | DB | Signing | Rate | p50 ms | p99 ms | Server CPU ms per unit | Server RSS MiB | Notes |',
      '|---|---|---|---:|---:|---:|---:|---:|---|',
      '| 1 /validate/check pw token, no PIN | sqlite | on | 1234 req/s | 1.2 | 4.6 | 0.12 | 100 | a; b |',
    ]);
  });

  it('shows a failed row as **FAILED** with the first line of its failure, never its rate', () => {
    const failure = judge(result({ unexpected: 7 }, {}, ['not accepted: HTTP 200 {}']))!;
    const table = renderTable([row({ ok: false, failure, rate: 98765 }), row({ scenario: '0', rate: 5 })]);
    const lines = table.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toBe(
      '| 1 /validate/check pw token, no PIN | sqlite | on | **FAILED** | | | | | measured: 7 unexpected answers, 0 non-2xx, 0 errors, 0 timeouts |',
    );
    expect(table).not.toContain('98765');
    expect(lines[3]).toMatch(/^\| 0 .* \| 5 req\/s \|/);
  });

  it('a failed set-up step', () => {
    const r = failedStep('set-up', 'postgres', 'postgres: Error: boom\n    at x');
    expect(r).toMatchObject({ ok: false, scenario: '-', db: 'postgres' });
    expect(renderTable([r]).split('\n')[2]).toBe(
      '| - set-up | postgres | off | **FAILED** | | | | | postgres: Error: boom |',
    );
  });
});

describe('the failure report (exit code 1)', () => {
  it('none when every row succeeded', () => {
    expect(failureReport([row(), row({ scenario: '0' })])).toBeUndefined();
    expect(failureReport([])).toBeUndefined();
  });

  it('a loud banner naming each failed run', () => {
    const report = failureReport([
      row(),
      row({
        scenario: '2',
        title: 'HOTP',
        signing: 'off',
        ok: false,
        failure: 'measured: nothing succeeded',
      }),
      failedStep('set-up', 'postgres', 'boom'),
    ])!;
    expect(report).toContain('!'.repeat(78));
    expect(report).toContain('BENCHMARK FAILED: 2 run(s) did not succeed as intended:');
    expect(report).toContain('  2 HOTP (sqlite, signing off): measured: nothing succeeded');
    expect(report).toContain('  - set-up (postgres, signing off): boom');
    expect(report).not.toContain('/validate/check pw token');
  });
});
