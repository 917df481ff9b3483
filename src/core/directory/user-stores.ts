// The open user store of each resolver: its stored settings (password-typed values sealed by the
// security module) opened with the resolver kind once and reused until the settings change.
import { UserError } from '../../errors.ts';
import { resolverKind, type UserStore } from '../../resolvers/index.ts';
import type { Runtime } from '../context.ts';
import { parseStored } from '../plugin-settings/index.ts';
import { realmDirectory } from './realm-directory.ts';

interface OpenStore {
  /** The stored configuration the store was opened with: another one means the settings changed. */
  type: string;
  config: string;
  store: UserStore;
}

/** Open user stores by resolver id; reopened when the resolver's settings change. */
const openStores = new WeakMap<Runtime['store'], Map<number, OpenStore>>();

/** Stores replaced or deleted, closed after a grace period so that requests using them can finish. */
const retiredStores = new WeakMap<Runtime['store'], Set<UserStore>>();
const RETIRE_GRACE_MS = 30_000;

function storeCache(rt: Runtime): Map<number, OpenStore> {
  let cache = openStores.get(rt.store);
  if (!cache) {
    cache = new Map();
    openStores.set(rt.store, cache);
  }
  return cache;
}

function retire(rt: Runtime, store: UserStore): void {
  let retired = retiredStores.get(rt.store);
  if (!retired) {
    retired = new Set();
    retiredStores.set(rt.store, retired);
  }
  retired.add(store);
  const set = retired;
  setTimeout(() => {
    if (set.delete(store)) store.close().catch(() => undefined);
  }, RETIRE_GRACE_MS).unref();
}

/** Forgets the open store of a resolver that was deleted. */
export function dropStore(rt: Runtime, id: number): void {
  const cache = storeCache(rt);
  const hit = cache.get(id);
  cache.delete(id);
  if (hit) retire(rt, hit.store);
}

export interface ResolverHandle {
  id: number;
  name: string;
  type: string;
  store: UserStore;
}

/**
 * The user store of a resolver, opened once and reused while its settings stay the same. The
 * resolver is looked up in the realm directory (no statement while the realm tables are unchanged).
 */
export async function userStore(rt: Runtime, name: string): Promise<ResolverHandle> {
  const row = (await realmDirectory(rt)).resolver(name);
  if (!row) throw new UserError(`The resolver '${name}' does not exist!`);
  return userStoreOf(rt, row);
}

/**
 * The open store of a resolver row. The configuration text, not the update time, decides whether the
 * open store is still current: a pinned clock or two updates within one millisecond leave the time
 * unchanged. Nothing is awaited between the look-up and the insertion, so concurrent requests never
 * open (and leak) two stores for one resolver.
 */
export async function userStoreOf(
  rt: Runtime,
  row: { id: number; name: string; type: string; config: string },
): Promise<ResolverHandle> {
  const cache = storeCache(rt);
  const hit = cache.get(row.id);
  if (hit && hit.config === row.config && hit.type === row.type)
    return { id: row.id, name: row.name, type: row.type, store: hit.store };
  const { settings } = parseStored(rt, row.config);
  const store = resolverKind(row.type).open(settings, { log: rt.log, clock: rt.clock, files: rt.files });
  cache.set(row.id, { type: row.type, config: row.config, store });
  // Requests still using the old store finish with it; its connections go after the grace period.
  if (hit) retire(rt, hit.store);
  return { id: row.id, name: row.name, type: row.type, store };
}

/** Closes every open user store of a runtime (server shutdown). */
export async function closeUserStores(rt: Runtime): Promise<void> {
  const open = [...(openStores.get(rt.store)?.values() ?? [])].map((s) => s.store);
  const retired = [...(retiredStores.get(rt.store) ?? [])];
  openStores.get(rt.store)?.clear();
  retiredStores.get(rt.store)?.clear();
  await Promise.all([...open, ...retired].map((s) => s.close().catch(() => undefined)));
}
