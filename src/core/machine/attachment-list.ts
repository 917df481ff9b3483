// GET /machine/token (reference 6.4): the attachments of tokens to machines, filtered by serial
// (`*` wildcards), machine (hostname, or machineid and resolver), application and options (`*`
// wildcards, case-insensitive), sorted by a column or an option.
import { ParameterError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { machinesOfHostname, resolverRow } from './locate.ts';

export interface MachineTokenRecord {
  id: number;
  serial: string;
  /** The token type. */
  type: string;
  application: string;
  /** null: attached to any machine. */
  machine_id: string | null;
  resolver: string | null;
  options: Record<string, string>;
}

export interface MachineTokenQuery {
  serial?: string | undefined;
  hostname?: string | undefined;
  machineid?: string | undefined;
  resolver?: string | undefined;
  application?: string | undefined;
  /** Option name → value, `*` matching any text. */
  options?: Record<string, string>;
  sortby?: string | undefined;
  sortdir?: string | undefined;
}

/** A `*` pattern as a whole-value regular expression. */
function pattern(value: string, flags = ''): RegExp {
  const body = value
    .split('*')
    .map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`, `s${flags}`);
}

async function loadRecords(rt: Runtime, q: MachineTokenQuery): Promise<MachineTokenRecord[]> {
  let sel = rt.store.db
    .selectFrom('machinetoken as mt')
    .innerJoin('token', 'token.id', 'mt.token_id')
    .leftJoin('machineresolver as mr', 'mr.id', 'mt.machineresolver_id')
    .select([
      'mt.id',
      'token.serial',
      'token.tokentype',
      'mt.application',
      'mt.machine_id',
      'mr.name as resolver',
    ]);
  if (q.application) sel = sel.where('mt.application', '=', q.application);
  if (q.machineid) sel = sel.where('mt.machine_id', '=', q.machineid);
  const rows = await sel.orderBy('mt.id').execute();
  const options = await rt.store.db.selectFrom('machinetoken_option').selectAll().orderBy('key').execute();
  const byId = new Map<number, Record<string, string>>();
  for (const o of options) {
    const m = byId.get(Number(o.machinetoken_id)) ?? {};
    m[o.key] = o.value;
    byId.set(Number(o.machinetoken_id), m);
  }
  return rows.map((r) => ({
    id: Number(r.id),
    serial: r.serial,
    type: r.tokentype,
    application: r.application,
    machine_id: r.machine_id,
    resolver: r.resolver ?? null,
    options: byId.get(Number(r.id)) ?? {},
  }));
}

function sorted(records: MachineTokenRecord[], sortby = 'serial', sortdir = 'asc'): MachineTokenRecord[] {
  if (sortdir !== 'asc' && sortdir !== 'desc') throw new ParameterError("sortdir must be 'asc' or 'desc'");
  const COLUMNS = ['id', 'serial', 'type', 'application', 'machine_id', 'resolver'];
  const key = (r: MachineTokenRecord): string | number | undefined =>
    COLUMNS.includes(sortby)
      ? ((r[sortby as keyof MachineTokenRecord] as string | number | null) ?? undefined)
      : r.options[sortby];
  const sign = sortdir === 'desc' ? -1 : 1;
  return [...records].sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === y) return a.id - b.id;
    if (x === undefined) return 1;
    if (y === undefined) return -1;
    return (x < y ? -1 : 1) * sign;
  });
}

/** GET /machine/token: the attachments the query selects, sorted (default: by serial, ascending). */
export async function listMachineTokens(
  rt: Runtime,
  q: MachineTokenQuery = {},
): Promise<MachineTokenRecord[]> {
  for (const k of [
    'serial',
    'hostname',
    'machineid',
    'resolver',
    'application',
    'sortby',
    'sortdir',
  ] as const) {
    checkLength(k, q[k], LIMITS.filter);
  }
  for (const [k, v] of Object.entries(q.options ?? {})) checkLength(k, v, LIMITS.filter);
  let records = await loadRecords(rt, q);
  if (q.serial) {
    const re = pattern(q.serial);
    records = records.filter((r) => re.test(r.serial));
  }
  if (q.resolver) {
    const row = await resolverRow(rt, q.resolver);
    records = records.filter((r) => row !== undefined && r.resolver === row.name);
  }
  if (q.hostname) {
    const machines = await machinesOfHostname(rt, q.hostname, q.resolver);
    records = records.filter((r) =>
      machines.some((m) => m.machineId === r.machine_id && m.resolver === r.resolver),
    );
  }
  for (const [k, v] of Object.entries(q.options ?? {})) {
    const re = pattern(v, 'i');
    records = records.filter((r) => r.options[k] !== undefined && re.test(r.options[k]));
  }
  return sorted(records, q.sortby || undefined, q.sortdir || undefined);
}
