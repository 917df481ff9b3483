// The SMTP server of the privacyIDEA fixture after an import: listed as the manifest shows it, the
// password censored, sealed in the database and in clear the manifest's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSmtpServers } from '../../../../../src/core/smtpserver/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

const [m] = piManifest.smtpservers;

describe.each(testDialects())('import privacyidea: smtpservers (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  it('lists the server as the manifest shows it, the password censored', async () => {
    expect(f.section('smtpservers').objects).toEqual([m.identifier]);
    expect(await listSmtpServers(f.t.rt)).toEqual({
      [m.identifier]: {
        server: m.server,
        port: m.port,
        username: m.username,
        password: '__CENSORED__',
        sender: m.sender,
        tls: m.tls,
        timeout: m.timeout,
        description: m.description,
        cacertificate: '',
      },
    });
  });

  it('seals the password, which is the manifest’s in clear', async () => {
    const row = await f.t.rt.store.db
      .selectFrom('smtpserver')
      .select('password')
      .where('identifier', '=', m.identifier)
      .executeTakeFirstOrThrow();
    expect(row.password).not.toContain(m.password_decrypted);
    expect(f.t.rt.hsm.decrypt(row.password)).toBe(m.password_decrypted);
  });
});
