// The benchmark's verdicts and report (main.ts): whether a scenario run succeeded as intended, the
// Markdown table of the rows and the failure summary that makes the exit code 1. Pure functions, so
// that test/scripts/ can check them with crafted driver results.
import type { DriverResult, PhaseResult } from './plan.ts';

/** One line of the table and of the results file's `results`. */
export interface Row {
  scenario: string;
  title: string;
  db: string;
  signing: 'on' | 'off';
  unit: string;
  /** Units as intended per second of the measured run. */
  rate: number;
  p50: number;
  p99: number;
  /** Largest VmRSS of the server during the run, MiB. */
  rssMiB: number;
  /** Server CPU time (all threads) per unit of the measured run, ms: less noisy than the rate. */
  cpuMsPerUnit?: number;
  /** PIN runs: verifications per second with every core hashing, measured just before the run. */
  hashBound?: number;
  ok: boolean;
  failure?: string;
  notes: string[];
  warmup?: PhaseResult;
  measured?: PhaseResult;
  samples?: string[];
  /** slapd's operations in the measured window and in the warm-up (cold…), see OperationCounts. */
  ldapOps?: {
    search: number;
    bind: number;
    readerBind: number;
    connection: number;
    logins: number;
    coldSearch: number;
    coldBind: number;
    coldReaderBind: number;
    coldConnection: number;
    coldLogins: number;
  };
  healthz?: { samples: number; p50: number; max: number };
}

/**
 * Why a driver's run did not succeed as intended, undefined when it did: any unexpected answer,
 * non-2xx status, error or timeout in either window, or nothing as intended in the measured one.
 * The text ends with the driver's samples of wrong answers.
 */
export function judge(result: DriverResult): string | undefined {
  const m = result.measured;
  const problems: string[] = [];
  for (const [name, p] of [
    ['warm-up', result.warmup],
    ['measured', m],
  ] as const) {
    const wrong = p.unexpected + p.non2xx + p.errors + p.timeouts;
    if (wrong > 0) {
      problems.push(
        `${name}: ${p.unexpected} unexpected answers, ${p.non2xx} non-2xx, ${p.errors} errors, ${p.timeouts} timeouts`,
      );
    }
  }
  // A warm-up may end before the first slow answer (PIN hashing at 32 connections); a measured
  // run must have succeeded.
  if (m.good === 0) problems.push('measured: nothing succeeded as intended');
  if (!problems.length) return undefined;
  return `${problems.join('; ')}${result.samples.length ? `\n      e.g. ${result.samples.join('\n      e.g. ')}` : ''}`;
}

/** A table row for a failed step of a database's run that is not a scenario. */
export function failedStep(title: string, db: string, failure: string): Row {
  return {
    scenario: '-',
    title,
    db,
    signing: 'off',
    unit: '',
    rate: 0,
    p50: 0,
    p99: 0,
    rssMiB: 0,
    ok: false,
    failure,
    notes: [],
  };
}

const fmt = (n: number, d = 1) => n.toFixed(d);

/** The Markdown table of the rows: a failed row shows **FAILED** and its first line, never a rate. */
export function renderTable(rows: Row[]): string {
  return [
    '| Scenario | DB | Signing | Rate | p50 ms | p99 ms | Server CPU ms per unit | Server RSS MiB | Notes |',
    '|---|---|---|---:|---:|---:|---:|---:|---|',
    ...rows.map((r) =>
      r.ok
        ? `| ${r.scenario} ${r.title} | ${r.db} | ${r.signing} | ${fmt(r.rate, 0)} ${r.unit} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.cpuMsPerUnit ?? 0, 2)} | ${fmt(r.rssMiB, 0)} | ${r.notes.join('; ')} |`
        : `| ${r.scenario} ${r.title} | ${r.db} | ${r.signing} | **FAILED** | | | | | ${(r.failure ?? '').split('\n')[0]} |`,
    ),
  ].join('\n');
}

/** The banner for stderr when any row failed (main.ts then exits with 1); undefined when none did. */
export function failureReport(rows: Row[]): string | undefined {
  const failed = rows.filter((r) => !r.ok);
  if (!failed.length) return undefined;
  return (
    `\n${'!'.repeat(78)}\nBENCHMARK FAILED: ${failed.length} run(s) did not succeed as intended:\n` +
    failed.map((r) => `  ${r.scenario} ${r.title} (${r.db}, signing ${r.signing}): ${r.failure}`).join('\n') +
    `\n${'!'.repeat(78)}\n`
  );
}
