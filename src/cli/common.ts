// What every CLI command shares: loading the configuration from the global options, opening the
// runtime as the local operator, printing tables or JSON, and one-line errors.
import Table from 'cli-table3';
import type { Command } from 'commander';
import { type Config, loadConfig } from '../config/index.ts';
import { auditedCliAction, type CliActionFields } from '../core/audit/index.ts';
import { ParameterError } from '../errors.ts';

export interface GlobalOptions {
  config?: string;
  dataDir?: string;
}

export function configFrom(cmd: Command): Config {
  const g = cmd.optsWithGlobals() as GlobalOptions;
  return loadConfig({ file: g.config, overrides: g.dataDir ? { data_dir: g.dataDir } : {} });
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
    await rt.store.close();
  }
}

/** Runs a state-changing command and writes its audit row, successful or not. */
export async function audited<T>(
  ctx: Context,
  action: string,
  detail: string,
  fn: () => Promise<T>,
  /** The columns the API would fill for the same action (user, realm, resolver, serial …). */
  fields: CliActionFields = {},
  /** Columns known only from the result (a generated serial). */
  fromResult?: (result: T) => CliActionFields,
): Promise<T> {
  return auditedCliAction(ctx, { command: action, detail, fields }, fn, fromResult);
}

import pino from 'pino';
import { type Context, localOperator, withCaller } from '../core/context.ts';
import { type OpenOptions, openRuntime } from '../core/runtime.ts';

function quietLogger() {
  return pino({ level: 'warn' }, pino.destination(2));
}

export function printTable(head: string[], rows: (string | number)[][]): void {
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(...rows.map((r) => r.map(String)));
  console.log(table.toString());
}

export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** A new password: hidden prompt (twice) on a terminal, or the first line of stdin with --password-stdin. */
export async function readNewPassword(fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdinLine();
  if (!process.stdin.isTTY)
    throw new ParameterError('No terminal to ask for a password: pipe it in with --password-stdin');
  const { default: promptPassword } = await import('@inquirer/password');
  const first = await promptPassword({ message: 'New password:', mask: '*' });
  const second = await promptPassword({ message: 'Repeat password:', mask: '*' });
  if (first !== second) throw new ParameterError('The passwords do not match');
  return first;
}

export async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const line = Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
  if (line === '') throw new ParameterError('No password on standard input');
  return line;
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
