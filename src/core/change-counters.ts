// The change counters in `meta` that let every node keep the policies, the system configuration,
// the realm directory, the sessions' validity and which tokens are attached to machines in memory:
// each write of the `policy` or `config` table, of the realm tables (`realm`, `realm_resolver`,
// `resolver`), of the session tables (`admin`, `session_revocation`), of the `machinetoken`
// rows (attaching, detaching, deleting a token), or of the event definitions (`eventhandler`),
// moves its counter in the same transaction, and a node reloads what it caches only when the
// counter it reads has moved (on this node or on any other sharing the database). All counters are read with one statement, and concurrent callers
// share the read in flight.
import { sql, type Transaction } from 'kysely';
import { type Database, prepared, type Store } from '../store/index.ts';
/** The counter of the `policy` table (its row is created by migration 0004). */
export const POLICY_VERSION_ROW = 'policy_version';
/** The counter of the `config` table (its row is created by the first write). */
export const CONFIG_VERSION_ROW = 'config_version';
/** The counter of the tables `realm`, `realm_resolver` and `resolver` (its row is created by the first write). */
export const REALM_VERSION_ROW = 'realm_version';
/** The counter of the tables `admin` and `session_revocation` (its row is created by the first write). */
export const SESSION_VERSION_ROW = 'session_version';
/** The counter of the `machinetoken` rows (its row is created by the first write). */
export const MACHINETOKEN_VERSION_ROW = 'machinetoken_version';
/** The counter of the `eventhandler` table (its row is created by the first write). */
export const EVENT_VERSION_ROW = 'event_version';

export interface Counters {
  policy: number;
  config: number;
  realm: number;
  session: number;
  machinetoken: number;
  event: number;
}

/**
 * How long a finished read may stand in for a new one where `recentCounters` is asked (the
 * configuration readers and the realm directory): every request that reads policies first reads the counters afresh, so
 * its configuration and realm reads share that read; a request that reads no policy sees a change
 * made on another node at most this late. Changes made on this node are seen at once.
 */
export const REUSE_MS = 1000;

interface State {
  /** Moves with every local write: a read that began before it publishes nothing. */
  generation: number;
  running?: Promise<Counters> | undefined;
  latest?: { at: number; counters: Counters } | undefined;
}

const states = new WeakMap<Store, State>();

function stateOf(store: Store): State {
  let st = states.get(store);
  if (!st) {
    st = { generation: 0 };
    states.set(store, st);
  }
  return st;
}

function parse(value: string | undefined): number {
  return value === undefined ? 0 : Number.parseInt(value, 10) || 0;
}

const COUNTER_ROWS = [
  POLICY_VERSION_ROW,
  CONFIG_VERSION_ROW,
  REALM_VERSION_ROW,
  SESSION_VERSION_ROW,
  MACHINETOKEN_VERSION_ROW,
  EVENT_VERSION_ROW,
];
const counterRows = prepared((db, v: { names: string[] }) =>
  db.selectFrom('meta').select(['name', 'value']).where('name', 'in', v.names),
);

/**
 * The counters as stored now (an absent row counts as 0): one statement, shared with the
 * callers that ask while it runs.
 */
export function readCounters(store: Store): Promise<Counters> {
  const st = stateOf(store);
  if (st.running) return st.running;
  const generation = st.generation;
  const at = performance.now();
  const read: Promise<Counters> = (async () => {
    const { rows } = await counterRows.run(store.db, { names: COUNTER_ROWS });
    const value = (name: string) => rows.find((r) => r.name === name)?.value;
    const counters = {
      policy: parse(value(POLICY_VERSION_ROW)),
      config: parse(value(CONFIG_VERSION_ROW)),
      realm: parse(value(REALM_VERSION_ROW)),
      session: parse(value(SESSION_VERSION_ROW)),
      machinetoken: parse(value(MACHINETOKEN_VERSION_ROW)),
      event: parse(value(EVENT_VERSION_ROW)),
    };
    if (st.generation === generation) st.latest = { at, counters };
    return counters;
  })().finally(() => {
    if (st.running === read) st.running = undefined;
  });
  st.running = read;
  return read;
}

/** The counters of a read begun less than REUSE_MS ago, else those of a new read. */
export function recentCounters(store: Store): Promise<Counters> {
  const latest = stateOf(store).latest;
  if (latest && performance.now() - latest.at < REUSE_MS) return Promise.resolve(latest.counters);
  return readCounters(store);
}

/** A number that moves with every `forgetCounters`: a cache fills itself only when it did not move. */
export function countersGeneration(store: Store): number {
  return stateOf(store).generation;
}

/**
 * After a local write has committed: no read that began before it is handed to a later caller,
 * and no cache is filled from one.
 */
export function forgetCounters(store: Store): void {
  const st = stateOf(store);
  st.generation++;
  st.running = undefined;
  st.latest = undefined;
}

/**
 * Moves a counter inside the transaction of the write: one statement that inserts the row when it
 * is absent (a fresh database, or one migrated before the counter existed) and increments it
 * otherwise. Concurrent writers on several nodes serialise on the row; neither an increment nor
 * the race of two first inserts is lost.
 */
export async function bumpCounter(
  trx: Transaction<Database>,
  store: Pick<Store, 'dialect'>,
  name: string,
): Promise<void> {
  const value = sql.ref('meta.value');
  if (store.dialect === 'mysql') {
    await trx
      .insertInto('meta')
      .values({ name, value: '1' })
      .onDuplicateKeyUpdate({ value: sql<string>`cast(cast(${value} as unsigned) + 1 as char)` })
      .execute();
    return;
  }
  const int = store.dialect === 'postgres' ? sql.raw('bigint') : sql.raw('integer');
  await trx
    .insertInto('meta')
    .values({ name, value: '1' })
    .onConflict((oc) =>
      oc.column('name').doUpdateSet({ value: sql<string>`cast(cast(${value} as ${int}) + 1 as text)` }),
    )
    .execute();
}

/**
 * A value kept per database and rebuilt only when its counter moved: the compiled policies, the
 * configuration snapshot, the realm directory, the sessions' validity, the tokens attached for an
 * application that issues items. Concurrent callers share one load; a load that began before a local
 * write (forget) is neither handed to later callers nor kept.
 */
export class CountedCache<T> {
  readonly #version: (counters: Counters) => number;
  readonly #counters: (store: Store) => Promise<Counters>;
  readonly #kept = new WeakMap<Store, { version: number; value: T }>();
  readonly #loading = new WeakMap<Store, Promise<T>>();

  /**
   * @param version which counter the value depends on
   * @param counters readCounters (a fresh read) or recentCounters (a read shared for REUSE_MS)
   */
  constructor(version: (counters: Counters) => number, counters: (store: Store) => Promise<Counters>) {
    this.#version = version;
    this.#counters = counters;
  }

  get(store: Store, build: () => Promise<T>): Promise<T> {
    const running = this.#loading.get(store);
    if (running) return running;
    const generation = countersGeneration(store);
    const load: Promise<T> = (async () => {
      const version = this.#version(await this.#counters(store));
      const hit = this.#kept.get(store);
      if (hit?.version === version) return hit.value;
      const value = await build();
      if (countersGeneration(store) === generation) this.#kept.set(store, { version, value });
      return value;
    })().finally(() => {
      if (this.#loading.get(store) === load) this.#loading.delete(store);
    });
    this.#loading.set(store, load);
    return load;
  }

  /** After a local write: the next get() builds afresh. */
  forget(store: Store): void {
    this.#kept.delete(store);
    this.#loading.delete(store);
  }
}
