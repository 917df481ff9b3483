// Token groups (table tokengroup: name, Description) through the token group service. Which tokens
// are in a group (tokentokengroup) the tokens section writes with the tokens.
import { listTokenGroups, setTokenGroup } from '../../../token/index.ts';
import type { ImportSection } from '../section.ts';
import { byCodeUnits, piText } from './common.ts';

export const tokenGroupSection: ImportSection = {
  name: 'tokengroups',
  async plan({ source }, ctx) {
    const rows = await source.db
      .selectFrom('tokengroup')
      .select(['name', 'Description'])
      .orderBy('id')
      .execute();
    rows.sort((a, b) => byCodeUnits(piText(a.name), piText(b.name)));
    const names = rows.map((r) => piText(r.name));
    const existing = await listTokenGroups(ctx);
    return {
      objects: names,
      skipped: [],
      conflicts: names.filter((n) => existing[n] !== undefined),
      async write(inner, progress) {
        for (const [i, row] of rows.entries()) {
          await setTokenGroup(inner, piText(row.name), piText(row.Description));
          progress(i + 1);
        }
      },
    };
  },
};
