// The realms of the privacyIDEA fixture after an import, against manifest.json: their resolvers
// with priorities, and the default realm.
import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../../../../../src/core/import/index.ts';
import { importPrivacyidea } from '../../../../../src/core/import/index.ts';
import { listRealms, setRealm } from '../../../../../src/core/realm/index.ts';
import { saveResolver } from '../../../../../src/core/resolver/index.ts';
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
const REALMS = piManifest.realms as Record<string, any>;

describe.each(testDialects())('import privacyidea: realms (%s)', (dialect) => {
  let t: TestRuntime;
  let report: ImportReport;
  useImportedRuntime(dialect, (imported) => ({ t, report } = imported));

  it('imports the realms with their resolvers, priorities and the default realm', async () => {
    expect(sectionReport(report, 'realms')).toMatchObject({
      objects: Object.keys(REALMS).sort(),
      skipped: [],
    });
    const listed = await listRealms(t.rt);
    for (const [name, m] of Object.entries(REALMS)) {
      expect(listed[name]?.default, name).toBe(m.default);
      expect(
        listed[name]?.resolver.map((r) => ({ name: r.name, priority: r.priority, node: r.node })),
        name,
      ).toEqual(
        m.resolvers.map((r: { name: string; priority: number }) => ({
          name: r.name,
          priority: r.priority,
          node: '',
        })),
      );
    }
    expect(Object.entries(listed).find(([, v]) => v.default)?.[0]).toBe(piManifest.default_realm.after_run);
  });
});

describe('import privacyidea: realms beside a default realm of authsrv', () => {
  it("keeps authsrv's default realm and says so", async () => {
    const t = await fixtureRuntime('sqlite');
    try {
      await saveResolver(t.ctx, 'local', { type: 'passwdresolver', Filename: `${PI_FIXTURE}/users.passwd` });
      await setRealm(t.ctx, 'home', ['local'], {});
      const report = await importPrivacyidea(t.ctx, fixtureImport());
      expect(sectionReport(report, 'realms').skipped).toEqual([
        { object: 'default realm migrealm', reason: "authsrv's default realm home stays the default" },
      ]);
      const listed = await listRealms(t.rt);
      expect([listed.home?.default, listed.migrealm?.default, listed.migsql?.default]).toEqual([
        true,
        false,
        false,
      ]);
    } finally {
      await t.close();
    }
  });
});

describe('import privacyidea: realm entries of one node', () => {
  it('are reported; the realm keeps its entries for every node', async () => {
    const node = piManifest.fixture.pi_node_uuid as string;
    const t = await fixtureRuntime('sqlite');
    const db = fixtureDatabaseWith(t.dataDir, [
      `INSERT INTO resolverrealm (resolver_id, realm_id, priority, node_uuid) VALUES (2, 1, 5, '${node}')`,
    ]);
    try {
      const report = await importPrivacyidea(t.ctx, fixtureImport({ db }));
      expect(sectionReport(report, 'realms').skipped).toEqual([
        {
          object: 'migrealm: migsqlres on node peer',
          reason: 'authsrv imports the resolvers of a realm for every node only; add it by hand',
        },
      ]);
      expect((await listRealms(t.rt)).migrealm?.resolver.map((r) => r.name)).toEqual(['migpasswd']);
    } finally {
      await t.close();
    }
  });
});
