// GET /machine/: the machines of every machine resolver, with privacyIDEA's filters: `hostname`,
// `id` and `resolver` are substrings, `ip` is exact, `any` a substring of the id, a hostname or the
// address. A resolver that cannot list its machines (a missing hosts file, an unreachable LDAP
// server) fails the listing with its reason: never an empty success.
import { ResolverError } from '../../errors.ts';
import type { Machine, MachineFilter } from '../../machine-resolvers/index.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { machineStoreOf } from '../machineresolver/index.ts';

/** A machine as the API lists it. */
export interface MachineView {
  id: string;
  hostname: string[];
  ip: string;
  resolver_name: string;
}

export interface MachineQuery extends MachineFilter {
  /** A substring of the machine resolver's name. */
  resolver?: string | undefined;
  /** Only these machine resolvers (exact names); the others are not asked. */
  among?: ReadonlySet<string> | undefined;
}

function failure(resolver: string, e: unknown): ResolverError {
  const reason = e instanceof Error ? e.message : String(e);
  return new ResolverError(`The machine resolver ${resolver} cannot list its machines: ${reason}`);
}

export async function listMachines(rt: Runtime, query: MachineQuery = {}): Promise<MachineView[]> {
  for (const key of ['hostname', 'ip', 'id', 'resolver', 'any'] as const) {
    checkLength(key, query[key], LIMITS.filter);
  }
  const rows = await rt.store.db.selectFrom('machineresolver').selectAll().orderBy('name').execute();
  const filter: MachineFilter = { hostname: query.hostname, ip: query.ip, id: query.id, any: query.any };
  const out: MachineView[] = [];
  for (const row of rows) {
    if (query.resolver && !row.name.includes(query.resolver)) continue;
    if (query.among && !query.among.has(row.name)) continue;
    let machines: Machine[];
    try {
      machines = await machineStoreOf(rt, row).machines(filter);
    } catch (e) {
      throw failure(row.name, e);
    }
    for (const m of machines) out.push({ id: m.id, hostname: m.hostname, ip: m.ip, resolver_name: row.name });
  }
  return out;
}
