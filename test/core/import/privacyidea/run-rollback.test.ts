// One transaction for the whole import: a section whose write fails after every other section
// wrote its objects leaves authsrv's database as it was, on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPrivacyidea } from '../../../../src/core/import/index.ts';
import { SECTIONS } from '../../../../src/core/import/privacyidea/sections/index.ts';
import { listMachineTokens } from '../../../../src/core/machine/index.ts';
import { listRealms } from '../../../../src/core/realm/index.ts';
import { listResolvers } from '../../../../src/core/resolver/index.ts';
import { listServiceIds } from '../../../../src/core/serviceid/index.ts';
import { listTokenGroups, listTokens } from '../../../../src/core/token/index.ts';
import { testDialects } from '../../../helpers/dialects.ts';
import { fixtureImport } from '../../../helpers/privacyidea-fixture.ts';
import { fixtureRuntime } from '../../../helpers/privacyidea-import.ts';
import type { TestRuntime } from '../../../helpers/runtime.ts';

describe.each(testDialects())('import privacyidea: a failing section (%s)', (dialect) => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await fixtureRuntime(dialect);
  }, 120_000);
  afterAll(async () => t.close());

  async function state() {
    return {
      serviceids: await listServiceIds(t.rt),
      resolvers: Object.keys(await listResolvers(t.ctx)),
      realms: Object.keys(await listRealms(t.rt)),
      groups: await listTokenGroups(t.rt),
      tokens: (await listTokens(t.ctx, {})).count,
      attachments: await listMachineTokens(t.rt),
    };
  }

  it('rolls back every section written before it', async () => {
    const before = await state();
    let reached = false;
    const failing = {
      name: 'failing',
      async plan() {
        return {
          objects: ['x'],
          skipped: [],
          conflicts: [],
          async write() {
            reached = true;
            throw new Error('the disk is full');
          },
        };
      },
    };
    await expect(
      importPrivacyidea(t.ctx, fixtureImport({ sections: [...SECTIONS, failing] })),
    ).rejects.toThrow('the disk is full');
    expect(reached).toBe(true);
    expect(await state()).toEqual(before);
    expect(before.tokens).toBe(0);
    // Then the import runs as if it had never been tried.
    const report = await importPrivacyidea(t.ctx, fixtureImport());
    expect(report.sections.find((s) => s.name === 'tokens')?.objects).toHaveLength(221);
    expect((await state()).tokens).toBe(221);
  });
});
