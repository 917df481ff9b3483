// OpenSSH logs in with a key of an sshkey token: a real sshd (Debian's openssh-server), started on
// a free loopback port with its own host key and configuration, asks `authsrv authitem ssh`
// (through a wrapper script, as docs/machines.md shows) for the authorized keys of its host and
// the login user; a real ssh client logs in with the token's key and runs `echo ok`, and a key
// that is not enrolled is refused. Nothing of the system's sshd configuration is touched; sshd
// runs as the current user (as root it needs its privilege separation directory, /run/sshd).
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { homedir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { attachToken } from '../../src/core/machine/index.ts';
import { saveMachineResolver } from '../../src/core/machineresolver/index.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { BIN, type CliEnv } from '../helpers/cli.ts';
import { useCliEnv } from '../helpers/cli-fixture.ts';
import { testDialects } from '../helpers/dialects.ts';

const SSHD = '/usr/sbin/sshd';
const USER = userInfo().username;

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => done(port));
    });
  });
}

async function listening(port: number, sshd: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (sshd.exitCode !== null) throw new Error(`sshd exited: ${log()}`);
    const up = await new Promise<boolean>((done) => {
      const s = connect(port, '127.0.0.1', () => {
        s.destroy();
        done(true);
      });
      s.once('error', () => done(false));
    });
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`sshd does not listen: ${log()}`);
}

function keyPair(dir: string, name: string): { file: string; pub: string } {
  const file = join(dir, name);
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', file]);
  return { file, pub: readFileSync(`${file}.pub`, 'utf8').trim() };
}

/** `ssh -i key user@127.0.0.1 echo ok` with no configuration or known hosts of the user's. */
function sshEcho(
  port: number,
  key: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const args = [
    '-F',
    '/dev/null',
    '-i',
    key,
    '-p',
    String(port),
    '-o',
    'IdentitiesOnly=yes',
    '-o',
    'BatchMode=yes',
  ];
  args.push('-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR');
  return new Promise((done) => {
    const p = spawn('ssh', [...args, `${USER}@127.0.0.1`, 'echo ok'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe.each(testDialects())('sshd with authsrv authitem ssh on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  let dir: string;
  let sshd: ChildProcess;
  let port: number;
  let sshdLog = '';
  let token: { file: string; pub: string };
  let stranger: { file: string; pub: string };
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));

  beforeAll(async () => {
    // sshd runs an AuthorizedKeysCommand only from a path whose every directory is owned by root
    // and writable by no one else: the home directory, not /tmp.
    dir = mkdtempSync(join(homedir(), '.authsrv-sshd-test-'));
    chmodSync(dir, 0o755);
    if (process.getuid?.() === 0 && !existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
    const host = keyPair(dir, 'host_key');
    token = keyPair(dir, 'token_key');
    stranger = keyPair(dir, 'stranger_key');
    const hosts = join(c.dataDir, 'hosts');
    writeFileSync(hosts, '127.0.0.1 sshtest.lab\n');
    await saveMachineResolver(ctx, 'lab', { type: 'hosts', filename: hosts });
    await initToken(ctx, { type: 'sshkey', serial: 'SSHK1', sshkey: token.pub });
    await attachToken(ctx, {
      serial: 'SSHK1',
      application: 'ssh',
      hostname: 'sshtest.lab',
      options: { user: USER },
    });
    const env = c.databaseUrl ? `AUTHSRV_DATABASE_URL='${c.databaseUrl}' ` : '';
    const wrapper = join(dir, 'authsrv-keys');
    writeFileSync(
      wrapper,
      `#!/bin/sh\n${env}AUTHSRV_LOG_LEVEL=warn exec '${process.execPath}' '${BIN}' --data-dir '${c.dataDir}' authitem ssh --hostname sshtest.lab --user "$1"\n`,
      { mode: 0o755 },
    );
    port = await freePort();
    const config = join(dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `ListenAddress 127.0.0.1:${port}`,
        `HostKey ${host.file}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        'StrictModes no',
        'UsePAM no',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'AuthorizedKeysFile none',
        `AuthorizedKeysCommand ${wrapper} %u`,
        `AuthorizedKeysCommandUser ${USER}`,
        '',
      ].join('\n'),
    );
    sshd = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    sshd.stderr?.on('data', (d) => (sshdLog += d));
    await listening(port, sshd, () => sshdLog);
  }, 60_000);

  afterAll(() => {
    sshd?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('logs in with the key of an attached sshkey token and refuses a key not enrolled', async () => {
    expect(await sshEcho(port, token.file), sshdLog).toEqual({ code: 0, stdout: 'ok\n', stderr: '' });
    const refused = await sshEcho(port, stranger.file);
    expect(refused.code).toBe(255);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/Permission denied \(publickey\)/);
  }, 60_000);
});
