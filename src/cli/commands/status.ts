// `authsrv status` (and `authsrv` alone): what a person at the terminal needs next — where the
// data directory and configuration are, whether a server of this data directory runs and where,
// what is set up (realms with their users, tokens, administrators) and the next command to try.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import type { Config } from '../../config/index.ts';
import { type InstallationStatus, installationStatus } from '../../core/status/index.ts';
import { VERSION } from '../../version.ts';
import { configFrom, printFields, printJson, withContext } from '../common.ts';
import { configuredUrl, isAlive, readServing } from '../serving-file.ts';

interface ServerState {
  running: boolean;
  url: string;
  pid?: number;
  ready?: boolean;
}

interface Status {
  version: string;
  dataDir: string;
  config: string | null;
  setUp: boolean;
  server: ServerState;
  installation?: InstallationStatus;
}

export function statusCommand(): Command {
  return new Command('status')
    .description(
      'where the data and configuration are, whether a server runs, what is set up, what to do next',
    )
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }, cmd: Command) => showStatus(cmd, o.json === true));
}

/** Prints the status (as JSON with `json`). */
export async function showStatus(cmd: Command, json: boolean): Promise<void> {
  const config = configFrom(cmd);
  // The encryption key is the first file a server start creates: without it nothing is set up,
  // and status must not create the data directory by opening it.
  const setUp = existsSync(join(config.dataDir, 'encryption.key'));
  const status: Status = {
    version: VERSION,
    dataDir: resolve(config.dataDir),
    config: config.sourceFile ?? null,
    setUp,
    server: await serverState(config),
    ...(setUp ? { installation: await withContext(cmd, installationStatus) } : {}),
  };
  if (json) return printJson(status);
  printStatus(status);
}

/** The server this data directory recorded, or else whatever answers on the configured address. */
async function serverState(config: Config): Promise<ServerState> {
  const recorded = readServing(config.dataDir);
  if (recorded && isAlive(recorded.pid)) {
    const ready = await probe(recorded.url);
    return { running: ready !== undefined, url: recorded.url, pid: recorded.pid, ready: ready === true };
  }
  const url = configuredUrl(config);
  const ready = config.http.port === 0 ? undefined : await probe(url);
  return ready === undefined ? { running: false, url } : { running: true, url, ready };
}

/** /healthz of a server: true ready, false answering but not ready, undefined no answer. */
async function probe(url: string): Promise<boolean | undefined> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.status === 200;
  } catch {
    return undefined;
  }
}

function serverLine(s: ServerState): string {
  if (!s.running) return `not running (start it with: authsrv serve; it would listen on ${s.url})`;
  const pid = s.pid !== undefined ? `pid ${s.pid}, ` : '';
  return `running on ${s.url} (${pid}${s.ready ? 'ready' : 'not ready: see /healthz'})`;
}

function realmsLine(i: InstallationStatus): string {
  if (i.realms.length === 0) return 'none';
  return i.realms.map((r) => `${r.name}${r.default ? ' (default)' : ''}`).join(', ');
}

function usersLine(i: InstallationStatus): string {
  const each = i.realms.map((r) => `${r.name}: ${r.users ?? `unknown (${r.error})`}`);
  const total = i.realms.reduce((n, r) => n + (r.users ?? 0), 0);
  return each.length ? `${total} (${each.join(', ')})` : '0';
}

function printStatus(s: Status): void {
  const fields: [string, string][] = [
    ['authsrv', s.version],
    ['data directory', s.dataDir],
    ['configuration', s.config ?? 'no file (built-in defaults and AUTHSRV_* variables)'],
    ['server', serverLine(s.server)],
  ];
  const i = s.installation;
  if (i) {
    fields.push(['realms', realmsLine(i)], ['users', usersLine(i)], ['tokens', String(i.tokens)]);
    fields.push(['administrators', String(i.administrators)]);
  }
  printFields(fields);
  console.log('');
  if (!s.setUp) {
    console.log('Nothing is set up in this data directory yet. Next:');
    console.log('  authsrv serve    (creates the data directory and the first administrator)');
  } else if (i?.next) {
    console.log(`Next: ${i.next.why}.`);
    console.log(`  ${i.next.command}`);
  } else {
    console.log(
      'Try a login (PIN and OTP on standard input):  authsrv validate check --user USER@REALM --pass-stdin',
    );
  }
  console.log('All commands: authsrv --help');
}
