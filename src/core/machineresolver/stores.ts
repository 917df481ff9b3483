// The open machine store of each machine resolver, opened with its kind once and reused until the
// resolver's stored settings change (a hosts file is then watched, an LDAP connection kept). The
// stored row is read for every use, so a change made on another node is seen at once.
import { type MachineStore, machineResolverKind } from '../../machine-resolvers/index.ts';
import type { Runtime } from '../context.ts';
import { parseStored } from '../plugin-settings/index.ts';

interface OpenStore {
  config: string;
  store: MachineStore;
}

const openStores = new WeakMap<Runtime['store'], Map<number, OpenStore>>();

function cacheOf(rt: Runtime): Map<number, OpenStore> {
  let cache = openStores.get(rt.store);
  if (!cache) {
    cache = new Map();
    openStores.set(rt.store, cache);
  }
  return cache;
}

/** The machine store of a stored machine resolver; opening it may fail (a missing hosts file). */
export function machineStoreOf(rt: Runtime, row: { id: number; type: string; config: string }): MachineStore {
  const cache = cacheOf(rt);
  const hit = cache.get(row.id);
  if (hit?.config === row.config) return hit.store;
  cache.delete(row.id);
  // Requests still using the old store finish with it: an LDAP connection closes when idle anyway.
  void hit?.store.close().catch(() => undefined);
  const { settings } = parseStored(rt, row.config);
  const store = machineResolverKind(row.type).open(settings, {
    log: rt.log,
    clock: rt.clock,
    files: rt.files,
  });
  cache.set(row.id, { config: row.config, store });
  return store;
}

/** Forgets (and closes) the store of a deleted machine resolver. */
export function dropMachineStore(rt: Runtime, id: number): void {
  const hit = cacheOf(rt).get(id);
  cacheOf(rt).delete(id);
  void hit?.store.close().catch(() => undefined);
}

/** Closes every open machine store of a runtime (server shutdown, end of a CLI command). */
export async function closeMachineStores(rt: Runtime): Promise<void> {
  const open = [...(openStores.get(rt.store)?.values() ?? [])];
  openStores.get(rt.store)?.clear();
  await Promise.all(open.map((s) => s.store.close().catch(() => undefined)));
}
