// privacyIDEA server definitions (the fixture holds none: a row is added to a copy of its
// database): authsrv has no such resource, so each is reported as skipped with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../../../../helpers/dialects.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

describe.each(testDialects())('import privacyidea: privacyideaservers (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect, {
      sql: [
        `INSERT INTO privacyideaserver (id, identifier, url, tls, description)
         VALUES (1, 'upstream', 'https://pi.example/', 1, 'federation')`,
      ],
    });
  }, 120_000);
  afterAll(async () => f.close());

  it('skips every definition with the reason', () => {
    expect(f.section('privacyideaservers')).toMatchObject({
      objects: [],
      conflicts: [],
      skipped: [
        { object: 'upstream', reason: expect.stringMatching(/no definitions of other privacyIDEA servers/) },
      ],
    });
  });
});
