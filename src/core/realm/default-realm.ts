// GET /defaultrealm: the default realm as a one-entry list of realms, or none.
import type { Runtime } from '../context.ts';
import { defaultRealm } from '../directory/index.ts';
import { listRealms, type RealmView } from './realm.ts';

/** The default realm by name with its resolvers; empty when no realm is the default. */
export async function defaultRealmView(rt: Runtime): Promise<Record<string, RealmView>> {
  const name = await defaultRealm(rt);
  if (!name) return {};
  const all = await listRealms(rt);
  return { [name]: all[name]! };
}
