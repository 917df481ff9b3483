// /radiusserver/ (reference 8.4, spec "RADIUS server endpoints"): RADIUS server definitions with
// the secret censored, and a test request. privacyIDEA's events of these endpoints:
// radiusserver_create, radiusserver_list, radiusserver_delete, radiusserver_test.
import {
  deleteRadiusServer,
  listRadiusServers,
  type RadiusServerInput,
  setRadiusServer,
  testRadiusRequest,
} from '../../core/radiusserver/index.ts';
import type { Params } from '../params.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function radiusserverRoutes(r: RouteTable): void {
  r.add('get', ['/radiusserver/', '/radiusserver/:identifier'], adminRoute('radiusserver_read'), list);
  // The test sends a password to a server of the caller's choosing: a write right, as in privacyIDEA.
  r.add('post', '/radiusserver/test_request', adminRoute('radiusserver_write'), test);
  r.add('post', '/radiusserver/:identifier', adminRoute('radiusserver_write'), set);
  r.add('delete', '/radiusserver/:identifier', adminRoute('radiusserver_write'), remove);
}

function definitionOf(params: Params): RadiusServerInput {
  return {
    server: params.str('server'),
    port: params.str('port'),
    secret: params.str('secret'),
    description: params.str('description'),
    timeout: params.str('timeout'),
    retries: params.str('retries'),
  };
}

const list: Handler = async ({ rt, params }) => ({
  value: await listRadiusServers(rt, params.nonEmpty('identifier')),
});

const set: Handler = async ({ params, context, audit }) => {
  const identifier = params.required('identifier');
  audit.info = identifier;
  return { value: await setRadiusServer(context(), identifier, definitionOf(params)) };
};

const remove: Handler = async ({ params, context, audit }) => {
  const identifier = params.required('identifier');
  audit.info = identifier;
  return { value: await deleteRadiusServer(context(), identifier) };
};

const test: Handler = async ({ params, context, audit }) => {
  const identifier = params.nonEmpty('identifier');
  audit.info = identifier ?? params.str('server') ?? '';
  const result = await testRadiusRequest(context(), {
    ...definitionOf(params),
    identifier,
    username: params.required('username'),
    password: params.str('password') ?? '',
  });
  return { value: result.value, detail: { description: result.description } };
};
