// Debian's radclient (freeradius-utils), unmodified, as the RADIUS client of the tests of
// authsrv's own RADIUS server: one try of one second to 127.0.0.1.
import { spawn } from 'node:child_process';

export interface Radclient {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** radclient with `attributes` (one per line) to 127.0.0.1:`port`, as `code` (auth, status …). */
export function radclient(
  port: number,
  attributes: string[],
  secret: string,
  code = 'auth',
): Promise<Radclient> {
  return new Promise((resolve, reject) => {
    const child = spawn('radclient', ['-x', '-r', '1', '-t', '1', `127.0.0.1:${port}`, code, secret], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, stdout, stderr }));
    child.stdin.end(`${attributes.join('\n')}\n`);
  });
}
