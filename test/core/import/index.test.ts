// The import of a privacyIDEA installation as a whole: dry run, refusal of a second run, one
// transaction, bad sources. The objects of each section are checked in test/core/import/privacyidea/.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPrivacyidea } from '../../../src/core/import/index.ts';
import { listServiceIds } from '../../../src/core/serviceid/index.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { fixtureImport, piManifest } from '../../helpers/privacyidea-fixture.ts';
import { fixtureRuntime } from '../../helpers/privacyidea-import.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe.each(testDialects())('import privacyidea (%s)', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await fixtureRuntime(dialect);
  });
  afterAll(async () => t.close());

  it('plans in a dry run and writes nothing', async () => {
    const report = await importPrivacyidea(t.ctx, fixtureImport({ dryRun: true }));
    expect(report.dryRun).toBe(true);
    expect(report.schemaVersion).toBe(piManifest.fixture.alembic_version);
    const serviceids = report.sections.find((s) => s.name === 'serviceids');
    expect(serviceids?.objects).toEqual(['migservice']);
    expect(await listServiceIds(t.rt)).toEqual({});
  });

  it('imports, then refuses a second run and changes nothing', async () => {
    await importPrivacyidea(t.ctx, fixtureImport());
    const after = await listServiceIds(t.rt);
    expect(after.migservice?.description).toBe('MIG SSH service (webservers)');
    await expect(importPrivacyidea(t.ctx, fixtureImport())).rejects.toThrow(
      /already holds objects .*serviceids: migservice/,
    );
    expect(await listServiceIds(t.rt)).toEqual(after);
    const dry = await importPrivacyidea(t.ctx, fixtureImport({ dryRun: true }));
    expect(dry.sections.find((s) => s.name === 'serviceids')?.conflicts).toEqual(['migservice']);
  });
});

describe('import privacyidea: bad sources', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime('sqlite');
  });
  afterAll(async () => t.close());

  it('refuses a missing file, a database that is not privacyIDEA, a wrong key file', async () => {
    await expect(importPrivacyidea(t.ctx, fixtureImport({ db: '/nonexistent/pi.sqlite' }))).rejects.toThrow(
      /does not exist/,
    );
    await expect(importPrivacyidea(t.ctx, fixtureImport({ db: 'users.sqlite' }))).rejects.toThrow(
      /not a privacyIDEA database/,
    );
    await expect(importPrivacyidea(t.ctx, fixtureImport({ encfile: 'pepper.txt' }))).rejects.toThrow(
      /must hold 96 bytes/,
    );
    await expect(importPrivacyidea(t.ctx, fixtureImport({ db: 'oracle://x' }))).rejects.toThrow(
      /Unsupported privacyIDEA database URL scheme/,
    );
    expect(await listServiceIds(t.rt)).toEqual({});
  });
});
