// `authsrv stats list|show|delete`: the monitoring values with the services and messages of
// /monitoring/, --json, windows with offsets, --last, an audit row per delete, and bad dates or
// options refused with one error line and exit 1, nothing deleted.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { statsValues, writeStatsValue } from '../../../src/core/monitoring/index.ts';
import { type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

const T0 = Date.parse('2026-03-01T12:00:00.000Z');

describe.each(cliDialects())('authsrv stats on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));
  beforeEach(async () => {
    for (let m = 0; m < 4; m++)
      await writeStatsValue(ctx, 'logins', m * 10, { at: new Date(T0 + m * 60_000) });
    await writeStatsValue(ctx, 'total_tokens', 7, { at: new Date(T0) });
  });
  afterEach(async () => {
    await ctx.store.db.deleteFrom('monitoringstats').execute();
    await ctx.store.db.deleteFrom('audit').execute();
  });

  const json = async (args: string[]) => {
    const r = await c.run([...args, '--json']);
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout);
  };
  const text = async (args: string[]) => {
    const r = await c.run(args);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout;
  };

  it('lists the keys with their last value', async () => {
    expect(await json(['stats', 'list'])).toEqual(['logins', 'total_tokens']);
    const out = await text(['stats', 'list']);
    expect(out).toMatch(/│ logins +│ 30 +│\n/);
    expect(out).toMatch(/│ total_tokens │ 7 +│\n/);
  });

  it('shows the values of a key in a window, or its last value', async () => {
    expect(await json(['stats', 'show', 'logins'])).toEqual([
      ['2026-03-01 12:00:00.000000+0000', 0],
      ['2026-03-01 12:01:00.000000+0000', 10],
      ['2026-03-01 12:02:00.000000+0000', 20],
      ['2026-03-01 12:03:00.000000+0000', 30],
    ]);
    expect(
      await json([
        'stats',
        'show',
        'logins',
        '--start',
        '2026-03-01 14:01+0200',
        '--end',
        '2026-03-01T12:02:00Z',
      ]),
    ).toEqual([
      ['2026-03-01 12:01:00.000000+0000', 10],
      ['2026-03-01 12:02:00.000000+0000', 20],
    ]);
    expect(await text(['stats', 'show', 'logins', '--start', '2026-03-01 12:03Z'])).toMatch(
      /│ 2026-03-01 12:03:00\.000000\+0000 │ 30 +│\n/,
    );
    expect(await json(['stats', 'show', 'logins', '--last'])).toBe(30);
    expect(await text(['stats', 'show', 'logins', '--last'])).toBe('30\n');
    expect(await json(['stats', 'show', 'nope', '--last'])).toBeNull();
    expect(await text(['stats', 'show', 'nope', '--last'])).toBe("No value of 'nope'.\n");
    expect(await json(['stats', 'show', 'nope'])).toEqual([]);
  });

  it('deletes a window and writes an audit row', async () => {
    expect(
      await json([
        'stats',
        'delete',
        'logins',
        '--start',
        '2026-03-01 12:01+0000',
        '--end',
        '2026-03-01 12:02Z',
      ]),
    ).toEqual({ deleted: 2 });
    expect(await text(['stats', 'delete', 'logins'])).toBe("Deleted 2 values of 'logins'.\n");
    expect(await text(['stats', 'delete', 'total_tokens'])).toBe("Deleted 1 value of 'total_tokens'.\n");
    expect(await json(['stats', 'list'])).toEqual([]);
    const rows = await ctx.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info'])
      .where('action', 'like', 'CLI stats%')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.success, r.info])).toEqual([
      ['CLI stats delete', 1, 'logins start=2026-03-01 12:01+0000 end=2026-03-01 12:02Z'],
      ['CLI stats delete', 1, 'logins'],
      ['CLI stats delete', 1, 'total_tokens'],
    ]);
  });

  it('refuses bad dates and options with one error line and exit 1, deleting nothing', async () => {
    expect(expectOneLineError(await c.run(['stats', 'delete', 'logins', '--start', 'yesterday']))).toBe(
      "authsrv: The parameter 'start' is not a date: 'yesterday' (use e.g. '2010-12-31 22:00+0200' or '2010-12-31T20:00:00Z')",
    );
    expect(expectOneLineError(await c.run(['stats', 'show', 'logins', '--end', '2026-02-30']))).toMatch(
      /^authsrv: The parameter 'end' is not a date: '2026-02-30'/,
    );
    expect(
      expectOneLineError(await c.run(['stats', 'show', 'logins', '--last', '--start', '2026-03-01'])),
    ).toBe('authsrv: Give --last or --start/--end, not both');
    expect((await statsValues(ctx, 'logins')).map(([, v]) => v)).toEqual([0, 10, 20, 30]);
  });
});
