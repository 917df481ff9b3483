// `authsrv tokengroup list|set|delete` and `authsrv token group add|remove`: the same services and
// error messages as /tokengroup/ and /token/group, with an audit row for every change.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { findToken } from '../../../src/core/token/store/index.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv tokengroup and token group on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));

  const groups = async (): Promise<Json> =>
    JSON.parse((await c.run(['tokengroup', 'list', '--json'])).stdout);
  const groupsOf = async (serial: string) => {
    const t = (await findToken(ctx, serial))!;
    const rows = await ctx.store.db
      .selectFrom('tokengroup_token')
      .innerJoin('tokengroup', 'tokengroup.id', 'tokengroup_token.tokengroup_id')
      .select('tokengroup.name')
      .where('tokengroup_token.token_id', '=', t.row.id)
      .orderBy('tokengroup.name')
      .execute();
    return rows.map((r) => r.name);
  };

  it('creates, updates, lists and deletes groups; puts tokens in and out; audits each change', async () => {
    expect(await groups()).toEqual({});
    const set = await c.run(['tokengroup', 'set', 'dev', '--description', 'Developers']);
    expect(set).toMatchObject({ code: 0, stderr: '' });
    expect(set.stdout).toMatch(/^Token group 'dev' saved \(id \d+\)\.\n$/);
    expect((await c.run(['tokengroup', 'set', 'ops'])).code).toBe(0);
    const before = await groups();
    expect(before).toEqual({
      dev: { id: expect.any(Number), description: 'Developers' },
      ops: { id: expect.any(Number), description: '' },
    });
    // set on an existing group: same id, new description; without --description it is kept.
    expect((await c.run(['tokengroup', 'set', 'dev', '--description', 'Dev team'])).stdout).toBe(
      `Token group 'dev' saved (id ${before.dev.id}).\n`,
    );
    expect((await c.run(['tokengroup', 'set', 'dev'])).code).toBe(0);
    expect((await groups()).dev).toEqual({ id: before.dev.id, description: 'Dev team' });
    const table = await c.run(['tokengroup', 'list']);
    expect(table.stdout).toMatch(/Name.*Id.*Description/);
    expect(table.stdout).toMatch(/dev +│ \d+ +│ Dev team/);
    expect(JSON.parse((await c.run(['tokengroup', 'list', 'ops', '--json'])).stdout)).toEqual({
      ops: before.ops,
    });

    await initToken(ctx, { type: 'spass', serial: 'S1' });
    expect(await c.run(['token', 'group', 'add', 'S1', 'dev'])).toEqual({
      code: 0,
      stdout: "Token 'S1' is in token group 'dev'.\n",
      stderr: '',
    });
    // Adding again changes nothing.
    expect((await c.run(['token', 'group', 'add', 'S1', 'dev'])).code).toBe(0);
    expect((await c.run(['token', 'group', 'add', 'S1', 'ops'])).code).toBe(0);
    expect(await groupsOf('S1')).toEqual(['dev', 'ops']);
    expect(JSON.parse((await c.run(['token', 'show', 'S1', '--json'])).stdout).tokengroup).toEqual([
      'dev',
      'ops',
    ]);
    // A group with tokens in it is not deleted.
    expect(expectOneLineError(await c.run(['tokengroup', 'delete', 'dev']))).toBe(
      'authsrv: The tokengroup dev still contains 1 token(s).',
    );
    expect(await c.run(['token', 'group', 'remove', 'S1', 'dev'])).toEqual({
      code: 0,
      stdout: "Token 'S1' is not in token group 'dev'.\n",
      stderr: '',
    });
    expect(await groupsOf('S1')).toEqual(['ops']);
    expect(await c.run(['tokengroup', 'delete', 'dev'])).toEqual({
      code: 0,
      stdout: "Token group 'dev' deleted.\n",
      stderr: '',
    });
    expect(Object.keys(await groups())).toEqual(['ops']);

    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.serial, r.info])).toEqual([
      ['CLI tokengroup set', 1, `${CLI_USER}@cli`, '', 'dev'],
      ['CLI tokengroup set', 1, `${CLI_USER}@cli`, '', 'ops'],
      ['CLI tokengroup set', 1, `${CLI_USER}@cli`, '', 'dev'],
      ['CLI tokengroup set', 1, `${CLI_USER}@cli`, '', 'dev'],
      ['CLI token group add', 1, `${CLI_USER}@cli`, 'S1', 'S1 dev'],
      ['CLI token group add', 1, `${CLI_USER}@cli`, 'S1', 'S1 dev'],
      ['CLI token group add', 1, `${CLI_USER}@cli`, 'S1', 'S1 ops'],
      [
        'CLI tokengroup delete',
        0,
        `${CLI_USER}@cli`,
        '',
        'dev The tokengroup dev still contains 1 token(s).',
      ],
      ['CLI token group remove', 1, `${CLI_USER}@cli`, 'S1', 'S1 dev'],
      ['CLI tokengroup delete', 1, `${CLI_USER}@cli`, '', 'dev'],
    ]);
  });

  it('refuses unknown groups and serials with the messages of the API, changing nothing', async () => {
    await initToken(ctx, { type: 'spass', serial: 'S1' });
    expect((await c.run(['tokengroup', 'set', 'dev'])).code).toBe(0);
    for (const verb of ['add', 'remove']) {
      expect(expectOneLineError(await c.run(['token', 'group', verb, 'S1', 'nope']))).toBe(
        'authsrv: The tokengroup nope does not exist.',
      );
      expect(expectOneLineError(await c.run(['token', 'group', verb, 'NOSUCH', 'dev']))).toBe(
        'authsrv: No token found for serials: NOSUCH',
      );
    }
    expect(expectOneLineError(await c.run(['tokengroup', 'delete', 'nope']))).toBe(
      'authsrv: The tokengroup nope does not exist.',
    );
    expect(await groupsOf('S1')).toEqual([]);
    expect(Object.keys(await groups())).toEqual(['dev']);
    expect(await ctx.store.db.selectFrom('tokengroup_token').selectAll().execute()).toEqual([]);
    const failed = await ctx.store.db
      .selectFrom('audit')
      .select(['action', 'serial', 'info'])
      .where('success', '=', 0)
      .orderBy('id')
      .execute();
    expect(failed).toEqual([
      { action: 'CLI token group add', serial: 'S1', info: 'S1 nope The tokengroup nope does not exist.' },
      {
        action: 'CLI token group add',
        serial: 'NOSUCH',
        info: 'NOSUCH dev No token found for serials: NOSUCH',
      },
      { action: 'CLI token group remove', serial: 'S1', info: 'S1 nope The tokengroup nope does not exist.' },
      {
        action: 'CLI token group remove',
        serial: 'NOSUCH',
        info: 'NOSUCH dev No token found for serials: NOSUCH',
      },
      { action: 'CLI tokengroup delete', serial: '', info: 'nope The tokengroup nope does not exist.' },
    ]);
    // A missing argument is commander's usage error.
    const usage = await c.run(['token', 'group', 'add', 'S1']);
    expect(usage.code).not.toBe(0);
    expect(usage.stderr).toMatch(/missing required argument 'group'/);
  });
});
