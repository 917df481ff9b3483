// `authsrv machineresolver list|show|set|test|delete` and `authsrv machine list`: the services and
// messages of /machineresolver/ and /machine/, --json, secrets only from a prompt or stdin, and an
// audit row for every change.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HOSTS_DN,
  READER_DN,
  READER_PASSWORD,
  type SlapdFixture,
  startSlapd,
} from '../../../scripts/fixtures/slapd.ts';
import type { Context } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

let slapd: SlapdFixture;
beforeAll(async () => {
  slapd = await startSlapd();
});
afterAll(async () => {
  await slapd?.stop();
});

describe.each(cliDialects())('authsrv machineresolver and machine on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));

  const json = async (args: string[]): Promise<Json> => {
    const r = await c.run([...args, '--json']);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout);
  };

  it('manages a hosts machine resolver and lists its machines; audits each change', async () => {
    const hosts = join(c.dataDir, 'hosts');
    writeFileSync(hosts, '10.0.0.1 gw gw.lab\n10.0.0.2 web1\n');
    expect(await c.run(['machineresolver', 'set', 'lab', '--type', 'hosts', `filename=${hosts}`])).toEqual({
      code: 0,
      stdout: "Machine resolver 'lab' created.\n",
      stderr: '',
    });
    expect(await json(['machineresolver', 'set', 'lab', '--type', 'hosts', `filename=${hosts}`])).toEqual({
      name: 'lab',
      created: false,
      warnings: [],
    });
    const view = { resolvername: 'lab', type: 'hosts', data: { filename: hosts }, censor_keys: [] };
    expect(await json(['machineresolver', 'list'])).toEqual({ lab: view });
    expect(await json(['machineresolver', 'list', '--type', 'ldap'])).toEqual({});
    expect(await json(['machineresolver', 'show', 'lab'])).toEqual(view);
    expect((await c.run(['machineresolver', 'list'])).stdout).toMatch(/lab +│ hosts +│ filename=/);
    expect(await json(['machineresolver', 'test', '--type', 'hosts', `filename=${hosts}`])).toEqual({
      value: true,
      description: `Found 2 machines in ${hosts}.`,
    });
    expect(await json(['machine', 'list'])).toEqual([
      { id: '10.0.0.1', hostname: ['gw', 'gw.lab'], ip: '10.0.0.1', resolver_name: 'lab' },
      { id: '10.0.0.2', hostname: ['web1'], ip: '10.0.0.2', resolver_name: 'lab' },
    ]);
    expect((await json(['machine', 'list', '--hostname', 'web'])).map((m: Json) => m.id)).toEqual([
      '10.0.0.2',
    ]);
    expect((await json(['machine', 'list', '--ip', '10.0.0.1'])).map((m: Json) => m.id)).toEqual([
      '10.0.0.1',
    ]);
    expect((await json(['machine', 'list', '--any', 'gw', '--resolver', 'la'])).length).toBe(1);
    expect((await c.run(['machine', 'list'])).stdout).toMatch(
      /lab +│ 10\.0\.0\.1 +│ gw gw\.lab +│ 10\.0\.0\.1/,
    );
    expect(await c.run(['machineresolver', 'delete', 'lab'])).toEqual({
      code: 0,
      stdout: "Machine resolver 'lab' deleted.\n",
      stderr: '',
    });
    expect(await json(['machine', 'list'])).toEqual([]);
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.resolver, r.info])).toEqual([
      ['CLI machineresolver set', 1, `${CLI_USER}@cli`, 'lab', 'lab hosts'],
      ['CLI machineresolver set', 1, `${CLI_USER}@cli`, 'lab', 'lab hosts'],
      ['CLI machineresolver delete', 1, `${CLI_USER}@cli`, '', 'lab'],
    ]);
  });

  it('takes BINDPW from stdin only, shows it censored, and refuses with the messages of the API', async () => {
    const ldap = [
      '--type',
      'ldap',
      `LDAPURI=${slapd.url}`,
      `LDAPBASE=${HOSTS_DN}`,
      `BINDDN=${READER_DN}`,
      'SEARCHFILTER=(objectClass=ipHost)',
      'HOSTNAMEATTRIBUTE=cn',
      'IPATTRIBUTE=ipHostNumber',
    ];
    expect(
      expectOneLineError(
        await c.run(['machineresolver', 'set', 'dir', ...ldap, `BINDPW=${READER_PASSWORD}`]),
      ),
    ).toMatch(/^authsrv: BINDPW is a secret setting: give it as BINDPW=- or --secret BINDPW/);
    const tested = await c.run(
      ['machineresolver', 'test', ...ldap, 'BINDPW=-', '--password-stdin'],
      `${READER_PASSWORD}\n`,
    );
    expect(tested).toEqual({
      code: 0,
      stdout: 'Your LDAP config seems to be OK, 3 machine objects found.\n',
      stderr: '',
    });
    expect(
      (
        await c.run(
          ['machineresolver', 'set', 'dir', ...ldap, 'BINDPW=-', '--password-stdin'],
          `${READER_PASSWORD}\n`,
        )
      ).code,
    ).toBe(0);
    expect((await json(['machineresolver', 'show', 'dir'])).data.BINDPW).toBe('__CENSORED__');
    expect((await json(['machine', 'list'])).map((m: Json) => m.hostname[0])).toEqual([
      'web1',
      'db1',
      'mail1',
    ]);
    // A failing test exits 1 with its description.
    const down = await c.run([
      'machineresolver',
      'test',
      '--type',
      'hosts',
      `filename=${join(c.dataDir, 'nope')}`,
    ]);
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/nope/);
    expect(expectOneLineError(await c.run(['machineresolver', 'set', 'dir', '--type', 'hosts']))).toBe(
      "authsrv: Machine resolver 'dir' is a ldap; its type cannot be changed to hosts",
    );
    expect(expectOneLineError(await c.run(['machineresolver', 'delete', 'nope']))).toBe(
      'authsrv: The machine resolver nope does not exist.',
    );
    expect(expectOneLineError(await c.run(['machineresolver', 'show', 'nope']))).toBe(
      "authsrv: The machine resolver 'nope' does not exist",
    );
    expect(Object.keys(await json(['machineresolver', 'list']))).toEqual(['dir']);
  });
});
