import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { getPolicies, setPolicy } from '../../../src/core/policy/index.ts';
import { CLI_USER, type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv policy on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));
  const stored = () => getPolicies(ctx);

  it('sets, lists, shows, flips, checks, exports, deletes and imports policies, auditing changes', async () => {
    await setPolicy(ctx, 'pol2', { scope: 'webui', action: 'login_mode=userstore' });
    await setPolicy(ctx, 'pol3', { scope: 'admin', action: 'tokenlist', adminuser: 'root', priority: 2 });

    expect(
      await c.run([
        'policy',
        'set',
        'pol1',
        '--scope',
        'admin',
        '--action',
        'tokenlist, policywrite, auditlog_age=5d',
        '--user',
        'alice,bob',
        '--client',
        '10.0.0.0/8',
        '--priority',
        '3',
        '--inactive',
        '--description',
        'helpdesk',
      ]),
    ).toEqual({ code: 0, stdout: expect.stringMatching(/^Policy 'pol1' saved \(id \d+\)\n$/), stderr: '' });
    const listed: Json = JSON.parse((await c.run(['policy', 'list', '--json'])).stdout);
    expect(Object.keys(listed)).toEqual(['pol1', 'pol2', 'pol3']);
    expect(listed.pol1).toMatchObject({
      name: 'pol1',
      scope: 'admin',
      action: { tokenlist: true, policywrite: true, auditlog_age: '5d' },
      active: false,
      user: ['alice', 'bob'],
      client: ['10.0.0.0/8'],
      realm: [],
      priority: 3,
      description: 'helpdesk',
    });

    expect(await c.run(['policy', 'enable', 'pol1'])).toMatchObject({
      code: 0,
      stdout: "Policy 'pol1' enabled.\n",
    });
    expect((await stored()).pol1?.active).toBe(true);

    const yes = await c.run([
      'policy',
      'check',
      '--scope',
      'admin',
      '--action',
      'tokenlist',
      '--user',
      'alice',
    ]);
    // Best priority first: pol3 (2) before pol1 (3).
    expect(yes).toEqual({ code: 0, stdout: 'allowed: yes\npolicies: pol3, pol1\n', stderr: '' });
    const no = await c.run([
      'policy',
      'check',
      '--scope',
      'admin',
      '--action',
      'policywrite',
      '--user',
      'carol',
      '--json',
    ]);
    expect(no.code).toBe(0);
    expect(JSON.parse(no.stdout)).toEqual({ allowed: false, policy: [], info: 'No policies found' });

    expect((await c.run(['policy', 'disable', 'pol1'])).stdout).toBe("Policy 'pol1' disabled.\n");
    expect((await stored()).pol1?.active).toBe(false);
    expect((await c.run(['policy', 'rename', 'pol1', 'polA'])).stdout).toBe(
      "Policy 'pol1' renamed to 'polA'.\n",
    );
    expect((await c.run(['policy', 'rename', 'polA', 'pol1'])).code).toBe(0);
    expect(Object.keys(await stored())).toContain('pol1');

    const show = await c.run(['policy', 'show', 'pol1']);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^name: +pol1$/m);
    expect(show.stdout).toMatch(/^action: +tokenlist, policywrite, auditlog_age=5d$/m);
    expect(show.stdout).toMatch(/^active: +no$/m);
    expect(show.stdout).toMatch(/^user: +alice, bob$/m);
    expect(show.stdout).toMatch(/^priority: +3$/m);
    expect(expectOneLineError(await c.run(['policy', 'show', 'ghost']))).toBe(
      'authsrv: The requested Policy could not be found.',
    );
    expect(expectOneLineError(await c.run(['policy', 'delete', 'ghost']))).toBe(
      'authsrv: The requested Policy could not be found.',
    );

    expect((await c.run(['policy', 'defs', 'admin'])).stdout).toMatch(
      /│ policywrite +│ bool +│ system +│ Write policies\. +│/,
    );

    // Export, delete, change, import: every policy comes back as it was.
    const file = join(c.dataDir, 'policies.txt');
    const snapshot = await stored();
    expect(await c.run(['policy', 'export', '--file', file])).toEqual({
      code: 0,
      stdout: '',
      stderr: `Exported 3 policies to ${file}\n`,
    });
    expect(readFileSync(file, 'utf8')).toMatch(/^\[pol1\]$/m);
    expect((await c.run(['policy', 'delete', 'pol1'])).stdout).toBe("Policy 'pol1' deleted.\n");
    await setPolicy(ctx, 'pol2', { scope: 'webui', action: 'login_mode=privacyIDEA' });
    expect(Object.keys(await stored())).toEqual(['pol2', 'pol3']);
    expect(await c.run(['policy', 'import', file])).toEqual({
      code: 0,
      stdout: 'created pol1\nupdated pol2\nunchanged pol3\n',
      stderr: '',
    });
    expect(await stored()).toEqual(snapshot);

    // One bad policy and nothing of the file is stored.
    const broken = join(c.dataDir, 'broken.txt');
    writeFileSync(
      broken,
      '[pol3]\nscope = "admin"\naction = "tokenlist"\npriority = 9\n\n[pol4]\nscope = "nosuchscope"\naction = "x"\n',
    );
    expect(expectOneLineError(await c.run(['policy', 'import', broken]))).toBe(
      "authsrv: Invalid scope 'nosuchscope'",
    );
    expect(await stored()).toEqual(snapshot);

    const rows = await ctx.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI policy set', 1, `${CLI_USER}@cli`, 'pol1 admin'],
      ['CLI policy enable', 1, `${CLI_USER}@cli`, 'pol1'],
      ['CLI policy disable', 1, `${CLI_USER}@cli`, 'pol1'],
      ['CLI policy rename', 1, `${CLI_USER}@cli`, 'pol1 polA'],
      ['CLI policy rename', 1, `${CLI_USER}@cli`, 'polA pol1'],
      ['CLI policy delete', 0, `${CLI_USER}@cli`, 'ghost The requested Policy could not be found.'],
      ['CLI policy delete', 1, `${CLI_USER}@cli`, 'pol1'],
      ['CLI policy import', 1, `${CLI_USER}@cli`, file],
      ['CLI policy import', 0, `${CLI_USER}@cli`, `${broken} Invalid scope 'nosuchscope'`],
    ]);
  });
});
