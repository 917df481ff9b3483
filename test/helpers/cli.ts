// Runs the real `authsrv` CLI (bin/authsrv on this Node) against a data directory and database of
// its own, and opens the same data directory in-process to inspect or prepare what the CLI sees.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pino from 'pino';
import { loadConfig } from '../../src/config/load.ts';
import type { Runtime } from '../../src/core/context.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import { type RunningServer, startServer } from '../../src/http/server.ts';
import { createTestDatabase, type DialectName, type TestDatabase } from './dialects.ts';

export const BIN = resolve(import.meta.dirname, '../../bin/authsrv');
/** The login name the CLI's audit rows are attributed to (`<user>@cli`). */
export const CLI_USER = 'tester';

// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
export type Json = any;

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliEnv {
  dataDir: string;
  /** The database URL, or undefined for the data directory's default SQLite file. */
  databaseUrl: string | undefined;
  run(args: string[], input?: string): Promise<CliResult>;
  /** Opens the data directory and database in-process (closed by close()). */
  runtime(clock?: () => Date): Promise<Runtime>;
  /** An HTTP server on the same data directory and database. */
  server(): Promise<RunningServer>;
  close(): Promise<void>;
}

function childEnv(databaseUrl: string | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('AUTHSRV_') && k !== 'SUDO_USER') env[k] = v;
  }
  env.USER = CLI_USER;
  env.AUTHSRV_NODE_NAME = 'cli-node';
  env.AUTHSRV_LOG_LEVEL = 'warn';
  env.AUTHSRV_THROTTLE_ENABLED = 'false';
  if (databaseUrl) env.AUTHSRV_DATABASE_URL = databaseUrl;
  return env;
}

export function runCli(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; input?: string | undefined },
): Promise<CliResult> {
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { cwd: options.cwd, env: options.env, timeout: 60_000, maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        done({ code, stdout: stdout.toString(), stderr: stderr.toString() });
      },
    );
    if (options.input !== undefined) child.stdin!.end(options.input);
    else child.stdin!.end();
  });
}

/** `settings`: configuration values of the in-process runtime and server (the CLI child reads ./authsrv.toml). */
export async function cliEnv(dialect: DialectName, settings: Record<string, string> = {}): Promise<CliEnv> {
  const dataDir = mkdtempSync(join(tmpdir(), 'authsrv-cli-'));
  const db: TestDatabase | undefined = dialect === 'sqlite' ? undefined : await createTestDatabase(dialect);
  const env = childEnv(db?.url);
  const opened: Runtime[] = [];
  const servers: RunningServer[] = [];
  const config = () =>
    loadConfig({
      env: {},
      overrides: {
        data_dir: dataDir,
        database_url: db?.url ?? '',
        node_name: 'test-node',
        'http.port': '0',
        // Tests make many failed logins on purpose: throttled only where a test turns it on.
        'throttle.enabled': 'false',
        ...settings,
      },
    });
  const runtime = async (clock?: () => Date) => {
    const rt = await openRuntime(config(), { logger: pino({ level: 'silent' }), clock });
    opened.push(rt);
    return rt;
  };
  return {
    dataDir,
    databaseUrl: db?.url,
    run: (args, input) => runCli(['--data-dir', dataDir, ...args], { cwd: dataDir, env, input }),
    runtime,
    async server() {
      const rt = await runtime();
      const s = await startServer(rt);
      servers.push(s);
      return s;
    },
    async close() {
      for (const s of servers) await s.close();
      for (const rt of opened) await rt.store.close();
      await db?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The one-line error the CLI prints before exiting non-zero. */
export function expectOneLineError(r: CliResult): string {
  const lines = r.stderr.trimEnd().split('\n');
  if (r.code === 0) throw new Error(`expected a failure, got exit 0: ${r.stdout}`);
  if (lines.length !== 1 || !lines[0]!.startsWith('authsrv: ')) {
    throw new Error(`expected one 'authsrv: …' line on stderr, got: ${r.stderr}`);
  }
  return lines[0]!;
}
