// The periodic task of the privacyIDEA fixture after an import: listed with its interval, nodes,
// module, ordering, flags and options as the manifest shows them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listPeriodicTasks } from '../../../../../src/core/periodictask/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

const [m] = piManifest.periodictasks;

describe.each(testDialects())('import privacyidea: periodictasks (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  it('lists the task as the manifest shows it', async () => {
    expect(f.section('periodictasks').objects).toEqual([m.name]);
    const [task, ...others] = await listPeriodicTasks(f.t.rt);
    expect(others).toEqual([]);
    expect(task).toMatchObject({
      name: m.name,
      active: m.active,
      retryIfFailed: m.retry_if_failed,
      interval: m.interval,
      nodes: m.nodes.split(','),
      taskmodule: m.taskmodule,
      ordering: m.ordering,
      options: m.options,
      lastRuns: {},
    });
  });
});
