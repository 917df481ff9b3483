// `authsrv machine token attach|detach|list|option`: the services and error messages of
// /machine/token and /machine/tokenoption, --json, and an audit row for every change.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { saveMachineResolver } from '../../../src/core/machineresolver/index.ts';
import { setServiceId } from '../../../src/core/serviceid/index.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { ed25519PublicKey } from '../../helpers/ssh-keys.ts';

describe.each(cliDialects())('authsrv machine token on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));
  beforeEach(async () => {
    const hosts = join(c.dataDir, 'hosts');
    writeFileSync(hosts, '10.0.0.1 gw\n10.0.0.2 web1\n');
    await saveMachineResolver(ctx, 'lab', { type: 'hosts', filename: hosts });
    await setServiceId(ctx, 'mail', 'IMAP');
    await initToken(ctx, { type: 'sshkey', serial: 'SSH1', sshkey: ed25519PublicKey() });
  });

  const list = async (...args: string[]): Promise<Json> =>
    JSON.parse((await c.run(['machine', 'token', 'list', '--json', ...args])).stdout);

  it('attaches, lists, sets options and detaches; audits each change', async () => {
    const attached = await c.run([
      'machine',
      'token',
      'attach',
      'SSH1',
      'ssh',
      '--hostname',
      'gw',
      'user=root',
    ]);
    expect(attached.stdout).toMatch(/^Token SSH1 attached for ssh \(machine token \d+\)\.\n$/);
    const { id } = JSON.parse(
      (await c.run(['machine', 'token', 'attach', 'SSH1', 'ssh', 'service_id=mail', '--json'])).stdout,
    );
    const records = await list();
    expect(records.map((r: Json) => [r.serial, r.type, r.machine_id, r.resolver, r.options])).toEqual([
      ['SSH1', 'sshkey', '10.0.0.1', 'lab', { user: 'root' }],
      ['SSH1', 'sshkey', null, null, { service_id: 'mail' }],
    ]);
    expect((await list('--option', 'user=R*')).map((r: Json) => r.machine_id)).toEqual(['10.0.0.1']);
    expect((await list('--hostname', 'web1')).length).toBe(0);
    const table = await c.run(['machine', 'token', 'list']);
    expect(table.stdout).toMatch(/SSH1 +│ sshkey +│ ssh +│ 10\.0\.0\.1 +│ lab +│ user=root/);
    expect(table.stdout).toMatch(/\(any\)/);
    const option = await c.run([
      'machine',
      'token',
      'option',
      '--mtid',
      String(id),
      'user=admin',
      'service_id=',
      '--json',
    ]);
    expect(JSON.parse(option.stdout)).toEqual({ added: 1, deleted: 1 });
    expect((await list('--sortby', 'user')).map((r: Json) => r.options)).toEqual([
      { user: 'admin' },
      { user: 'root' },
    ]);
    expect(
      await c.run([
        'machine',
        'token',
        'detach',
        'SSH1',
        'ssh',
        '--machineid',
        '10.0.0.1',
        '--resolver',
        'lab',
      ]),
    ).toEqual({
      code: 0,
      stdout: '1 machine token(s) of SSH1 detached.\n',
      stderr: '',
    });
    expect(
      JSON.parse(
        (await c.run(['machine', 'token', 'detach', 'SSH1', 'ssh', '--mtid', String(id), '--json'])).stdout,
      ),
    ).toEqual({
      detached: 1,
    });
    expect(await list()).toEqual([]);
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.serial])).toEqual([
      ['CLI machine token attach', 1, `${CLI_USER}@cli`, 'SSH1'],
      ['CLI machine token attach', 1, `${CLI_USER}@cli`, 'SSH1'],
      ['CLI machine token option', 1, `${CLI_USER}@cli`, ''],
      ['CLI machine token detach', 1, `${CLI_USER}@cli`, 'SSH1'],
      ['CLI machine token detach', 1, `${CLI_USER}@cli`, 'SSH1'],
    ]);
  });

  it('refuses bad requests with the messages of the API and writes nothing', async () => {
    const cases: [string[], string][] = [
      [['attach', 'NOPE', 'ssh', '--hostname', 'gw'], 'authsrv: The requested token could not be found.'],
      [
        ['attach', 'SSH1', 'vpn', '--hostname', 'gw'],
        "authsrv: Unknown application 'vpn': use ssh, offline, luks",
      ],
      [
        ['attach', 'SSH1', 'ssh', '--hostname', 'nohost'],
        'authsrv: There is no machine with the hostname nohost.',
      ],
      [['attach', 'SSH1', 'ssh', 'service_id=nosuch'], 'authsrv: The service ID nosuch does not exist.'],
      [['attach', 'SSH1', 'ssh', 'novalue'], "authsrv: 'novalue' is not of the form name=value"],
      [
        ['detach', 'SSH1', 'ssh', '--hostname', 'gw'],
        'authsrv: The token is not attached to that machine for that application.',
      ],
      [['option', '--mtid', '999', 'user=x'], 'authsrv: There is no machine token 999.'],
      [['list', '--sortdir', 'up'], "authsrv: sortdir must be 'asc' or 'desc'"],
    ];
    for (const [args, message] of cases)
      expect(expectOneLineError(await c.run(['machine', 'token', ...args]))).toBe(message);
    expect(await ctx.store.db.selectFrom('machinetoken').selectAll().execute()).toEqual([]);
    const failed = await ctx.store.db.selectFrom('audit').select('action').where('success', '=', 0).execute();
    expect(failed).toHaveLength(6);
  });
});
