// The resolvers of the privacyIDEA fixture after an import, against manifest.json: listed as the
// manifest shows them (file paths mapped, passwords __CENSORED__ and sealed), their users found and
// their passwords checked.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findUser } from '../../../../../src/core/directory/index.ts';
import { type ImportReport, importPrivacyidea } from '../../../../../src/core/import/index.ts';
import { parseStored } from '../../../../../src/core/plugin-settings/index.ts';
import { listResolvers } from '../../../../../src/core/resolver/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { fixtureImport, PI_FIXTURE, piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import {
  fixtureDatabaseWith,
  fixtureRuntime,
  sectionReport,
  useImportedRuntime,
} from '../../../../helpers/privacyidea-import.ts';
import type { TestRuntime } from '../../../../helpers/runtime.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifest entries are data
const RESOLVERS = piManifest.resolvers as Record<string, any>;
// biome-ignore lint/suspicious/noExplicitAny: manifest entries are data
const USERS = piManifest.users as Record<string, { resolver: string; users: Record<string, any> }>;

/** A file path of the privacyIDEA host as the import maps it (--map-path of the fixture). */
function mapped(value: string): string {
  const file = piManifest.fixture.path_remapping[value];
  return file ? join(PI_FIXTURE, file) : value;
}

describe.each(testDialects())('import privacyidea: resolvers (%s)', (dialect) => {
  let t: TestRuntime;
  let report: ImportReport;
  useImportedRuntime(dialect, (imported) => ({ t, report } = imported));

  it('imports every resolver with nothing left out', () => {
    const r = sectionReport(report, 'resolvers');
    expect(r.objects).toEqual(Object.keys(RESOLVERS).sort());
    expect(r.skipped).toEqual([]);
  });

  it('lists them as the manifest shows them: paths mapped, fileName and Filename one setting, passwords censored', async () => {
    const listed = await listResolvers(t.ctx);
    for (const [name, m] of Object.entries(RESOLVERS)) {
      expect(listed[name]?.type, name).toBe(m.type);
      const expected: Record<string, string> = {};
      for (const [key, v] of Object.entries(m.config as Record<string, { value: string; type: string }>)) {
        if (v.value === '') continue; // an empty setting is no setting
        const setting = key === 'fileName' ? 'Filename' : key;
        expected[setting] = v.type === 'password' ? '__CENSORED__' : mapped(v.value);
      }
      expect(listed[name]?.data, name).toEqual(expected);
    }
  });

  it('seals the LDAP bind password it decrypted', async () => {
    const row = await t.rt.store.db
      .selectFrom('resolver')
      .select('config')
      .where('name', '=', 'migldap')
      .executeTakeFirstOrThrow();
    expect(row.config).not.toContain(RESOLVERS.migldap.config.BINDPW.decrypted);
    expect(parseStored(t.rt, row.config).settings.BINDPW).toBe(RESOLVERS.migldap.config.BINDPW.decrypted);
  });

  it('finds the users of the passwd and SQL resolvers and checks their passwords', async () => {
    for (const [realm, { resolver, users }] of Object.entries(USERS)) {
      for (const [login, u] of Object.entries(users)) {
        const found = await findUser(t.rt, login, realm);
        expect({ resolver: found?.resolver, userid: found?.userid }, login).toEqual({
          resolver,
          userid: u.user_id,
        });
        expect(await found!.store.checkPassword(found!.info, u.password), login).toBe(true);
        expect(await found!.store.checkPassword(found!.info, `${u.password}x`), login).toBe(false);
      }
    }
  });
});

describe('import privacyidea: resolvers and settings authsrv cannot take', () => {
  it('are reported; a file outside files.allowed_dirs refuses the import', async () => {
    const t = await fixtureRuntime('sqlite');
    const db = fixtureDatabaseWith(t.dataDir, [
      "INSERT INTO resolverconfig (resolver_id, Key, Value, Type) VALUES (1, 'mig.extra', 'x', '')",
      "INSERT INTO resolver (id, name, rtype) VALUES (9, 'mighttp', 'httpresolver')",
    ]);
    try {
      const report = await importPrivacyidea(t.ctx, fixtureImport({ db, dryRun: true }));
      expect(sectionReport(report, 'resolvers').skipped).toEqual([
        { object: 'mighttp', reason: 'authsrv has no resolver type httpresolver' },
        { object: 'migpasswd.mig.extra', reason: "authsrv's passwdresolver has no setting mig.extra" },
      ]);
      await expect(importPrivacyidea(t.ctx, fixtureImport({ db, mapPaths: [] }))).rejects.toThrow(
        /The resolver migpasswd cannot be imported: .*users.passwd/,
      );
      expect(await listResolvers(t.ctx)).toEqual({});
    } finally {
      await t.close();
    }
  });
});
