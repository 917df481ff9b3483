// `authsrv radius client add|list|delete`: the services and messages of /radiusclient/, the secret
// from standard input (never the command line), --json, --no-message-authenticator, and an audit
// row for every change.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

const SECRET = 'vpn-nas-secret-0815';

describe.each(cliDialects())('authsrv radius client on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));

  it('adds, lists and deletes clients; audits each change', async () => {
    expect(
      await c.run(
        ['radius', 'client', 'add', 'vpn', '--address', '192.0.2.0/24', '--secret-stdin'],
        `${SECRET}\n`,
      ),
    ).toEqual({ code: 0, stdout: "RADIUS client 'vpn' saved.\n", stderr: '' });
    const json = JSON.parse(
      (
        await c.run(
          [
            'radius',
            'client',
            'add',
            'old-ap',
            '--address',
            '::1',
            '--no-message-authenticator',
            '--description',
            'old AP',
            '--secret-stdin',
            '--json',
          ],
          's2\n',
        )
      ).stdout,
    );
    expect(json).toEqual({
      'old-ap': {
        address: '::1',
        secret: '__CENSORED__',
        require_message_authenticator: false,
        description: 'old AP',
      },
    });
    expect(JSON.parse((await c.run(['radius', 'client', 'list', '--json'])).stdout)).toEqual({
      ...json,
      vpn: {
        address: '192.0.2.0/24',
        secret: '__CENSORED__',
        require_message_authenticator: true,
        description: '',
      },
    });
    const table = (await c.run(['radius', 'client', 'list'])).stdout;
    expect(table).toMatch(/vpn +│ 192\.0\.2\.0\/24 +│ required/);
    expect(table).toMatch(/old-ap +│ ::1 +│ optional +│ old AP/);
    expect(table).not.toContain(SECRET);
    expect(JSON.parse((await c.run(['radius', 'client', 'delete', 'old-ap', '--json'])).stdout)).toEqual({
      deleted: 'old-ap',
    });
    expect(Object.keys(JSON.parse((await c.run(['radius', 'client', 'list', '--json'])).stdout))).toEqual([
      'vpn',
    ]);
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI radius client add', 1, `${CLI_USER}@cli`, 'vpn'],
      ['CLI radius client add', 1, `${CLI_USER}@cli`, 'old-ap'],
      ['CLI radius client delete', 1, `${CLI_USER}@cli`, 'old-ap'],
    ]);
    const stored = await ctx.store.db.selectFrom('radiusclient').select('secret').execute();
    expect(stored.map((r) => r.secret).join()).not.toContain(SECRET);
  });

  it('refuses bad input and a secret without a terminal, with the messages of the API', async () => {
    expect(expectOneLineError(await c.run(['radius', 'client', 'add', 'x', '--address', '10.0.0.1']))).toBe(
      'authsrv: No terminal to ask for the secret: pipe it in with --secret-stdin',
    );
    expect(expectOneLineError(await c.run(['radius', 'client', 'add', 'x', '--secret-stdin'], 's\n'))).toBe(
      "authsrv: Missing parameter: 'address'",
    );
    expect(
      expectOneLineError(
        await c.run(['radius', 'client', 'add', 'x', '--address', 'nas', '--secret-stdin'], 's\n'),
      ),
    ).toMatch(/^authsrv: Invalid address 'nas'/);
    expect(expectOneLineError(await c.run(['radius', 'client', 'delete', 'nope']))).toBe(
      'authsrv: The RADIUS client nope does not exist.',
    );
    expect(JSON.parse((await c.run(['radius', 'client', 'list', '--json'])).stdout)).not.toHaveProperty('x');
  });
});
