// The token groups of the privacyIDEA fixture after an import (their members: tokens.test.ts).
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../../../../src/core/import/index.ts';
import { listTokenGroups } from '../../../../../src/core/token/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { sectionReport, useImportedRuntime } from '../../../../helpers/privacyidea-import.ts';
import type { TestRuntime } from '../../../../helpers/runtime.ts';

describe.each(testDialects())('import privacyidea: token groups (%s)', (dialect) => {
  let t: TestRuntime;
  let report: ImportReport;
  useImportedRuntime(dialect, (imported) => ({ t, report } = imported));

  it('imports the groups with their descriptions', async () => {
    const groups = piManifest.tokengroups as { name: string; Description: string }[];
    expect(sectionReport(report, 'tokengroups').objects).toEqual(groups.map((g) => g.name).sort());
    const listed = await listTokenGroups(t.rt);
    for (const g of groups) expect(listed[g.name]?.description, g.name).toBe(g.Description);
  });
});
