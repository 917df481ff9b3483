// /radiusclient/ (issue 22): the RADIUS clients (NAS devices) of authsrv's own RADIUS server, in
// the conventions of /radiusserver/: the secret censored, admin rights radiusclient_read and
// radiusclient_write.
import { deleteRadiusClient, listRadiusClients, setRadiusClient } from '../../core/radiusclient/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function radiusclientRoutes(r: RouteTable): void {
  r.add('get', ['/radiusclient/', '/radiusclient/:name'], adminRoute('radiusclient_read'), list);
  r.add('post', '/radiusclient/:name', adminRoute('radiusclient_write'), set);
  r.add('delete', '/radiusclient/:name', adminRoute('radiusclient_write'), remove);
}

const list: Handler = async ({ rt, params }) => ({
  value: await listRadiusClients(rt, params.nonEmpty('name')),
});

const set: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return {
    value: await setRadiusClient(context(), name, {
      address: params.str('address'),
      secret: params.str('secret'),
      require_message_authenticator: params.str('require_message_authenticator'),
      description: params.str('description'),
    }),
  };
};

const remove: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return { value: await deleteRadiusClient(context(), name) };
};
