// `authsrv import privacyidea` run for real on the privacyIDEA 3.11 fixture: the dry run's summary
// table (nothing written), the import with --json and the audit trail (visible in `authsrv audit
// list` with its mark), the refusal of a second run, and the one-line errors of bad options and
// missing files.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { listServiceIds } from '../../../src/core/serviceid/index.ts';
import { type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { PI_FIXTURE, piManifest } from '../../helpers/privacyidea-fixture.ts';

const ROWS = piManifest.foreign_objects.audit_rows_total as number;

/** The options naming the fixture's files, its paths mapped to them. */
function fixtureArgs(over: { db?: string; encfile?: string; pepper?: string } = {}): string[] {
  const remap = piManifest.fixture.path_remapping as Record<string, string>;
  return [
    'import',
    'privacyidea',
    '--db',
    over.db ?? join(PI_FIXTURE, 'pi.sqlite'),
    '--encfile',
    over.encfile ?? join(PI_FIXTURE, 'encfile'),
    '--pepper-file',
    over.pepper ?? join(PI_FIXTURE, 'pepper.txt'),
    ...Object.entries(remap).flatMap(([from, to]) => ['--map-path', `${from}=${join(PI_FIXTURE, to)}`]),
  ];
}

const AUDIT = ['--with-audit', '--audit-public-key', join(PI_FIXTURE, 'audit-public.pem')];

describe.each(cliDialects())('authsrv import privacyidea on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'each', (f) => ({ c, ctx } = f));
  // The CLI reads ./authsrv.toml (it runs in the data directory): the resolvers' user store files
  // must be in an allowed directory.
  beforeEach(() => {
    writeFileSync(
      join(c.dataDir, 'authsrv.toml'),
      `[files]\nallowed_dirs = [${JSON.stringify(PI_FIXTURE)}]\n`,
    );
  });

  const auditRows = async () => (await ctx.store.db.selectFrom('audit').select('id').execute()).length;

  it('prints the summary table of a dry run and writes nothing', async () => {
    const r = await c.run([...fixtureArgs(), ...AUDIT, '--dry-run']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/section +│ would import +│ not imported +│ already in authsrv/);
    expect(r.stdout).toMatch(/serviceids +│ 1 +│ 0 +│ 0/);
    expect(r.stdout).toMatch(new RegExp(`audit +│ ${ROWS} +│ 0 +│ 0`));
    expect(r.stdout).toContain(`note: audit: privacyIDEA signature verified: ${ROWS} rows`);
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('Dry run: nothing was written.');
    expect(await listServiceIds(ctx)).toEqual({});
    expect(await auditRows()).toBe(0);
  });

  it('imports with a JSON summary, shows the imported audit rows, and refuses a second run', async () => {
    const r = await c.run([...fixtureArgs(), ...AUDIT, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const report: Json = JSON.parse(r.stdout);
    expect(report).toMatchObject({ dryRun: false, schemaVersion: piManifest.fixture.alembic_version });
    const counts = report.sections.map((s: Json) => [s.name, s.objects.length, s.conflicts.length]);
    expect(counts).toContainEqual(['serviceids', 1, 0]);
    expect(counts.at(-1)).toEqual(['audit', ROWS, 0]);
    expect(counts.every(([, , conflicts]: number[]) => conflicts === 0)).toBe(true);
    expect(Object.keys(await listServiceIds(ctx))).toEqual(['migservice']);
    // privacyIDEA's rows and the import's own row (CLI import privacyidea).
    expect(await auditRows()).toBe(ROWS + 1);

    const listed = await c.run(['audit', 'list', 'imported_number=1483', 'imported_from=privacyidea']);
    expect(listed.stdout).toMatch(/2026-11-25T16:54:39\.740883Z/);
    expect(listed.stdout).toMatch(/privacyidea #1483 verified/);
    const own = await c.run(['audit', 'list', 'action=CLI import privacyidea', '--json']);
    expect(JSON.parse(own.stdout).auditdata[0]).toMatchObject({ success: 1, imported_from: '' });

    const again = await c.run([...fixtureArgs(), ...AUDIT]);
    expect(again.code).toBe(1);
    expect(expectOneLineError(again)).toMatch(
      /^authsrv: authsrv already holds objects of this privacyIDEA installation \(imported before\?\), nothing was imported: serviceids: migservice; .*audit: #1, #2, .* and \d+ more$/,
    );
    // Only the refused run's own audit row is new.
    expect(await auditRows()).toBe(ROWS + 2);
  });

  it('refuses a bad --map-path and missing files with one line each, writing nothing', async () => {
    expect(expectOneLineError(await c.run([...fixtureArgs(), '--map-path', 'nonsense']))).toBe(
      "authsrv: --map-path takes OLD=NEW, not 'nonsense'",
    );
    expect(expectOneLineError(await c.run(fixtureArgs({ db: '/nonexistent/pi.sqlite' })))).toBe(
      'authsrv: The privacyIDEA database file /nonexistent/pi.sqlite does not exist',
    );
    expect(expectOneLineError(await c.run(fixtureArgs({ encfile: '/nonexistent/encfile' })))).toMatch(
      /^authsrv: Cannot read the privacyIDEA key file \/nonexistent\/encfile: /,
    );
    expect(expectOneLineError(await c.run(fixtureArgs({ pepper: '/nonexistent/pepper' })))).toMatch(
      /^authsrv: Cannot read the privacyIDEA pepper file \/nonexistent\/pepper: /,
    );
    expect(
      expectOneLineError(
        await c.run([...fixtureArgs(), '--with-audit', '--audit-public-key', '/nonexistent/audit.pem']),
      ),
    ).toMatch(/^authsrv: Cannot read privacyIDEA's audit public key \/nonexistent\/audit\.pem: /);
    // commander's own message for a required option.
    const noDb = await c.run(['import', 'privacyidea', '--encfile', 'x', '--pepper-file', 'y']);
    expect(noDb.code).not.toBe(0);
    expect(noDb.stderr).toBe("error: required option '--db <url-or-file>' not specified\n");
    expect(await listServiceIds(ctx)).toEqual({});
    expect(
      await ctx.store.db
        .selectFrom('audit')
        .select('id')
        .where('imported_from', '=', 'privacyidea')
        .execute(),
    ).toEqual([]);
  });
});
