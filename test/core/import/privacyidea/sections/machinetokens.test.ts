// The machine attachments of the privacyIDEA fixture after an import, against manifest.json. The
// machine resolver they name comes from its own section, or, where that is missing, is written
// through authsrv's service before the import (test/helpers/privacyidea-import.ts).
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../../../../src/core/import/index.ts';
import { listMachineTokens } from '../../../../../src/core/machine/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { sectionReport, useImportedRuntime } from '../../../../helpers/privacyidea-import.ts';
import type { TestRuntime } from '../../../../helpers/runtime.ts';

interface ManifestAttachment {
  serial: string;
  application: string;
  machineresolver: string | null;
  machine_id: string | null;
  options: Record<string, string>;
}
const ATTACHMENTS = piManifest.machinetokens as ManifestAttachment[];

describe.each(testDialects())('import privacyidea: machine tokens (%s)', (dialect) => {
  let t: TestRuntime;
  let report: ImportReport;
  useImportedRuntime(dialect, (imported) => ({ t, report } = imported));

  it('attaches the tokens to their machines with their options', async () => {
    expect(sectionReport(report, 'machinetokens')).toMatchObject({ skipped: [], conflicts: [] });
    const listed = await listMachineTokens(t.rt);
    const shown = listed.map((a) => ({
      serial: a.serial,
      application: a.application,
      machineresolver: a.resolver,
      machine_id: a.machine_id,
      options: a.options,
    }));
    const sortKey = (a: ManifestAttachment) => `${a.serial} ${a.application}`;
    expect(shown.sort((a, b) => sortKey(a).localeCompare(sortKey(b)))).toEqual(
      [...ATTACHMENTS]
        .sort((a, b) => sortKey(a).localeCompare(sortKey(b)))
        .map(({ serial, application, machineresolver, machine_id, options }) => ({
          serial,
          application,
          machineresolver,
          machine_id,
          options,
        })),
    );
  });
});
