// `authsrv authitem ssh`: the public keys of GET /machine/authitem/ssh as authorized_keys lines
// (the AuthorizedKeysCommand of sshd; test/e2e/sshd.test.ts logs in with it), or JSON.
import { createHmac } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { attachToken } from '../../../src/core/machine/index.ts';
import { saveMachineResolver } from '../../../src/core/machineresolver/index.ts';
import { setServiceId } from '../../../src/core/serviceid/index.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { ed25519PublicKey } from '../../helpers/ssh-keys.ts';

describe.each(cliDialects())('authsrv authitem ssh on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));

  it('prints the keys of a host or a service ID for a user, one line each', async () => {
    const hosts = join(c.dataDir, 'hosts');
    writeFileSync(hosts, '10.0.0.1 gw\n');
    await saveMachineResolver(ctx, 'lab', { type: 'hosts', filename: hosts });
    await setServiceId(ctx, 'mail', '');
    const [k1, k2, k3] = [ed25519PublicKey('one'), ed25519PublicKey('two'), ed25519PublicKey('three')];
    for (const [serial, sshkey] of [
      ['S1', k1],
      ['S2', k2],
      ['S3', k3],
    ] as const)
      await initToken(ctx, { type: 'sshkey', serial, sshkey });
    await attachToken(ctx, { serial: 'S1', application: 'ssh', hostname: 'gw', options: { user: 'root' } });
    await attachToken(ctx, { serial: 'S2', application: 'ssh', hostname: 'gw', options: { user: 'admin' } });
    await attachToken(ctx, {
      serial: 'S3',
      application: 'ssh',
      options: { service_id: 'mail', user: 'root' },
    });
    const ssh = (...args: string[]) => c.run(['authitem', 'ssh', ...args]);
    expect(await ssh('--hostname', 'gw', '--user', 'root')).toEqual({
      code: 0,
      stdout: `${k1}\n`,
      stderr: '',
    });
    expect((await ssh('--hostname', 'gw')).stdout).toBe(`${k1}\n${k2}\n`);
    expect((await ssh('--hostname', 'gw', '--user', 'nobody')).stdout).toBe('');
    expect((await ssh('--service-id', 'mail', '--user', 'root')).stdout).toBe(`${k3}\n`);
    expect(JSON.parse((await ssh('--hostname', 'gw', '--user', 'admin', '--json')).stdout)).toEqual([
      { sshkey: k2, user: 'admin', serial: 'S2' },
    ]);
    expect(expectOneLineError(await ssh('--user', 'root'))).toBe("authsrv: Missing parameter: 'hostname'");
  });
});

describe.each(cliDialects())('authsrv authitem luks|offline and machine applications on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));
  const SEED = '3132333435363738393031323334353637383930';

  it('prints the challenge and the full HMAC-SHA1 response of a YubiKey attached for luks', async () => {
    const hosts = join(c.dataDir, 'hosts');
    writeFileSync(hosts, '10.0.0.9 disk9\n');
    await saveMachineResolver(ctx, 'lab', { type: 'hosts', filename: hosts });
    await initToken(ctx, { type: 'totp', serial: 'UBOM9', otpkey: SEED });
    await attachToken(ctx, {
      serial: 'UBOM9',
      application: 'luks',
      hostname: 'disk9',
      options: { slot: '2', partition: '/dev/sda3' },
    });
    const challenge = 'c0ffee';
    const response = createHmac('sha1', Buffer.from(SEED, 'hex'))
      .update(Buffer.from(challenge, 'hex'))
      .digest('hex');
    const luks = (...args: string[]) => c.run(['authitem', 'luks', '--hostname', 'disk9', ...args]);
    expect(JSON.parse((await luks('--challenge', challenge, '--json')).stdout)).toEqual([
      { serial: 'UBOM9', slot: '2', partition: '/dev/sda3', challenge, response },
    ]);
    const table = await luks('--challenge', challenge);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(response);
    expect(table.stdout).toContain('/dev/sda3');
    expect(expectOneLineError(await luks('--challenge', 'zz'))).toBe(
      'authsrv: The challenge must be hexadecimal, 1 to 64 bytes.',
    );
  });

  it('lists the offline attachments with the count and rounds a login hands out', async () => {
    await initToken(ctx, { type: 'hotp', serial: 'OFF1', otpkey: SEED });
    await initToken(ctx, { type: 'hotp', serial: 'OFF2', otpkey: SEED });
    await attachToken(ctx, { serial: 'OFF1', application: 'offline', options: { count: '10' } });
    await attachToken(ctx, { serial: 'OFF2', application: 'offline', options: {} });
    const offline = JSON.parse((await c.run(['authitem', 'offline', '--json'])).stdout) as {
      serial: string;
      options: Record<string, unknown>;
    }[];
    expect(offline.map((o) => [o.serial, o.options])).toEqual([
      ['OFF1', { count: 10, rounds: 6549 }],
      ['OFF2', { count: 100, rounds: 6549 }],
    ]);
    const one = await c.run(['authitem', 'offline', '--serial', 'OFF2']);
    expect(one.stdout).toContain('OFF2');
    expect(one.stdout).not.toContain('OFF1');
  });

  it('lists the applications and their options as GET /application/ does', async () => {
    const json = JSON.parse((await c.run(['machine', 'applications', '--json'])).stdout);
    expect(Object.keys(json)).toEqual(['ssh', 'offline', 'luks']);
    expect(json.luks.options.totp.slot.type).toBe('int');
    const table = await c.run(['machine', 'applications']);
    expect(table.stdout).toMatch(/luks\s*│\s*totp\s*│\s*partition/);
  });
});
