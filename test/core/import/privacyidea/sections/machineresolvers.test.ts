// The machine resolver of the privacyIDEA fixture after an import: its file path mapped to the
// fixture's hosts file (--map-path), without the key `resolver` privacyIDEA's API stored, and its
// machines readable.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPrivacyidea } from '../../../../../src/core/import/index.ts';
import {
  listMachineResolvers,
  machineStoreOf,
  saveMachineResolver,
} from '../../../../../src/core/machineresolver/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { fixtureImport, PI_FIXTURE, piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';
import { openTestRuntime, type TestRuntime } from '../../../../helpers/runtime.ts';

const [m] = piManifest.machineresolvers;

describe.each(testDialects())('import privacyidea: machineresolvers (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  it('lists the resolver with its file path mapped', async () => {
    expect(f.section('machineresolvers').objects).toEqual([m.name]);
    expect(m.config.resolver).toBe(m.name);
    expect(await listMachineResolvers(f.t.rt)).toEqual({
      [m.name]: {
        resolvername: m.name,
        type: m.rtype,
        data: { filename: join(PI_FIXTURE, 'hosts') },
        censor_keys: [],
      },
    });
  });

  it('reads the machines of the mapped file', async () => {
    const row = await f.t.rt.store.db
      .selectFrom('machineresolver')
      .select(['id', 'type', 'config'])
      .where('name', '=', m.name)
      .executeTakeFirstOrThrow();
    const machines = await machineStoreOf(f.t.rt, { ...row, id: Number(row.id) }).machines({
      ip: '192.168.77.10',
    });
    expect(machines.map((x) => x.id)).toEqual(['192.168.77.10']);
  });
});

describe.each(testDialects())('import privacyidea: a machine resolver authsrv has (%s)', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime(dialect, { config: { 'files.allowed_dirs': PI_FIXTURE } });
    await saveMachineResolver(t.ctx, 'MigHosts', { type: 'hosts', filename: join(PI_FIXTURE, 'hosts') });
  });
  afterAll(async () => t.close());

  it('is a conflict also when its name differs in case', async () => {
    const dry = await importPrivacyidea(t.ctx, fixtureImport({ dryRun: true }));
    expect(dry.sections.find((s) => s.name === 'machineresolvers')?.conflicts).toEqual([m.name]);
  });
});
