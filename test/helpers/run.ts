// Runs a command to its end and collects what it printed: for tests of CLIs, scripts and
// third-party verifiers.
import { spawn } from 'node:child_process';

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  /** Written to the command's stdin, which is then closed. */
  input?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export function run(command: string, args: string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    // A command that reads files, not stdin, may exit before the write lands: that EPIPE is harmless.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}
