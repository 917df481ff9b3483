// Realms (tables realm, resolverrealm): each realm with its resolvers and their priorities through
// the realm service, and privacyIDEA's default realm as authsrv's default when authsrv has none.
// Entries that privacyIDEA restricts to one node (node_uuid) are reported: the realm service sets
// the entries of every node only.
import { listRealms, setDefaultRealm, setRealm } from '../../../realm/index.ts';
import type { ImportSection, Skipped } from '../section.ts';
import type { PiDatabase } from '../source.ts';
import { byCodeUnits, piBool, piText } from './common.ts';
import { takenNames } from './pi-values.ts';

interface PlannedRealm {
  name: string;
  resolvers: string[];
  priorities: Record<string, number>;
}

/**
 * The realms privacyIDEA has that the import carries over, and the entries it cannot: those of
 * resolvers the resolvers section does not import (`importable`) are left out.
 */
async function realmsToImport(
  db: PiDatabase,
  importable: ReadonlySet<string>,
): Promise<{
  planned: PlannedRealm[];
  skipped: Skipped[];
  piDefault: string;
}> {
  const realms = await db.selectFrom('realm').select(['id', 'name', 'default']).orderBy('id').execute();
  realms.sort((a, b) => byCodeUnits(piText(a.name), piText(b.name)));
  const resolvers = await db.selectFrom('resolver').select(['id', 'name']).execute();
  const links = await db
    .selectFrom('resolverrealm')
    .select(['resolver_id', 'realm_id', 'priority', 'node_uuid'])
    .orderBy('id')
    .execute();
  const nodes = await db.selectFrom('nodename').select(['id', 'name']).execute();
  const skipped: Skipped[] = [];
  const planned: PlannedRealm[] = [];
  for (const realm of realms) {
    const name = piText(realm.name);
    const p: PlannedRealm = { name, resolvers: [], priorities: {} };
    for (const link of links.filter((l) => Number(l.realm_id) === Number(realm.id))) {
      const resolver = resolvers.find((r) => Number(r.id) === Number(link.resolver_id));
      const resolverName = piText(resolver?.name);
      const node = piText(link.node_uuid);
      if (node !== '') {
        const nodeName = piText(nodes.find((n) => piText(n.id) === node)?.name) || node;
        skipped.push({
          object: `${name}: ${resolverName} on node ${nodeName}`,
          reason: 'authsrv imports the resolvers of a realm for every node only; add it by hand',
        });
      } else if (!importable.has(resolverName)) {
        skipped.push({ object: `${name}: ${resolverName}`, reason: 'its resolver is not imported' });
      } else {
        p.resolvers.push(resolverName);
        if (link.priority !== null && link.priority !== undefined)
          p.priorities[resolverName] = Number(link.priority);
      }
    }
    if (p.resolvers.length > 0) planned.push(p);
    else skipped.push({ object: name, reason: 'none of its resolvers is imported' });
  }
  return { planned, skipped, piDefault: piText(realms.find((r) => piBool(r.default))?.name) };
}

export const realmSection: ImportSection = {
  name: 'realms',
  async plan(input, ctx) {
    const { source } = input;
    const { planned, skipped, piDefault } = await realmsToImport(
      source.db,
      new Set(input.planned('resolvers')),
    );
    const existing = await listRealms(ctx);
    const authsrvDefault = Object.entries(existing).find(([, v]) => v.default)?.[0];
    const setDefault = piDefault !== '' && planned.some((p) => p.name === piDefault) && !authsrvDefault;
    if (piDefault && authsrvDefault)
      skipped.push({
        object: `default realm ${piDefault}`,
        reason: `authsrv's default realm ${authsrvDefault} stays the default`,
      });
    const names = planned.map((p) => p.name);
    return {
      objects: names,
      skipped,
      conflicts: takenNames(names, Object.keys(existing)),
      async write(inner, progress) {
        for (const [i, p] of planned.entries()) {
          await setRealm(inner, p.name, p.resolvers, p.priorities);
          progress(i + 1);
        }
        if (setDefault) await setDefaultRealm(inner, piDefault);
      },
    };
  },
};
