// `authsrv event list|show|set|enable|disable|delete|modules`: the services and error messages of
// /event/, --json, a replacing update, and an audit row for every change.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv event on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));

  const json = async (args: string[]): Promise<Json> => {
    const r = await c.run([...args, '--json']);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout);
  };

  it('sets, replaces, shows, lists, disables, enables and deletes definitions; audits each change', async () => {
    expect(await json(['event', 'list'])).toEqual([]);
    const created = await json([
      'event',
      'set',
      'log inits',
      'message=init of {serial}',
      'level=WARNING',
      '--event',
      'token_init,token_assign',
      '--module',
      'Logging',
      '--action',
      'logging',
      '--position',
      'pre',
      '--ordering',
      '4',
      '--conditions',
      '{"tokentype":"hotp"}',
    ]);
    expect(created).toEqual({
      id: expect.any(Number),
      name: 'log inits',
      active: true,
      event: ['token_init', 'token_assign'],
      handlermodule: 'Logging',
      action: 'logging',
      position: 'pre',
      ordering: 4,
      options: { message: 'init of {serial}', level: 'WARNING' },
      conditions: { tokentype: 'hotp' },
      condition: '',
    });
    const id = String(created.id);
    // --id replaces the definition whole: the options and conditions not given are gone.
    expect(
      await c.run([
        'event',
        'set',
        'renamed',
        'message=x',
        '--id',
        id,
        '--event',
        'auth',
        '--module',
        'Logging',
        '--action',
        'logging',
      ]),
    ).toEqual({ code: 0, stdout: `Event handling definition 'renamed' saved (id ${id}).\n`, stderr: '' });
    expect(await json(['event', 'show', id])).toMatchObject({
      name: 'renamed',
      event: ['auth'],
      position: 'post',
      ordering: 0,
      options: { message: 'x' },
      conditions: {},
    });
    expect((await c.run(['event', 'show', id])).stdout).toMatch(/Name: +renamed\n[\s\S]*Option message: x/);
    expect((await c.run(['event', 'list'])).stdout).toMatch(/renamed.*│ yes.*│ auth.*Logging/);
    expect(await json(['event', 'disable', id])).toEqual({ disabled: Number(id) });
    expect((await json(['event', 'list']))[0].active).toBe(false);
    expect(await c.run(['event', 'enable', id])).toEqual({
      code: 0,
      stdout: `Event handling definition ${id} enabled.\n`,
      stderr: '',
    });
    expect(await json(['event', 'delete', id])).toEqual({ deleted: Number(id) });
    expect(await json(['event', 'list'])).toEqual([]);
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI event set', 1, `${CLI_USER}@cli`, 'log inits'],
      ['CLI event set', 1, `${CLI_USER}@cli`, 'renamed'],
      ['CLI event disable', 1, `${CLI_USER}@cli`, id],
      ['CLI event enable', 1, `${CLI_USER}@cli`, id],
      ['CLI event delete', 1, `${CLI_USER}@cli`, id],
    ]);
  });

  it('refuses bad definitions with the messages of the API, storing nothing', async () => {
    const base = ['event', 'set', 'x', '--event', 'auth', '--action', 'logging'];
    expect(expectOneLineError(await c.run([...base, '--module', 'Nope']))).toBe(
      'authsrv: Unknown handler module: Nope',
    );
    expect(expectOneLineError(await c.run([...base, '--module', 'Logging', '--conditions', '{bad']))).toBe(
      'authsrv: conditions must be a JSON object.',
    );
    expect(expectOneLineError(await c.run([...base, '--module', 'Logging', 'colour=red']))).toBe(
      'authsrv: The action logging has no option colour.',
    );
    expect(expectOneLineError(await c.run(['event', 'delete', '999']))).toBe(
      'authsrv: The event handling definition 999 does not exist.',
    );
    expect(await ctx.store.db.selectFrom('eventhandler').selectAll().execute()).toEqual([]);
  });

  it('lists the modules and what one offers', async () => {
    expect(await json(['event', 'modules'])).toEqual([
      'UserNotification',
      'Token',
      'Script',
      'Counter',
      'RequestMangler',
      'ResponseMangler',
      'Logging',
      'CustomUserAttributes',
      'WebHook',
    ]);
    const counter = await json(['event', 'modules', 'Counter']);
    expect(counter.positions).toEqual(['post', 'pre']);
    expect(Object.keys(counter.actions)).toEqual(['increase_counter', 'decrease_counter', 'reset_counter']);
    expect(counter.conditions).toHaveProperty('tokentype');
    expect((await c.run(['event', 'modules', 'WebHook'])).stdout).toMatch(
      /Action post_webhook: URL\*, content_type\*/,
    );
  });

  it("lists the Script module's actions from the configured scripts directory", async () => {
    const scripts = join(c.dataDir, 'event-scripts');
    mkdirSync(scripts);
    writeFileSync(join(scripts, 'notify.sh'), '#!/bin/sh\n', { mode: 0o755 });
    writeFileSync(join(scripts, 'readme.txt'), 'no action');
    const config = join(c.dataDir, 'authsrv.toml');
    writeFileSync(config, `[event]\nscripts_dir = ${JSON.stringify(scripts)}\n`);
    const script = await json(['--config', config, 'event', 'modules', 'Script']);
    expect(Object.keys(script.actions)).toEqual(['notify.sh']);
    expect(script.actions['notify.sh'].background.required).toBe(true);
  });
});
