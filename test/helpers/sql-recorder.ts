// Watching the statements a runtime's store runs, for tests of caches: which SQL ran, and holding
// the answer of chosen statements back so that a write can commit while a read is in flight.
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import type { Runtime } from '../../src/core/context.ts';

/** Records the SQL of every statement the store runs from now on; take() hands it over and starts afresh. */
export function recordSql(rt: Runtime): { take(): string[] } {
  let seen: string[] = [];
  const executor = rt.store.db.getExecutor();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      seen.push(executor.compileQuery(args.node, args.queryId).sql);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      return args.result;
    },
  };
  rt.store.db = rt.store.db.withPlugin(plugin);
  return {
    take() {
      const out = seen;
      seen = [];
      return out;
    },
  };
}

/** How many of `sql` are SELECTs from `table`. */
export function readsOf(sql: readonly string[], table: string): number {
  const from = new RegExp(`from ["\`]${table}["\`]`);
  return sql.filter((q) => /^select/i.test(q) && from.test(q)).length;
}

/**
 * Holds the answers of the statements whose SQL matches `pattern` (issued until stop()) until
 * release(); holding() says whether one was issued.
 */
export function holdStatements(
  rt: Runtime,
  pattern: RegExp,
): { holding(): boolean; stop(): void; release(): void } {
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const ids = new Set<unknown>();
  let active = true;
  const executor = rt.store.db.getExecutor();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      if (active && pattern.test(executor.compileQuery(args.node, args.queryId).sql)) ids.add(args.queryId);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      if (ids.has(args.queryId)) await held;
      return args.result;
    },
  };
  rt.store.db = rt.store.db.withPlugin(plugin);
  return {
    holding: () => ids.size > 0,
    stop() {
      active = false;
    },
    release,
  };
}
