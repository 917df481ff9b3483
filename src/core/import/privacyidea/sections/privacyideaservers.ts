// privacyIDEA server definitions (table privacyideaserver: identifier, url, tls, description), to
// which privacyIDEA's remote tokens and Federation event handler forward. authsrv has no such
// resource: every definition is reported as skipped.
import type { ImportSection } from '../section.ts';
import { piText } from './common.ts';

export const privacyideaServerSection: ImportSection = {
  name: 'privacyideaservers',
  async plan({ source }) {
    const rows = await source.db.selectFrom('privacyideaserver').select(['identifier', 'url']).execute();
    return {
      objects: [],
      skipped: rows.map((r) => ({
        object: piText(r.identifier),
        reason: `authsrv keeps no definitions of other privacyIDEA servers (${piText(r.url)}): remote tokens and federation are not supported`,
      })),
      conflicts: [],
      async write() {},
    };
  },
};
