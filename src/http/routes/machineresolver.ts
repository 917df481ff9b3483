// /machineresolver/ (reference 6.4, spec "Machine resolver endpoints"): where machines are listed
// (hosts file, LDAP), with secrets censored, and their test. The test opens files and connects to
// servers of the caller's choosing, so it needs mresolverwrite (privacyIDEA checks no right there).
import {
  deleteMachineResolver,
  getMachineResolver,
  listMachineResolvers,
  saveMachineResolver,
  testMachineResolver,
} from '../../core/machineresolver/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function machineresolverRoutes(r: RouteTable): void {
  r.add('get', '/machineresolver/', adminRoute('mresolverread'), list);
  r.add('post', '/machineresolver/test', adminRoute('mresolverwrite'), test);
  r.add('get', '/machineresolver/:resolver', adminRoute('mresolverread'), get);
  r.add('post', '/machineresolver/:resolver', adminRoute('mresolverwrite'), save);
  r.add('delete', '/machineresolver/:resolver', adminRoute('mresolverdelete'), remove);
}

const list: Handler = async ({ rt, params }) => ({
  value: await listMachineResolvers(rt, { type: params.str('type') }),
});

const test: Handler = async ({ params, context }) => {
  const result = await testMachineResolver(context(), params.strings());
  return { value: result.value, detail: { description: result.description } };
};

const get: Handler = async ({ rt, params }) => ({
  value: await getMachineResolver(rt, params.required('resolver')),
});

const save: Handler = async ({ params, context, audit }) => {
  const name = params.required('resolver');
  audit.resolver = name;
  const ctx = context();
  const saved = await saveMachineResolver(ctx, name, params.strings());
  for (const warning of saved.warnings) ctx.log.warn({ machineresolver: name }, warning);
  return { value: saved.id };
};

const remove: Handler = async ({ params, context, audit }) => {
  const name = params.required('resolver');
  audit.resolver = name;
  return { value: await deleteMachineResolver(context(), name) };
};
