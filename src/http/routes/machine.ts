// /machine/ (reference 6.4, spec "Machine endpoints"): the machines of every machine resolver, the
// tokens attached to them for an application (machine tokens, with options) and the
// authentication items the applications make of those tokens (ssh: public keys).
import {
  applicationCatalogue,
  attachToken,
  authItems,
  detachToken,
  listMachines,
  listMachineTokens,
  setAttachmentOptions,
} from '../../core/machine/index.ts';
import type { Params } from '../params.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function machineRoutes(r: RouteTable): void {
  r.add('get', '/machine/', adminRoute('machinelist'), list);
  r.add('post', '/machine/token', adminRoute('manage_machine_tokens'), attach);
  r.add(
    'delete',
    ['/machine/token/:serial/:machineid/:resolver/:application', '/machine/token/:serial/:application/:mtid'],
    adminRoute('manage_machine_tokens'),
    detach,
  );
  r.add('get', '/machine/token', adminRoute('machinelist'), listTokens);
  r.add('post', '/machine/tokenoption', adminRoute('manage_machine_tokens'), tokenOption);
  r.add(
    'get',
    ['/machine/authitem', '/machine/authitem/:application'],
    adminRoute('fetch_authentication_items'),
    authitem,
  );
  r.add('get', '/application/', adminRoute(null), async () => ({ value: applicationCatalogue() }));
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

/** Parameters that name the machine, token and application, or steer the request: not options. */
const NOT_OPTIONS = new Set(['serial', 'application', 'hostname', 'machineid', 'resolver', 'mtid', 'nonce']);

/** The parameters that are options (or option filters). */
function optionsOf(params: Params, alsoNot: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params.strings())) {
    if (!NOT_OPTIONS.has(k) && !alsoNot.includes(k)) out[k] = v;
  }
  return out;
}

const naming = (params: Params) => ({
  hostname: params.nonEmpty('hostname'),
  machineid: params.nonEmpty('machineid'),
  resolver: params.nonEmpty('resolver'),
});

const attach: Handler = async ({ params, context, audit }) => {
  const serial = params.required('serial');
  const application = params.required('application');
  audit.serial = serial;
  audit.info = application;
  const mtid = await attachToken(context(), {
    serial,
    application,
    ...naming(params),
    options: optionsOf(params),
  });
  return { value: mtid };
};

const detach: Handler = async ({ params, context, audit }) => {
  const serial = params.required('serial');
  audit.serial = serial;
  audit.info = params.str('application') ?? '';
  return {
    value: await detachToken(context(), {
      serial,
      application: params.required('application'),
      machineid: params.nonEmpty('machineid'),
      resolver: params.nonEmpty('resolver'),
      mtid: params.str('mtid'),
    }),
  };
};

/** GET /machine/token parameters that are not option filters. */
const LIST_CONTROL = ['sortby', 'sortdir', 'page', 'pagesize'];

const listTokens: Handler = async ({ rt, params }) => ({
  value: await listMachineTokens(rt, {
    serial: params.nonEmpty('serial'),
    application: params.nonEmpty('application'),
    ...naming(params),
    sortby: params.nonEmpty('sortby'),
    sortdir: params.nonEmpty('sortdir'),
    options: optionsOf(params, LIST_CONTROL),
  }),
});

const tokenOption: Handler = async ({ params, context, audit }) => {
  audit.serial = params.str('serial') ?? '';
  audit.info = params.str('application') ?? '';
  return {
    value: await setAttachmentOptions(
      context(),
      {
        serial: params.nonEmpty('serial'),
        application: params.nonEmpty('application'),
        mtid: params.str('mtid'),
        ...naming(params),
      },
      optionsOf(params),
    ),
  };
};

/** GET /machine/authitem parameters that are not filters. */
const AUTHITEM_CONTROL = ['hostname', 'application', 'nonce'];

const authitem: Handler = async ({ params, context, audit }) => {
  const filter: Record<string, string> = {};
  for (const [k, v] of Object.entries(params.strings()))
    if (!AUTHITEM_CONTROL.includes(k) && v !== '') filter[k] = v;
  audit.info = params.str('hostname') ?? filter.service_id ?? '';
  return {
    value: await authItems(context(), {
      application: params.nonEmpty('application'),
      hostname: params.nonEmpty('hostname'),
      filter,
    }),
  };
};
