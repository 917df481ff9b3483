// Naming a machine in a request: a hostname, or a machine id with its machine resolver, or none
// (any machine). The machine must be one its resolver lists now.
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { machineStoreOf } from '../machineresolver/index.ts';
import { listMachines } from './machines.ts';

/** A machine as the attachments store it: the machine resolver (id and name) and the machine id. */
export interface MachineRef {
  resolverId: number;
  resolver: string;
  machineId: string;
}

export interface MachineNaming {
  hostname?: string | undefined;
  machineid?: string | undefined;
  resolver?: string | undefined;
}

/** The stored machine resolver of a name (case-insensitive), or undefined. */
export async function resolverRow(rt: Runtime, name: string) {
  const rows = await rt.store.db.selectFrom('machineresolver').selectAll().execute();
  return rows.find((r) => r.name.toLowerCase() === name.toLowerCase());
}

/**
 * Every machine whose host names include `hostname` exactly (of `resolver` only, when named; of
 * the resolvers `among` only, when given: the others are not asked).
 */
export async function machinesOfHostname(
  rt: Runtime,
  hostname: string,
  resolver?: string,
  among?: ReadonlySet<string>,
): Promise<MachineRef[]> {
  const rows = await rt.store.db.selectFrom('machineresolver').select(['id', 'name']).execute();
  const ids = new Map(rows.map((r) => [r.name, Number(r.id)]));
  const found = await listMachines(rt, { hostname, among });
  return found
    .filter((m) => m.hostname.includes(hostname))
    .filter((m) => !resolver || m.resolver_name.toLowerCase() === resolver.toLowerCase())
    .map((m) => ({ resolverId: ids.get(m.resolver_name)!, resolver: m.resolver_name, machineId: m.id }));
}

async function byId(rt: Runtime, machineId: string, resolver: string): Promise<MachineRef> {
  const row = await resolverRow(rt, resolver);
  if (!row) throw new ResourceNotFoundError(`The machine resolver ${resolver} does not exist.`);
  const machines = await machineStoreOf(rt, row).machines({ id: machineId });
  if (!machines.some((m) => m.id === machineId)) {
    throw new ResourceNotFoundError(
      `There is no machine with the id ${machineId} in the machine resolver ${row.name}.`,
    );
  }
  return { resolverId: Number(row.id), resolver: row.name, machineId };
}

/**
 * The one machine a request names (undefined: none named). A hostname must name exactly one
 * machine; a machine id needs its resolver.
 */
export async function locateMachine(rt: Runtime, n: MachineNaming): Promise<MachineRef | undefined> {
  for (const key of ['hostname', 'machineid', 'resolver'] as const) checkLength(key, n[key], LIMITS.name);
  if (n.machineid) {
    if (!n.resolver) throw ParameterError.missing('resolver');
    return byId(rt, n.machineid, n.resolver);
  }
  if (!n.hostname) {
    if (n.resolver) throw new ParameterError('A machine resolver needs a machineid (or give a hostname).');
    return undefined;
  }
  const found = await machinesOfHostname(rt, n.hostname, n.resolver);
  if (found.length === 0)
    throw new ResourceNotFoundError(`There is no machine with the hostname ${n.hostname}.`);
  if (found.length > 1) {
    const where = found.map((m) => `${m.machineId} (${m.resolver})`).join(', ');
    throw new ParameterError(
      `The hostname ${n.hostname} names more than one machine: ${where}. Give machineid and resolver.`,
    );
  }
  return found[0];
}
