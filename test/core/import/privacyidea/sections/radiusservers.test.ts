// The RADIUS server of the privacyIDEA fixture after an import: listed as the manifest shows it,
// the secret censored, sealed in the database and in clear the manifest's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findRadiusServer, listRadiusServers } from '../../../../../src/core/radiusserver/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

const [m] = piManifest.radiusservers;

describe.each(testDialects())('import privacyidea: radiusservers (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  it('lists the server as the manifest shows it, the secret censored', async () => {
    expect(f.section('radiusservers').objects).toEqual([m.identifier]);
    expect(await listRadiusServers(f.t.rt)).toEqual({
      [m.identifier]: {
        server: m.server,
        port: m.port,
        secret: '__CENSORED__',
        description: m.description,
        timeout: m.timeout,
        retries: m.retries,
      },
    });
  });

  it('seals the secret, which is the manifest’s in clear', async () => {
    const row = await f.t.rt.store.db
      .selectFrom('radiusserver')
      .select('secret')
      .where('identifier', '=', m.identifier)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(m.secret_decrypted);
    expect((await findRadiusServer(f.t.rt, m.identifier))?.secret).toBe(m.secret_decrypted);
  });
});
