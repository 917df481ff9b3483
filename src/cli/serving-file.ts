// `<data dir>/serving.json`: where `authsrv serve` of this data directory listens, so that
// `authsrv status` can say whether a server runs and on which address. Written once the server
// listens, removed when it stops; a file left by a killed server names a process that is gone.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/index.ts';

export interface Serving {
  pid: number;
  url: string;
  started: string;
}

function fileOf(dataDir: string): string {
  return join(dataDir, 'serving.json');
}

export function recordServing(dataDir: string, url: string): void {
  const serving: Serving = { pid: process.pid, url, started: new Date().toISOString() };
  writeFileSync(fileOf(dataDir), `${JSON.stringify(serving)}\n`, { mode: 0o600 });
}

/** Removes the file if it is still this process's (another server may have started since). */
export function forgetServing(dataDir: string): void {
  if (readServing(dataDir)?.pid === process.pid) rmSync(fileOf(dataDir), { force: true });
}

/** The recorded server, or undefined when none was recorded (or the file is not ours to read). */
export function readServing(dataDir: string): Serving | undefined {
  try {
    const v = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as Partial<Serving>;
    if (typeof v.pid === 'number' && typeof v.url === 'string' && typeof v.started === 'string')
      return { pid: v.pid, url: v.url, started: v.started };
  } catch {
    // missing or damaged: no server recorded
  }
  return undefined;
}

/** Whether the recorded process still exists (signal 0 tests without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The address the configuration has the server listen on, as a URL (IPv6 in brackets). */
export function configuredUrl(config: Config): string {
  const scheme = config.http.tlsCert ? 'https' : 'http';
  const host = config.http.host.includes(':') ? `[${config.http.host}]` : config.http.host;
  return `${scheme}://${host}:${config.http.port}`;
}

/** The URL of this data directory's running server, else the configured one. */
export function serverUrl(config: Config): string {
  const serving = readServing(config.dataDir);
  return serving && isAlive(serving.pid) ? serving.url : configuredUrl(config);
}
