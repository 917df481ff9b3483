// `authsrv serviceid list|set|delete`: the services and error messages of /serviceid/, --json, and
// an audit row for every change.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv serviceid on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));

  const list = async (): Promise<Json> => JSON.parse((await c.run(['serviceid', 'list', '--json'])).stdout);

  it('creates, updates, lists and deletes service IDs; audits each change', async () => {
    expect(await list()).toEqual({});
    expect(await c.run(['serviceid', 'set', 'mail', '--description', 'Mail'])).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^Service ID 'mail' saved \(id \d+\)\.\n$/),
      stderr: '',
    });
    const saved = JSON.parse((await c.run(['serviceid', 'set', 'ssh', '--json'])).stdout);
    expect(saved).toEqual({ ssh: { description: '', id: expect.any(Number) } });
    // Without --description the description is kept.
    expect((await c.run(['serviceid', 'set', 'mail'])).code).toBe(0);
    expect(await list()).toEqual({
      mail: { description: 'Mail', id: expect.any(Number) },
      ssh: saved.ssh,
    });
    expect(JSON.parse((await c.run(['serviceid', 'list', 'ssh', '--json'])).stdout)).toEqual(saved);
    const table = await c.run(['serviceid', 'list']);
    expect(table.stdout).toMatch(/Name.*Id.*Description/);
    expect(table.stdout).toMatch(/mail +│ \d+ +│ Mail/);
    expect(JSON.parse((await c.run(['serviceid', 'delete', 'ssh', '--json'])).stdout)).toEqual({
      deleted: 'ssh',
    });
    expect(await c.run(['serviceid', 'delete', 'mail'])).toEqual({
      code: 0,
      stdout: "Service ID 'mail' deleted.\n",
      stderr: '',
    });
    expect(await list()).toEqual({});
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI serviceid set', 1, `${CLI_USER}@cli`, 'mail'],
      ['CLI serviceid set', 1, `${CLI_USER}@cli`, 'ssh'],
      ['CLI serviceid set', 1, `${CLI_USER}@cli`, 'mail'],
      ['CLI serviceid delete', 1, `${CLI_USER}@cli`, 'ssh'],
      ['CLI serviceid delete', 1, `${CLI_USER}@cli`, 'mail'],
    ]);
  });

  it('refuses an unknown name and one an applspec token uses, with the messages of the API', async () => {
    expect(expectOneLineError(await c.run(['serviceid', 'delete', 'nope']))).toBe(
      'authsrv: The service ID nope does not exist.',
    );
    expect((await c.run(['serviceid', 'set', 'mail'])).code).toBe(0);
    await initToken(ctx, { type: 'applspec', serial: 'ASP1', otpkey: 'pw', service_id: 'mail' });
    expect(expectOneLineError(await c.run(['serviceid', 'delete', 'mail']))).toBe(
      'authsrv: The service ID mail is still used by token(s) ASP1.',
    );
    expect(Object.keys(await list())).toEqual(['mail']);
    const failed = await ctx.store.db
      .selectFrom('audit')
      .select(['action', 'info'])
      .where('success', '=', 0)
      .orderBy('id')
      .execute();
    expect(failed).toEqual([
      { action: 'CLI serviceid delete', info: 'nope The service ID nope does not exist.' },
      { action: 'CLI serviceid delete', info: 'mail The service ID mail is still used by token(s) ASP1.' },
    ]);
  });
});
