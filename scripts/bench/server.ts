// One `node bin/authsrv serve --config <file>` from the checkout, on 127.0.0.1 and a port the kernel
// picks (http.port = 0; the URL is read from the start-up line), stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/authsrv');
const LISTENING = /^authsrv \S+ listening on (http:\/\/\S+)/m;
const RADIUS = /^RADIUS on udp (\S+):(\d+)$/m;
const CREATED = /^Created administrator "admin" with password: (\S+)$/m;

export interface ServerOptions {
  /** Temporary directory of this dialect: data directory, config file, passwd file. */
  dir: string;
  /** '' for the embedded SQLite database in the data directory. */
  databaseUrl: string;
  signResponses: boolean;
  /** [http] workers: 1 = one process (the default), 0 = one worker per core. */
  workers: number;
  /** Whether authsrv's own RADIUS server listens too (radius.listen on 127.0.0.1, a free port). */
  radius: boolean;
}

export interface AuthsrvServer {
  url: string;
  pid: number;
  /** Printed on the first start of a fresh database only. */
  adminPassword: string | undefined;
  /** The UDP port of the RADIUS server (ServerOptions.radius), else undefined. */
  radiusPort: number | undefined;
  /** Largest VmRSS (KiB) seen since the last call; sampling runs every 100 ms. */
  takeMaxRss(): number;
  /** CPU time the server process has used so far (all threads, user + system), ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** Escapes a string for a TOML basic string. */
const toml = (s: string) => JSON.stringify(s);

/** The process and its children (the workers of [http] workers), by /proc's parent ids. */
function processTree(pid: number): number[] {
  const out = [pid];
  try {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        if (ppid === pid) out.push(Number(entry));
      } catch {
        // the process ended meanwhile
      }
    }
  } catch {
    // no /proc: the primary alone
  }
  return out;
}

/** VmRSS of the server, its workers included (KiB). */
export function treeRssKiB(pid: number): number {
  return processTree(pid).reduce((sum, p) => sum + rssKiB(p), 0);
}

export function rssKiB(pid: number): number {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

/** utime + stime of a process from /proc/<pid>/stat, in ms (clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces; the fields after its ')' are fixed.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return 0;
  }
}

/** The port of the start-up line `RADIUS on udp 127.0.0.1:<port>` (printed before `listening on`). */
function radiusPortOf(stdout: string): number {
  const m = RADIUS.exec(stdout);
  if (!m) throw new Error(`authsrv printed no RADIUS line:\n${stdout}`);
  return Number(m[2]);
}

export async function startServer(o: ServerOptions): Promise<AuthsrvServer> {
  const config = join(o.dir, 'authsrv.toml');
  writeFileSync(
    config,
    `node_name = "bench"
data_dir = ${toml(join(o.dir, 'data'))}
database_url = ${toml(o.databaseUrl)}

[http]
host = "127.0.0.1"
port = 0
# the OATH CSV files of the fixtures are uploaded in chunks of this size at most
max_body_bytes = 8388608
workers = ${o.workers}

[security]
sign_responses = ${o.signResponses}

[files]
# the passwd file of the fixtures is written beside this file
allowed_dirs = [${toml(o.dir)}]

[throttle]
# the scenarios send wrong passwords and OTPs on purpose, all from one address; BENCH_THROTTLE=on
# measures what the throttle's check costs a successful login (scenarios 1, 2, 5a)
enabled = ${process.env.BENCH_THROTTLE === 'on'}

${o.radius ? '[radius]\n# the RADIUS scenario (R): the kernel picks the port, read from the start-up line\nlisten = "127.0.0.1:0"\n\n' : ''}[log]
level = "error"
`,
  );
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AUTHSRV_')) env[k] = v;
  // BENCH_SERVER_NODE_ARGS: extra Node options for the server only, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p"
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, BIN, '--config', config, 'serve'], {
    cwd: o.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    if (stdout.length > 1_000_000) stdout = stdout.slice(-100_000);
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
    if (stderr.length > 1_000_000) stderr = stderr.slice(-100_000);
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((done) =>
    child.on('exit', (code, signal) => done({ code, signal })),
  );
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (!url) {
    url = LISTENING.exec(stdout)?.[1];
    if (url) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`authsrv did not start (exit ${child.exitCode}):\n${stdout}\n${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  const pid = child.pid!;
  let maxRss = treeRssKiB(pid);
  const sampler = setInterval(() => {
    maxRss = Math.max(maxRss, treeRssKiB(pid));
  }, 100);
  sampler.unref();
  return {
    url,
    pid,
    adminPassword: CREATED.exec(stdout)?.[1],
    radiusPort: o.radius ? radiusPortOf(stdout) : undefined,
    cpuMs: () => processTree(pid).reduce((sum, p) => sum + cpuMsOf(p), 0),
    takeMaxRss() {
      const m = Math.max(maxRss, treeRssKiB(pid));
      maxRss = 0;
      return m;
    },
    async stop() {
      clearInterval(sampler);
      process.removeListener('exit', killOnExit);
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      const { code, signal } = await exited;
      clearTimeout(timer);
      if (code !== 0) {
        throw new Error(
          `authsrv did not stop cleanly (code ${code}, signal ${signal}):\n${stderr.slice(-2000)}`,
        );
      }
    },
  };
}
