// A test runtime with the privacyIDEA 3.11 fixture imported (test/helpers/privacyidea-fixture.ts):
// the fixture's files allowed, the clock after the snapshot (2026-11-25 16:54:45 UTC), and the
// machine resolver `mighosts` the machine tokens refer to written through authsrv's service while
// the import has no section machineresolvers of its own.
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type ImportReport,
  importPrivacyidea,
  type PrivacyideaImportOptions,
} from '../../src/core/import/index.ts';
import { SECTIONS } from '../../src/core/import/privacyidea/sections/index.ts';
import { saveMachineResolver } from '../../src/core/machineresolver/index.ts';
import { openPool } from '../../src/store/index.ts';
import type { DialectName } from './dialects.ts';
import { fixtureImport, PI_FIXTURE } from './privacyidea-fixture.ts';
import { openTestRuntime, type TestRuntime } from './runtime.ts';

/** A day after the fixture's snapshot: every sample time step of the manifest lies before it. */
export const AFTER_SNAPSHOT = new Date('2026-11-26T09:00:00.000Z');

/** A runtime that allows the fixture's files, its clock at AFTER_SNAPSHOT, with mighosts written. */
export async function fixtureRuntime(dialect: DialectName): Promise<TestRuntime> {
  const t = await openTestRuntime(dialect, {
    config: { 'files.allowed_dirs': PI_FIXTURE },
    now: AFTER_SNAPSHOT,
  });
  if (!SECTIONS.some((s) => s.name === 'machineresolvers'))
    await saveMachineResolver(t.ctx, 'mighosts', { type: 'hosts', filename: join(PI_FIXTURE, 'hosts') });
  return t;
}

/** fixtureRuntime with the fixture imported. */
export async function importedRuntime(
  dialect: DialectName,
  overrides: Partial<PrivacyideaImportOptions> = {},
): Promise<{ t: TestRuntime; report: ImportReport }> {
  const t = await fixtureRuntime(dialect);
  const report = await importPrivacyidea(t.ctx, fixtureImport(overrides));
  return { t, report };
}

/** The report of one section. */
export function sectionReport(report: ImportReport, name: string) {
  const s = report.sections.find((x) => x.name === name);
  if (!s) throw new Error(`no section ${name} in the report`);
  return s;
}

/**
 * A copy of the fixture's database changed by `edit` (rows privacyIDEA could have that the fixture
 * lacks), in the runtime's data directory (removed with it); the path of the copy, for the option `db`.
 */
export async function editedFixture(
  t: TestRuntime,
  // biome-ignore lint/suspicious/noExplicitAny: privacyIDEA's schema
  edit: (db: import('kysely').Kysely<any>) => Promise<void>,
): Promise<string> {
  const file = join(t.dataDir, 'pi-edited.sqlite');
  copyFileSync(join(PI_FIXTURE, 'pi.sqlite'), file);
  const db = await openPool(
    { dialect: 'sqlite', file },
    { maxConnections: 1, sqlite: { busyTimeoutMs: 1000 } },
  );
  try {
    await edit(db);
  } finally {
    await db.destroy();
  }
  return file;
}
