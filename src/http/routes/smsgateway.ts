// /smsgateway/ (reference 8.2, spec "SMS gateway endpoints"): SMS gateway definitions (secrets
// censored), the providers with their parameters, deleting a gateway or one of its options.
// privacyIDEA's events of these endpoints: smsgateway_set (POST), smsgateway_delete (DELETE
// /smsgateway/<name>), smsgateway_option_delete (DELETE /smsgateway/option/<gwid>/<key>); GET has
// none. An unknown gateway is ERR601 with HTTP 200 (privacyIDEA: 404), as the specification's
// Errors table says.
import {
  deleteSmsGateway,
  deleteSmsGatewayOption,
  listSmsGateways,
  saveSmsGateway,
  smsProviders,
} from '../../core/smsgateway/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function smsgatewayRoutes(r: RouteTable): void {
  r.add('get', '/smsgateway/providers', adminRoute('smsgateway_read'), providers);
  r.add('get', ['/smsgateway/', '/smsgateway/:gwid'], adminRoute('smsgateway_read'), list);
  r.add('post', '/smsgateway/', adminRoute('smsgateway_write'), save);
  r.add('delete', '/smsgateway/option/:gwid/:key', adminRoute('smsgateway_write'), removeOption);
  r.add('delete', '/smsgateway/:identifier', adminRoute('smsgateway_write'), remove);
}

const providers: Handler = async () => ({ value: smsProviders() });

const list: Handler = async ({ rt, params }) => ({ value: await listSmsGateways(rt, params.str('gwid')) });

/** The parameters `<prefix><KEY>` as KEY → value. */
function prefixed(all: Record<string, string>, prefix: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(all)) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
  return out;
}

const save: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  const all = params.strings();
  const saved = await saveSmsGateway(context(), {
    name,
    module: params.required('module'),
    description: params.str('description'),
    option: prefixed(all, 'option.'),
    header: prefixed(all, 'header.'),
    keepOmitted: false,
  });
  return { value: saved.id };
};

const removeOption: Handler = async ({ params, context, audit }) => {
  const gwid = params.required('gwid');
  const key = params.required('key');
  audit.info = `${gwid} ${key}`;
  return { value: await deleteSmsGatewayOption(context(), gwid, key) };
};

const remove: Handler = async ({ params, context, audit }) => {
  const name = params.required('identifier');
  audit.info = name;
  return { value: await deleteSmsGateway(context(), name) };
};
