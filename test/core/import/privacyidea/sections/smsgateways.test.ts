// The SMS gateway of the privacyIDEA fixture after an import: listed with its options and headers
// as the manifest shows them, the password censored and sealed; a provider authsrv does not offer
// is reported as skipped with the reason.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listSmsGateways } from '../../../../../src/core/smsgateway/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

const [m] = piManifest.smsgateways;

describe.each(testDialects())('import privacyidea: smsgateways (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect, {
      sql: [
        `INSERT INTO smsgateway (id, identifier, description, providermodule)
         VALUES (2, 'migsipgate', 'old provider', 'privacyidea.lib.smsprovider.SipgateSMSProvider.SipgateSMSProvider')`,
        `INSERT INTO smsgatewayoption (id, "Key", "Value", "Type", gateway_id) VALUES (11, 'USERNAME', 'u', 'option', 2)`,
      ],
    });
  }, 120_000);
  afterAll(async () => f.close());

  it('lists the gateway as the manifest shows it, the password censored', async () => {
    expect(f.section('smsgateways').objects).toEqual([m.identifier]);
    const [gw, ...others] = await listSmsGateways(f.t.rt);
    expect(others).toEqual([]);
    expect(gw).toMatchObject({
      name: m.identifier,
      providermodule: m.providermodule,
      description: m.description,
      headers: m.headers,
      // privacyIDEA sends JSON only when SEND_DATA_AS_JSON is stored as yes; authsrv needs it stored.
      options: { ...m.options, PASSWORD: '__CENSORED__', SEND_DATA_AS_JSON: 'no' },
    });
  });

  it('seals the password option, which is the manifest’s in clear', async () => {
    const row = await f.t.rt.store.db
      .selectFrom('smsgateway_option')
      .select(['value', 'sealed'])
      .where('key', '=', 'PASSWORD')
      .executeTakeFirstOrThrow();
    expect(Number(row.sealed)).toBe(1);
    expect(f.t.rt.hsm.decrypt(row.value)).toBe(m.options.PASSWORD);
  });

  it('skips a gateway of a provider authsrv does not offer, with the reason', () => {
    expect(f.section('smsgateways').skipped).toEqual([
      { object: 'migsipgate', reason: expect.stringMatching(/SipgateSMSProvider/) },
    ]);
  });
});
