// Monitoring values after an import (the fixture holds none: rows are added to a copy of its
// database): every value of each stats key at its time, listed by the monitoring service; a second
// run reports the keys as conflicts. Times keep their microseconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPrivacyidea } from '../../../../../src/core/import/index.ts';
import { statsKeys, statsValues } from '../../../../../src/core/monitoring/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { fixtureImport } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

describe.each(testDialects())('import privacyidea: monitoring (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect, {
      sql: [
        `INSERT INTO monitoringstats (id, timestamp, stats_key, stats_value)
         VALUES (1, '2026-11-25 16:00:00.250001', 'total_tokens', 221),
                (2, '2026-11-25 16:30:00.000000', 'total_tokens', 222),
                (3, '2026-11-25 16:30:00.000000', 'hardware_tokens', 0)`,
      ],
    });
  }, 120_000);
  afterAll(async () => f.close());

  it('imports the values of each key at their times', async () => {
    expect(f.section('monitoring').objects).toEqual(['hardware_tokens', 'total_tokens']);
    expect(await statsKeys(f.t.rt)).toEqual(['hardware_tokens', 'total_tokens']);
    expect(await statsValues(f.t.rt, 'total_tokens')).toEqual([
      ['2026-11-25 16:00:00.250001+0000', 221],
      ['2026-11-25 16:30:00.000000+0000', 222],
    ]);
    expect(await statsValues(f.t.rt, 'hardware_tokens')).toEqual([['2026-11-25 16:30:00.000000+0000', 0]]);
  });

  it('reports the keys as conflicts when the values are there already', async () => {
    const dry = await importPrivacyidea(f.t.ctx, fixtureImport({ dryRun: true, db: f.db! }));
    expect(dry.sections.find((s) => s.name === 'monitoring')?.conflicts).toEqual([
      'hardware_tokens',
      'total_tokens',
    ]);
  });
});
