// The custom user attributes of the privacyIDEA fixture after an import: each kept by user id,
// resolver and realm name, as the user service reads them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUser } from '../../../../../src/core/directory/index.ts';
import { getUserAttributes } from '../../../../../src/core/user/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifest data
const attributes = piManifest.customuserattributes as any[];

describe.each(testDialects())('import privacyidea: customuserattributes (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  it('imports every attribute', () => {
    expect(f.section('customuserattributes').objects).toEqual(
      attributes.map((a) => `${a.Key} of ${a.user_id} in ${a.resolver} (realm ${a.realm})`),
    );
  });

  it('gives each to its user, found in the realm', async () => {
    for (const a of attributes) {
      const user = await findUser(f.t.rt, a.user, a.realm);
      expect(user).toMatchObject({ userid: a.user_id, resolver: a.resolver });
      expect(await getUserAttributes(f.t.ctx, user!, a.Key)).toBe(a.Value);
    }
  });
});
