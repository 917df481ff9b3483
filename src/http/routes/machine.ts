// /machine/ (reference 6.4, spec "Machine endpoints"): the machines of every machine resolver.
// The machine tokens and authentication items of /machine/ are not served yet.
import { listMachines } from '../../core/machine/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function machineRoutes(r: RouteTable): void {
  r.add('get', '/machine/', adminRoute('machinelist'), list);
}

const list: Handler = async ({ rt, params }) => ({
  value: await listMachines(rt, {
    hostname: params.nonEmpty('hostname'),
    ip: params.nonEmpty('ip'),
    id: params.nonEmpty('id'),
    resolver: params.nonEmpty('resolver'),
    any: params.nonEmpty('any'),
  }),
});
