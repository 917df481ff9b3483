// The policies of the privacyIDEA fixture after an import, as the policy service lists them: scope,
// action (privacyIDEA's text split at unescaped commas), lists, priority, flags, conditions and
// description as the manifest shows them. The policies name realms: where the import has no realms
// section yet, the test creates them first (privacyidea-import.ts), since the policy service
// refuses a policy naming a realm that does not exist; plan() counts the realms an earlier section
// imports as existing.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PiKeys } from '../../../../../src/core/import/privacyidea/keys.ts';
import { policySection } from '../../../../../src/core/import/privacyidea/sections/policies.ts';
import { openPrivacyideaDatabase, type PiSource } from '../../../../../src/core/import/privacyidea/source.ts';
import { getPolicies } from '../../../../../src/core/policy/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { PI_FIXTURE, piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';
import { openTestRuntime, type TestRuntime } from '../../../../helpers/runtime.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifest data
const manifestPolicies = piManifest.policies as Record<string, any>;

/** privacyIDEA's action text as a dict: `a, b=1` → {a: true, b: '1'}. */
function actionDict(text: string): Record<string, string | true> {
  const out: Record<string, string | true> = {};
  for (const item of text.split(/(?<!\\),/).map((s) => s.trim())) {
    const eq = item.indexOf('=');
    if (eq < 0) out[item] = true;
    else out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

const list = (text: string) => (text === '' ? [] : text.split(',').map((s) => s.trim()));

describe.each(testDialects())('import privacyidea: policies (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  it('imports every policy of the manifest', () => {
    expect(f.section('policies').objects.sort()).toEqual(Object.keys(manifestPolicies).sort());
    expect(f.section('policies').skipped).toEqual([]);
  });

  it('lists each as the manifest shows it', async () => {
    const listed = await getPolicies(f.t.rt);
    for (const [name, m] of Object.entries(manifestPolicies)) {
      const p = listed[name]!;
      expect(p, name).toMatchObject({
        scope: m.scope,
        active: m.active,
        action: actionDict(m.action),
        realm: list(m.realm),
        resolver: list(m.resolver),
        user: list(m.user),
        adminrealm: list(m.adminrealm),
        adminuser: list(m.adminuser),
        client: list(m.client),
        servicenode: list(m.pinode),
        pinode: list(m.pinode),
        time: m.time,
        priority: m.priority,
        check_all_resolvers: m.check_all_resolvers,
        user_case_insensitive: m.user_case_insensitive,
        description: m.description,
      });
      expect(p.conditions, name).toEqual(
        m.conditions.map((c: Record<string, unknown>) => [c.section, c.key, c.comparator, c.value, c.active]),
      );
    }
  });
});

describe.each(testDialects())('import privacyidea: policies authsrv refuses (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect, {
      sql: [
        `INSERT INTO policy (id, active, check_all_resolvers, name, user_case_insensitive, scope, action, realm,
         adminrealm, adminuser, resolver, pinode, user, client, time, priority)
       VALUES (9, 1, 0, 'mig-bad-node', 0, 'authentication', 'otppin=none', '', '', '', '', 'elsewhere', '', '', '', 1),
              (10, 1, 0, 'mig-bad-action', 0, 'authentication', 'no_such_action=1', '', '', '', '', '', '', '', '', 1),
              (11, 1, 1, 'mig-escaped', 1, 'enrollment', 'tokenlabel=a\\, b, tokenissuer=x', 'migrealm', '', '', '', '', '', '', '', 3)`,
      ],
    });
  }, 120_000);
  afterAll(async () => f.close());

  it('skips a policy naming an unknown node or action, with the service’s reason', () => {
    const skipped = f.section('policies').skipped;
    expect(skipped.map((s) => s.object).sort()).toEqual(['mig-bad-action', 'mig-bad-node']);
    expect(skipped.find((s) => s.object === 'mig-bad-node')?.reason).toMatch(
      /Undefined Nodes: \['elsewhere'\]/,
    );
    expect(skipped.find((s) => s.object === 'mig-bad-action')?.reason).toMatch(/no_such_action/);
  });

  it('keeps an escaped comma in an action value, the flags and the priority', async () => {
    const p = (await getPolicies(f.t.rt))['mig-escaped'];
    expect(p).toMatchObject({
      action: { tokenlabel: 'a, b', tokenissuer: 'x' },
      realm: ['migrealm'],
      priority: 3,
      check_all_resolvers: true,
      user_case_insensitive: true,
      description: null,
    });
  });
});

describe.each(testDialects())(
  'import privacyidea: policies and the realms the import creates (%s)',
  (dialect) => {
    let t: TestRuntime;
    let source: PiSource;
    beforeAll(async () => {
      t = await openTestRuntime(dialect);
      source = await openPrivacyideaDatabase(join(PI_FIXTURE, 'pi.sqlite'), PI_FIXTURE);
    });
    afterAll(async () => {
      await source.close();
      await t.close();
    });

    const plan = (realms: string[]) =>
      policySection.plan(
        {
          source,
          keys: PiKeys.fromFile(join(PI_FIXTURE, 'encfile')),
          pepper: '',
          mapPath: (p) => p,
          planned: (section) => (section === 'realms' ? realms : []),
        },
        t.ctx,
      );

    it('plans the policies naming realms an earlier section imports', async () => {
      const planned = await plan(['migrealm', 'migsql']);
      expect(planned.objects.sort()).toEqual(Object.keys(manifestPolicies).sort());
      expect(planned.skipped).toEqual([]);
    });

    it('skips those naming realms that neither exist nor are imported', async () => {
      const planned = await plan(['migrealm']);
      const onMigsql = Object.keys(manifestPolicies).filter((n) => manifestPolicies[n].realm === 'migsql');
      expect(planned.skipped.map((s) => s.object).sort()).toEqual(onMigsql.sort());
      for (const s of planned.skipped) expect(s.reason).toBe("Undefined User-Realms: ['migsql']!");
      expect(await getPolicies(t.rt)).toEqual({});
    });
  },
);
