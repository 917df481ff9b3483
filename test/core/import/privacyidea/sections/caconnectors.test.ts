// The CA connector of the privacyIDEA fixture after an import: its file paths mapped (--map-path),
// without the key `name` privacyIDEA's API stored, the CA opened; a CA type authsrv lacks and a CA
// whose files are missing are reported as skipped with the reason.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listCaConnectors } from '../../../../../src/core/caconnector/index.ts';
import { importPrivacyidea } from '../../../../../src/core/import/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { fixtureImport, PI_FIXTURE, piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';
import { openTestRuntime, type TestRuntime } from '../../../../helpers/runtime.ts';

const [m] = piManifest.caconnectors;

describe.each(testDialects())('import privacyidea: caconnectors (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect, {
      sql: [`INSERT INTO caconnector (id, name, catype) VALUES (2, 'migmsca', 'microsoft')`],
    });
  }, 120_000);
  afterAll(async () => f.close());

  it('lists the connector with its paths mapped', async () => {
    expect(f.section('caconnectors').objects).toEqual([m.name]);
    const ca = join(f.dir, 'ca');
    const expected: Record<string, string> = {};
    for (const [key, { value }] of Object.entries(m.config as Record<string, { value: string }>))
      if (key !== 'name') expected[key] = value.replace('/etc/privacyidea/fixture/ca', ca);
    const [listed, ...others] = await listCaConnectors(f.t.rt);
    expect(others).toEqual([]);
    expect(listed).toMatchObject({ connectorname: m.name, type: m.catype, data: expected });
  });

  it('skips a CA type authsrv lacks, with the reason', () => {
    expect(f.section('caconnectors').skipped).toEqual([
      { object: 'migmsca', reason: expect.stringMatching(/microsoft/) },
    ]);
  });

  it('reports the connector as a conflict in a second run', async () => {
    const dry = await importPrivacyidea(f.t.ctx, fixtureImport({ dryRun: true }));
    expect(dry.sections.find((s) => s.name === 'caconnectors')?.conflicts).toEqual([m.name]);
  });
});

describe.each(testDialects())('import privacyidea: a CA connector without its files (%s)', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect, { config: { 'files.allowed_dirs': PI_FIXTURE } });
  });
  afterAll(async () => t.close());

  it('is skipped with the reason (the fixture ships the CA without its CRL directory)', async () => {
    const dry = await importPrivacyidea(t.ctx, fixtureImport({ dryRun: true }));
    expect(dry.sections.find((s) => s.name === 'caconnectors')?.skipped).toEqual([
      { object: m.name, reason: expect.stringMatching(/crl.*does not exist/) },
    ]);
  });
});
