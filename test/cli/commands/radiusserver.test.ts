// `authsrv radiusserver list|set|delete|test`: the services and messages of /radiusserver/, the
// secret and the test password from standard input (never the command line), --json, the test
// against FreeRADIUS (exit 1 when not accepted), and an audit row for every change and test.
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { CLI_USER, type CliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { RADIUS_ALICE_PASSWORD, RADIUS_SECRET, useFreeRadius } from '../../helpers/freeradius.ts';

const fr = useFreeRadius();

describe.each(cliDialects())('authsrv radiusserver on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));

  it('sets, lists, tests and deletes definitions; audits each change and test', async () => {
    const set = await c.run(
      [
        'radiusserver',
        'set',
        'fr',
        '--server',
        '127.0.0.1',
        '--port',
        String(fr.port),
        '--timeout',
        '1',
        '--retries',
        '0',
        '--password-stdin',
      ],
      `${RADIUS_SECRET}\n`,
    );
    expect(set).toEqual({ code: 0, stdout: "RADIUS server 'fr' saved.\n", stderr: '' });
    // Without --secret the stored secret is kept.
    const json = JSON.parse(
      (await c.run(['radiusserver', 'set', 'fr', '--description', 'upstream', '--json'])).stdout,
    );
    expect(json).toEqual({
      fr: {
        server: '127.0.0.1',
        port: fr.port,
        secret: '__CENSORED__',
        description: 'upstream',
        timeout: 1,
        retries: 0,
      },
    });
    expect(JSON.parse((await c.run(['radiusserver', 'list', '--json'])).stdout)).toEqual(json);
    expect((await c.run(['radiusserver', 'list'])).stdout).toMatch(
      /fr +│ 127\.0\.0\.1 +│ \d+ +│ 1 +│ 0 +│ upstream/,
    );

    expect(
      await c.run(
        ['radiusserver', 'test', 'fr', '--username', 'alice', '--password-stdin'],
        `${RADIUS_ALICE_PASSWORD}\n`,
      ),
    ).toEqual({
      code: 0,
      stdout: 'Accepted: Access-Accept (Reply-Message: Hello alice)\n',
      stderr: '',
    });
    const refused = await c.run(
      ['radiusserver', 'test', 'fr', '--username', 'alice', '--password-stdin', '--json'],
      'wrong\n',
    );
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toEqual({
      value: false,
      description: expect.stringMatching(/^Access-Reject/),
    });

    expect(JSON.parse((await c.run(['radiusserver', 'delete', 'fr', '--json'])).stdout)).toEqual({
      deleted: 'fr',
    });
    expect(JSON.parse((await c.run(['radiusserver', 'list', '--json'])).stdout)).toEqual({});
    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI radiusserver set', 1, `${CLI_USER}@cli`, 'fr'],
      ['CLI radiusserver set', 1, `${CLI_USER}@cli`, 'fr'],
      ['CLI radiusserver test', 1, `${CLI_USER}@cli`, 'fr'],
      ['CLI radiusserver test', 0, `${CLI_USER}@cli`, 'fr'],
      ['CLI radiusserver delete', 1, `${CLI_USER}@cli`, 'fr'],
    ]);
    expect(rows.map((r) => r.info).join()).not.toContain(RADIUS_SECRET);
  });

  it('refuses a new definition without secret, unknown ones and a secret without a terminal, with the messages of the API', async () => {
    expect(expectOneLineError(await c.run(['radiusserver', 'set', 'x', '--server', 'h']))).toBe(
      "authsrv: Missing parameter: 'secret'",
    );
    expect(expectOneLineError(await c.run(['radiusserver', 'set', 'x', '--server', 'h', '--secret']))).toBe(
      'authsrv: No terminal to ask for the secret: pipe it in with --password-stdin',
    );
    expect(expectOneLineError(await c.run(['radiusserver', 'delete', 'nope']))).toBe(
      'authsrv: The RADIUS server nope does not exist.',
    );
    expect(
      expectOneLineError(
        await c.run(
          ['radiusserver', 'set', 'x', '--server', 'h', '--password-stdin'],
          `${'s'.repeat(256)}\n`,
        ),
      ),
    ).toBe('authsrv: The RADIUS secret is too long');
    expect(JSON.parse((await c.run(['radiusserver', 'list', '--json'])).stdout)).toEqual({});
  });
});
