// The realms as authentication reads them: which exist, which is the default, which resolvers a
// realm asks in what order, and which realms hold a resolver. All from the realm directory.
import type { Runtime } from '../context.ts';
import { type RealmResolverRow, realmDirectory } from './realm-directory.ts';

/** The names of the realms that contain a resolver. */
export async function realmsOfResolver(rt: Runtime, resolver: string): Promise<string[]> {
  return (await realmDirectory(rt))
    .realms()
    .filter((r) => r.resolvers.some((x) => x.name === resolver))
    .map((r) => r.name);
}

export async function realmExists(rt: Runtime, name: string): Promise<boolean> {
  return (await realmDirectory(rt)).realm(name.toLowerCase()) !== undefined;
}

export async function defaultRealm(rt: Runtime): Promise<string | undefined> {
  return (await realmDirectory(rt)).defaultRealm;
}

/**
 * The resolvers a realm asks, in order (those for every node and those for this node), from the
 * realm directory: a new array of frozen rows.
 */
export async function orderedResolvers(rt: Runtime, realm: string): Promise<RealmResolverRow[]> {
  const found = (await realmDirectory(rt)).realm(realm.toLowerCase());
  return found ? found.resolvers.filter((r) => r.node === '' || r.node === rt.node) : [];
}
