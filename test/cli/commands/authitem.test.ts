// `authsrv authitem ssh`: the public keys of GET /machine/authitem/ssh as authorized_keys lines
// (the AuthorizedKeysCommand of sshd; test/e2e/sshd.test.ts logs in with it), or JSON.
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
import { testDialects } from '../../helpers/dialects.ts';
import { ed25519PublicKey } from '../../helpers/ssh-keys.ts';

describe.each(testDialects())('authsrv authitem ssh on %s', (dialect) => {
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
