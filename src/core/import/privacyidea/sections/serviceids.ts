// Service IDs (table serviceid: name, Description).
import { setServiceId } from '../../../serviceid/index.ts';
import type { ImportSection } from '../section.ts';
import { existingNames } from './existing.ts';

export const serviceIdSection: ImportSection = {
  name: 'serviceids',
  async plan({ source }, ctx) {
    const rows = await source.db
      .selectFrom('serviceid')
      .select(['name', 'Description'])
      .orderBy('id')
      .execute();
    const names = rows.map((r) => String(r.name));
    const taken = await existingNames(ctx, 'serviceid', 'name', names);
    return {
      objects: names,
      skipped: [],
      conflicts: taken,
      async write(inner, progress) {
        for (const [i, row] of rows.entries()) {
          await setServiceId(inner, String(row.name), String(row.Description ?? ''));
          progress(i + 1);
        }
      },
    };
  },
};
