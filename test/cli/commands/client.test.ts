// `authsrv client list`: the clients /validate recorded, as GET /client/ lists them (--json) and as
// a table.
import { describe, expect, it } from 'vitest';
import { recordClient } from '../../../src/core/client/index.ts';
import type { Context } from '../../../src/core/context.ts';
import type { CliEnv } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv client list on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));

  it('lists nothing before any check, then the clients grouped by type', async () => {
    expect(JSON.parse((await c.run(['client', 'list', '--json'])).stdout)).toEqual({});
    await recordClient(ctx, { ip: '192.0.2.7', userAgent: 'PAM/2.1 (linux)' });
    await recordClient(ctx, { ip: '192.0.2.8', userAgent: 'FreeRADIUS 3.2' });
    const groups = JSON.parse((await c.run(['client', 'list', '--json'])).stdout);
    expect(Object.keys(groups).sort()).toEqual(['FreeRADIUS', 'PAM']);
    expect(groups.PAM).toEqual([
      {
        hostname: null,
        ip: '192.0.2.7',
        clienttype: 'PAM',
        user_agent: 'PAM/2.1 (linux)',
        node: ctx.node,
        lastseen: expect.stringMatching(/GMT$/),
      },
    ]);
    const table = await c.run(['client', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/Type.*IP.*Hostname.*Node.*Last seen.*User agent/);
    expect(table.stdout).toMatch(/PAM +│ 192\.0\.2\.7 +│/);
    expect(table.stdout).toMatch(/FreeRADIUS +│ 192\.0\.2\.8 +│/);
  });
});
