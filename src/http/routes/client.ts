// /client/ (reference 8.6, spec "Client endpoint"): the client applications seen by /validate,
// grouped by client type.
import { listClients } from '../../core/client/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function clientRoutes(r: RouteTable): void {
  r.add('get', '/client/', adminRoute('clienttype'), list);
}

const list: Handler = async ({ rt }) => ({ value: await listClients(rt) });
