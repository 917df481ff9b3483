// Queries built and compiled once, then run with new values. Building a Kysely query and compiling
// it to SQL costs more than SQLite takes to run the statements of a login; the login path runs the
// same few shapes of query all the time, so each shape is compiled on first use and kept.
//
// A prepared query is built once with stand-ins (Slot) for its values, so the build function must
// only place them as values (where/set/values/limit …), never branch on them or splice them into
// SQL text: whatever changes the SQL itself goes into the shape key instead. A list value becomes
// one slot per element, so its length is part of the shape.
import {
  type Compilable,
  type CompiledQuery,
  createQueryId,
  type DialectAdapter,
  type Kysely,
  MysqlAdapter,
  PostgresAdapter,
  type QueryResult,
  type RootOperationNode,
} from 'kysely';
import type { Dialect } from './dialect.ts';
import { nameStatement } from './pg-named-statements.ts';
import type { Database } from './schema.ts';

/** Where a value of the arguments goes: `values[name]`, or `values[name][index]` for a list. */
class Slot {
  readonly name: string;
  readonly index: number;
  constructor(name: string, index: number) {
    this.name = name;
    this.index = index;
  }
}

/** A value of the arguments: one value, or a list whose elements go in one by one (`in (…)`). */
type Value = string | number | bigint | boolean | null | Buffer | Date | readonly Value[];

type Db = Kysely<Database>;

/** What the build function receives for the arguments: stand-ins, typed as the values. */
type StandIns<A> = { readonly [K in keyof A]: A[K] };

function standIns<A extends { [K in keyof A]: Value }>(values: A): StandIns<A> {
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(values)) {
    out[name] = Array.isArray(v) ? v.map((_, i) => new Slot(name, i)) : new Slot(name, -1);
  }
  return out as StandIns<A>;
}

/** Lists longer than this are compiled for each run and not kept (a page of tokens, an import). */
const LONGEST_KEPT_LIST = 8;

/** The shape of the arguments: the length of each list; undefined when one is too long to keep. */
function listLengths(values: Record<string, Value>): string | undefined {
  let key = '';
  for (const [name, v] of Object.entries(values)) {
    if (!Array.isArray(v)) continue;
    if (v.length > LONGEST_KEPT_LIST) return undefined;
    key += `${name}:${v.length};`;
  }
  return key;
}

/** The dialect of a database's adapter (the build function of a query may depend on it). */
function dialectOf(adapter: DialectAdapter): Dialect {
  if (adapter instanceof PostgresAdapter) return 'postgres';
  if (adapter instanceof MysqlAdapter) return 'mysql';
  return 'sqlite';
}

export interface PreparedQuery<A extends { [K in keyof A]: Value }, R> {
  /** Runs the query with `values` on `db` (a store's Kysely or a transaction). */
  run(db: Db, values: A, shape?: string): Promise<QueryResult<R>>;
}

/**
 * A query that is built by `build` and compiled once per database and shape (`shape`: a string
 * naming whatever the build function reads besides the stand-ins and the dialect, which it is
 * given; list lengths are added to the shape,
 * and a query with a list longer than LONGEST_KEPT_LIST is compiled each time and not kept).
 * Plugins of the Kysely instance see the query as they would see it built: transformQuery is given
 * the kept operation node, and one that changes it gets that query compiled anew.
 */
export function prepared<A extends { [K in keyof A]: Value }, R>(
  build: (db: Db, values: StandIns<A>, shape: string, dialect: Dialect) => Compilable<R>,
): PreparedQuery<A, R> {
  // Per adapter: one database's Kysely instances (plugins, transactions) share it, and its dialect.
  const kept = new WeakMap<object, Map<string, CompiledQuery<R>>>();
  return {
    async run(db, values, shape = '') {
      const executor = db.getExecutor();
      let byShape = kept.get(executor.adapter);
      if (!byShape) {
        byShape = new Map();
        kept.set(executor.adapter, byShape);
      }
      const lengths = listLengths(values);
      const key = `${shape}|${lengths}`;
      let compiled = lengths === undefined ? undefined : byShape.get(key);
      if (!compiled) {
        // Compiled without the plugins of `db`: they are applied on each run below.
        compiled = build(db.withoutPlugins(), standIns(values), shape, dialectOf(executor.adapter)).compile();
        if (lengths !== undefined) {
          byShape.set(key, compiled);
          if (executor.adapter instanceof PostgresAdapter) nameStatement(compiled.sql);
        }
      }
      const parameters = compiled.parameters.map((p) => (p instanceof Slot ? bound(p, values) : p));
      const queryId = createQueryId();
      let query: CompiledQuery<R> = { ...compiled, parameters, queryId };
      if (executor.plugins.length > 0) {
        const node = executor.transformQuery(compiled.query, queryId);
        if (node !== compiled.query) {
          const again = executor.compileQuery<R>(node as RootOperationNode, queryId);
          query = {
            ...again,
            parameters: again.parameters.map((p) => (p instanceof Slot ? bound(p, values) : p)),
          };
        }
      }
      return db.executeQuery(query);
    },
  };
}

/** The value a slot stands for. */
function bound(p: Slot, values: Record<string, Value>): unknown {
  const v = values[p.name];
  return p.index < 0 ? v : (v as readonly Value[])[p.index];
}
