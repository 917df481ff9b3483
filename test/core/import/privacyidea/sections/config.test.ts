// The system configuration of the privacyIDEA fixture after an import: every key of the manifest
// but privacyIDEA's cache marker, with its type, the password-typed one sealed and censored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configSnapshot, listConfig } from '../../../../../src/core/system/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

type ManifestEntry = { value: string; type: string; description: string; decrypted?: string };
const manifestConfig = piManifest.config as Record<string, ManifestEntry>;

describe.each(testDialects())('import privacyidea: config (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  it('imports every key but __timestamp__, which is reported as skipped', () => {
    const keys = Object.keys(manifestConfig).filter((k) => k !== '__timestamp__');
    expect(f.section('config').objects.sort()).toEqual(keys.sort());
    expect(f.section('config').skipped).toEqual([
      { object: '__timestamp__', reason: expect.stringMatching(/not a setting/) },
    ]);
    expect(piManifest.config_keys_written_by_mig_run.every((k: string) => keys.includes(k))).toBe(true);
  });

  it('lists the values as the manifest shows them, the password censored', async () => {
    const listed = await listConfig(f.t.ctx);
    for (const [key, entry] of Object.entries(manifestConfig)) {
      if (key === '__timestamp__') expect(listed[key]).toBeUndefined();
      else expect(listed[key]).toBe(entry.type === 'password' ? '__CENSORED__' : entry.value);
    }
    for (const [key, value] of Object.entries(piManifest.setDefault_values as Record<string, string>))
      expect(listed[key]).toBe(value);
  });

  it('keeps the types and descriptions, and seals the password-typed value', async () => {
    const rows = await f.t.rt.store.db.selectFrom('config').selectAll().execute();
    const byKey = new Map(rows.map((r) => [r.name, r]));
    for (const [key, entry] of Object.entries(manifestConfig)) {
      if (key === '__timestamp__') continue;
      expect(byKey.get(key)?.type).toBe(entry.type);
      expect(byKey.get(key)?.description).toBe(entry.description);
    }
    const secret = (await configSnapshot(f.t.rt)).get('mig.api.secret')!;
    expect(secret.value).not.toContain(manifestConfig['mig.api.secret']!.decrypted);
    expect(f.t.rt.hsm.decrypt(secret.value)).toBe(manifestConfig['mig.api.secret']!.decrypted);
  });
});
