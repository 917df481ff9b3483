// `node bin/authsrv …` in a child process, as an operator runs it: the environment without the
// test run's AUTHSRV_ variables, waiting for lines of its output, stopping it with SIGTERM.

import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';

export const BIN = resolve(import.meta.dirname, '../../bin/authsrv');
export const CREATED = /^Created administrator "admin" with password: (\S+)$/m;

/**
 * The environment of the test run without any AUTHSRV_ variable, with throttling off (tests make
 * many failed logins on purpose; `extra` may turn it on), plus `extra`.
 */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AUTHSRV_')) env[k] = v;
  return { ...env, AUTHSRV_THROTTLE_ENABLED: 'false', ...extra };
}

export interface Cli {
  child: ChildProcess;
  output(): { stdout: string; stderr: string };
  /** Resolves with the first match of `re` on stdout. */
  waitFor(re: RegExp, ms?: number): Promise<RegExpMatchArray>;
  /** Resolves once `test` is true of stdout. */
  waitUntil(test: (stdout: string) => boolean, what: string, ms?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function launch(args: string[], env: Record<string, string>, cwd: string): Cli {
  return watch(spawn(process.execPath, [BIN, ...args], { cwd, env: cleanEnv(env), stdio: 'pipe' }));
}

/** A started authsrv (however it was started, e.g. through npx) with its output collected. */
export function watch(child: ChildProcess): Cli {
  let stdout = '';
  let stderr = '';
  const waiters: (() => void)[] = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    for (const w of [...waiters]) w();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.on('exit', (code, signal) => {
      for (const w of [...waiters]) w();
      done({ code, signal });
    }),
  );
  const waitUntil = (test: (s: string) => boolean, what: string, ms = 20_000) =>
    new Promise<void>((done, fail) => {
      const check = () => {
        if (test(stdout)) {
          cleanup();
          done();
        } else if (child.exitCode !== null) {
          cleanup();
          fail(new Error(`authsrv exited (${child.exitCode}) before ${what}: ${stdout}\n${stderr}`));
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        fail(new Error(`timed out waiting for ${what}: ${stdout}\n${stderr}`));
      }, ms);
      const cleanup = () => {
        clearTimeout(timer);
        waiters.splice(waiters.indexOf(check), 1);
      };
      waiters.push(check);
      check();
    });
  return {
    child,
    output: () => ({ stdout, stderr }),
    exited,
    waitUntil,
    waitFor: async (re, ms) => {
      await waitUntil((s) => re.test(s), String(re), ms);
      return stdout.match(re)!;
    },
  };
}

export async function stop(cli: Cli): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (cli.child.exitCode === null) cli.child.kill('SIGTERM');
  return cli.exited;
}

export interface Answer {
  status: number;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  json: any;
}

/**
 * One request to a server or node on a connection of its own (no keep-alive pool), so that a
 * cluster's round-robin can hand it to any worker. Params go as a form body for POST/DELETE and as
 * a query for GET.
 */
export function callNode(
  base: string,
  method: string,
  path: string,
  params: Record<string, string> = {},
  token?: string,
): Promise<Answer> {
  const u = new URL(base + path);
  const form = new URLSearchParams(params).toString();
  if (method === 'GET' && form) u.search = form;
  const headers: Record<string, string | number> = { Accept: 'application/json' };
  if (token) headers.Authorization = token;
  if (method !== 'GET') {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    headers['Content-Length'] = Buffer.byteLength(form);
  }
  return new Promise((done, fail) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method, headers, agent: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => {
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          done({ status: res.statusCode ?? 0, text, json });
        });
      },
    );
    req.on('error', fail);
    req.end(method === 'GET' ? undefined : form);
  });
}
