// What every CLI command shares: loading the configuration from the global options, opening the
// runtime as the local operator (with the audit row of a state-changing command), reading
// passwords and NAME=VALUE words, and printing tables, fields or JSON.
import { readFileSync } from 'node:fs';
import Table from 'cli-table3';
import type { Command } from 'commander';
import pino from 'pino';
import { type Config, loadConfig } from '../config/index.ts';
import { auditedCliAction, type CliAction, type CliActionFields } from '../core/audit/index.ts';
import { type Context, localOperator, withCaller } from '../core/context.ts';
import { type OpenOptions, openRuntime } from '../core/runtime.ts';
import { ParameterError } from '../errors.ts';

export interface GlobalOptions {
  config?: string;
  dataDir?: string;
}

/**
 * The configuration: defaults, the file, AUTHSRV_* variables, then the command line (`--data-dir`,
 * and `overrides` a command takes as flags of its own), each level winning over the one before.
 */
export function configFrom(cmd: Command, overrides: Record<string, string> = {}): Config {
  const g = cmd.optsWithGlobals() as GlobalOptions;
  return loadConfig({
    file: g.config,
    overrides: { ...(g.dataDir ? { data_dir: g.dataDir } : {}), ...overrides },
  });
}

/** Opens the runtime, runs `fn` as the local operator, and always closes the database. */
export async function withContext<T>(
  cmd: Command,
  fn: (ctx: Context) => Promise<T>,
  options?: OpenOptions,
): Promise<T> {
  const config = configFrom(cmd);
  const rt = await openRuntime(config, { ...options, logger: quietLogger() });
  try {
    return await fn(withCaller(rt, localOperator()));
  } finally {
    // Open user stores hold connections (LDAP, SQL) that would keep the command from exiting.
    const { closeUserStores } = await import('../core/directory/index.ts');
    await closeUserStores(rt);
    const { closeMachineStores } = await import('../core/machineresolver/index.ts');
    await closeMachineStores(rt);
    await rt.store.close();
  }
}

/**
 * Runs a state-changing command as the local operator and writes its audit row, successful or
 * not: `action` names the command, what it did and the columns the API would fill for the same
 * action (user, realm, resolver, serial …); `fromResult` the columns known only from the result.
 */
export function runAudited<T>(
  cmd: Command,
  action: CliAction,
  run: (ctx: Context) => Promise<T>,
  fromResult?: (result: T) => CliActionFields,
): Promise<T> {
  return withContext(cmd, (ctx) => auditedCliAction(ctx, action, () => run(ctx), fromResult));
}

function quietLogger() {
  return pino({ level: 'warn' }, pino.destination(2));
}

/** Refuses options that exclude each other: `Give A or B, not both`. */
export function notBoth(a: boolean | undefined, b: boolean | undefined, first: string, second: string): void {
  if (a && b) throw new ParameterError(`Give ${first} or ${second}, not both`);
}

export function printTable(head: string[], rows: (string | number)[][]): void {
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows.map((r) => r.map(String)));
  console.log(table.toString());
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** One `key: value` line a field, the values aligned. */
export function printFields(fields: readonly (readonly [string, string])[]): void {
  const width = Math.max(...fields.map(([k]) => k.length));
  for (const [k, v] of fields) console.log(`${`${k}:`.padEnd(width + 1)} ${v}`.trimEnd());
}

/** A value in a table cell or a field line: lists comma-joined, nothing as ''. */
export function cellText(v: unknown): string {
  return Array.isArray(v) ? v.join(', ') : String(v ?? '');
}

/** A file the command reads (a token file, a policy export), its failure as a one-line error. */
export function readTextFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ParameterError(`Cannot read ${file}: ${(e as Error).message}`);
  }
}

const NO_TERMINAL = 'No terminal to ask for a password: pipe it in with --password-stdin';

/**
 * A new password (or PIN): the first line of stdin with `fromStdin`, else a hidden prompt (twice)
 * on a terminal; `noTerminal` is the error without one.
 */
export async function readNewPassword(fromStdin: boolean, noTerminal = NO_TERMINAL): Promise<string> {
  if (fromStdin) return readStdinLine();
  const first = await promptHidden('New password:', noTerminal);
  const second = await promptHidden('Repeat password:', noTerminal);
  if (first !== second) throw new ParameterError('The passwords do not match');
  return first;
}

/** A hidden prompt on the terminal; `noTerminal` is the error when standard input is none. */
export async function promptHidden(message: string, noTerminal: string): Promise<string> {
  if (!process.stdin.isTTY) throw new ParameterError(noTerminal);
  const { password: promptPassword } = await import('@inquirer/prompts');
  return promptPassword({ message, mask: '*' });
}

export async function readStdinLine(): Promise<string> {
  const line = (await readStdinLines())[0] ?? '';
  if (line === '') throw new ParameterError('No password on standard input');
  return line;
}

/** Standard input to its end, as lines (CR LF or LF). */
export async function readStdinLines(): Promise<string[]> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
}

/**
 * NAME=VALUE words of a command line (filters, settings, fields) as an object; `form` names the
 * expected shape in the error, e.g. 'column=value'.
 */
export function assignments(words: string[], form: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const w of words) {
    const i = w.indexOf('=');
    if (i <= 0) throw new ParameterError(`'${w}' is not of the form ${form}`);
    out[w.slice(0, i)] = w.slice(i + 1);
  }
  return out;
}
