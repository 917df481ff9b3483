// /caconnector/ (reference 8.5, spec "CA connector endpoints"): CA connectors with their
// passwords censored, the options and templates of a type, create/update and delete. privacyIDEA
// fires no events on these endpoints.
import {
  caConnectorSpecific,
  deleteCaConnector,
  listCaConnectors,
  setCaConnector,
} from '../../core/caconnector/index.ts';
import type { Params } from '../params.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function caconnectorRoutes(r: RouteTable): void {
  r.add('get', '/caconnector/specific/:catype', adminRoute('caconnectorread'), specific);
  r.add('get', ['/caconnector/', '/caconnector/:name'], adminRoute('caconnectorread'), list);
  r.add('post', '/caconnector/:name', adminRoute('caconnectorwrite'), set);
  r.add('delete', '/caconnector/:name', adminRoute('caconnectordelete'), remove);
}

/** The configuration keys of a request: every parameter but the name and the type. */
function configOf(params: Params, ...reserved: string[]): Record<string, string> {
  const out = params.strings();
  for (const k of reserved) delete out[k];
  return out;
}

const list: Handler = async ({ rt, params }) => ({
  value: await listCaConnectors(rt, params.nonEmpty('name')),
});

const specific: Handler = async ({ rt, params }) => ({
  value: caConnectorSpecific(rt, params.required('catype'), configOf(params, 'catype')),
});

const set: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return {
    value: await setCaConnector(context(), name, params.nonEmpty('type'), configOf(params, 'name', 'type')),
  };
};

const remove: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return { value: await deleteCaConnector(context(), name) };
};
