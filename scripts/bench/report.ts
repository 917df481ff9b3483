// The benchmark's verdicts and report (main.ts): whether a scenario run succeeded as intended, the
// Markdown table of the rows and the failure summary that makes the exit code 1. Pure functions, so
// that test/scripts/ can check them with crafted driver results.
import type { MailStreamResult } from './mail-stream.ts';
import type { DriverResult, PhaseResult } from './plan.ts';

/** One line of the table and of the results file's `results`. */
export interface Row {
  scenario: string;
  title: string;
  db: string;
  /** 'n/a': a path without response signature (RADIUS), run once per database. */
  signing: 'on' | 'off' | 'n/a';
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
  /** Scenario 8: the same logins measured first without the hanging e-mail challenges. */
  alone?: { rate: number; p50: number; p99: number; cpuMsPerUnit: number; measured: PhaseResult };
  /** Scenario 8: the e-mail challenge requests sent meanwhile, and the connections the silent SMTP server accepted. */
  mail?: MailStreamResult & { smtpConnections: number; connections: number; smtpTimeoutSeconds: number };
  /** Scenario 9: the POSTs the webhook listener received during the measured window. */
  webhook?: { received: number; logins: number };
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

/**
 * Why scenario 8's e-mail challenge requests did not go as intended, undefined when they did: each
 * must have answered "could not be sent", and at least one must have.
 */
export function judgeMail(mail: MailStreamResult): string | undefined {
  if (mail.other > 0) {
    return `e-mail challenges: ${mail.other} of ${mail.requests} did not answer "could not be sent"${
      mail.samples.length ? `\n      e.g. ${mail.samples.join('\n      e.g. ')}` : ''
    }`;
  }
  if (mail.notSent === 0) return 'e-mail challenges: none was answered';
  return undefined;
}

/** Scenario 8's note: the logins without the hanging sender, and what the e-mail challenges answered. */
export function hangingMailNote(row: Pick<Row, 'unit' | 'alone' | 'mail'>): string {
  const parts: string[] = [];
  if (row.alone) {
    parts.push(
      `without the hanging sender ${fmt(row.alone.rate, 0)} ${row.unit}, p50 ${fmt(row.alone.p50)} ms, ` +
        `p99 ${fmt(row.alone.p99)} ms, server CPU ${fmt(row.alone.cpuMsPerUnit, 2)} ms per unit`,
    );
  }
  const m = row.mail;
  if (m) {
    parts.push(
      `with it: ${m.connections} e-mail challenges in flight (SMTP timeout ${m.smtpTimeoutSeconds} s), ` +
        `${m.notSent} of ${m.requests} answered "could not be sent" after ${fmt(m.minSeconds, 2)}–${fmt(m.maxSeconds, 2)} s ` +
        `(p50 ${fmt(m.p50Seconds, 2)} s), ${m.smtpConnections} SMTP connections left unanswered`,
    );
  }
  return parts.join('; ');
}

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
