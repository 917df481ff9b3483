// The realm directory: every realm with its resolvers in order, and every resolver, kept in memory
// per database so that an authentication does not read the realm tables. It is rebuilt only when
// the `realm_version` change counter moved (see change-counters.ts): every write of the tables
// `realm`, `realm_resolver` and `resolver` goes through `writeRealmTables`, which moves the counter
// in its transaction and forgets this node's directory after the commit.
//
// Staleness: the directory asks `recentCounters`, as the configuration readers do. A request that
// reads the policies first (every /validate/… and every API call that checks a policy) reads the
// counters afresh, and its realm reads share that read: it sees every change committed anywhere
// before it began. A caller that reads no policy sees a change made on another node at most
// REUSE_MS (1 s) late. A change made on this node is seen at once.
import type { Transaction } from 'kysely';
import type { Database, Store } from '../../store/index.ts';
import { runTransaction } from '../../store/index.ts';
import {
  bumpCounter,
  CountedCache,
  forgetCounters,
  REALM_VERSION_ROW,
  recentCounters,
} from '../change-counters.ts';
import type { Runtime } from '../context.ts';

/** Lower is asked first; none sorts as this (privacyIDEA's rule). */
export const NO_PRIORITY = 1000;

/** A stored resolver (its settings as stored: password-typed values sealed). */
export interface DirectoryResolver {
  readonly id: number;
  readonly name: string;
  readonly type: string;
  readonly config: string;
  readonly updated_at: string;
}

/** A resolver as a realm lists it. */
export interface RealmResolverRow extends DirectoryResolver {
  readonly priority: number | null;
  readonly position: number;
  /** '' for every node. */
  readonly node: string;
}

export interface DirectoryRealm {
  readonly id: number;
  readonly name: string;
  readonly isDefault: boolean;
  /** Every node's rows, by priority (none = NO_PRIORITY), then by the position the realm gave them. */
  readonly resolvers: readonly RealmResolverRow[];
}

/** The frozen contents of the realm tables. */
export class RealmDirectory {
  readonly #realms: ReadonlyMap<string, DirectoryRealm>;
  readonly #resolvers: readonly DirectoryResolver[];
  readonly #resolversByName: ReadonlyMap<string, DirectoryResolver>;
  readonly #defaultRealm: string | undefined;

  constructor(realms: readonly DirectoryRealm[], resolvers: readonly DirectoryResolver[]) {
    this.#realms = new Map(realms.map((r) => [r.name, r]));
    this.#resolvers = Object.freeze([...resolvers]);
    const byName = new Map<string, DirectoryResolver>();
    for (const r of resolvers) if (!byName.has(r.name.toLowerCase())) byName.set(r.name.toLowerCase(), r);
    this.#resolversByName = byName;
    this.#defaultRealm = realms.find((r) => r.isDefault)?.name;
    Object.freeze(this);
  }

  /** The realm of this stored name (names are stored lower-case). */
  realm(name: string): DirectoryRealm | undefined {
    return this.#realms.get(name);
  }

  /** Every realm, in the order of their ids. */
  realms(): DirectoryRealm[] {
    return [...this.#realms.values()];
  }

  /** The name of the default realm, if one is set. */
  get defaultRealm(): string | undefined {
    return this.#defaultRealm;
  }

  /** A resolver by name, case-insensitively. */
  resolver(name: string): DirectoryResolver | undefined {
    return this.#resolversByName.get(name.toLowerCase());
  }

  /** Every resolver, by id. */
  resolvers(): DirectoryResolver[] {
    return [...this.#resolvers];
  }
}

const directories = new CountedCache<RealmDirectory>((c) => c.realm, recentCounters);

/**
 * The realm directory of a runtime's database: reads the change counters (or shares a read just
 * made) and the realm tables only when `realm_version` moved. Everything in it is frozen.
 */
export function realmDirectory(rt: Runtime): Promise<RealmDirectory> {
  return directories.get(rt.store, () => loadDirectory(rt.store));
}

/**
 * Three statements, not one snapshot: a write committed between them moved the counter after the
 * one this load is kept under, so the next counter read that sees it rebuilds (on this node the
 * write forgets the load at once).
 */
async function loadDirectory(store: Store): Promise<RealmDirectory> {
  const db = store.db;
  const realmRows = await db.selectFrom('realm').select(['id', 'name', 'is_default']).orderBy('id').execute();
  const resolverRows = await db
    .selectFrom('resolver')
    .select(['id', 'name', 'type', 'config', 'updated_at'])
    .orderBy('id')
    .execute();
  const links = await db
    .selectFrom('realm_resolver')
    .select(['realm_id', 'resolver_id', 'priority', 'position', 'node'])
    .execute();
  const resolvers = new Map<number, DirectoryResolver>();
  for (const r of resolverRows) {
    resolvers.set(
      r.id,
      Object.freeze({ id: r.id, name: r.name, type: r.type, config: r.config, updated_at: r.updated_at }),
    );
  }
  const byRealm = new Map<number, RealmResolverRow[]>();
  for (const l of links) {
    const resolver = resolvers.get(l.resolver_id);
    if (!resolver) continue;
    const list = byRealm.get(l.realm_id) ?? [];
    list.push(Object.freeze({ ...resolver, priority: l.priority, position: l.position, node: l.node }));
    byRealm.set(l.realm_id, list);
  }
  const realms = realmRows.map((r) => {
    const list = (byRealm.get(r.id) ?? []).sort(
      (a, b) =>
        (a.priority ?? NO_PRIORITY) - (b.priority ?? NO_PRIORITY) ||
        a.position - b.position ||
        a.id - b.id ||
        (a.node < b.node ? -1 : a.node > b.node ? 1 : 0),
    );
    return Object.freeze({
      id: r.id,
      name: r.name,
      isDefault: r.is_default === 1,
      resolvers: Object.freeze(list),
    });
  });
  return new RealmDirectory(realms, [...resolvers.values()]);
}

/**
 * Runs a write of the realm tables in one transaction that also moves `realm_version` (last, after
 * the write, as the other counters are moved), then forgets this node's directory and the counters
 * it read: a load begun before the commit is neither handed out nor kept. `write` returns
 * `{ changed: false }` when it wrote nothing (the counter then stays).
 */
export async function writeRealmTables<T>(
  store: Store,
  write: (trx: Transaction<Database>) => Promise<{ value: T; changed: boolean }>,
): Promise<T> {
  try {
    return await runTransaction(store, async (trx) => {
      const { value, changed } = await write(trx);
      if (changed) await bumpCounter(trx, store, REALM_VERSION_ROW);
      return value;
    });
  } finally {
    // Also after a failure: a commit whose outcome is unknown must not leave a stale directory.
    directories.forget(store);
    forgetCounters(store);
  }
}
