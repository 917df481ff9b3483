// /policy (reference 5.6, spec "Policy endpoints"). The fixed paths (check, defs, enable, disable)
// are declared before /policy/:name so that they are never taken for a policy name.

import {
  checkPolicy,
  deletePolicy,
  disablePolicy,
  enablePolicy,
  exportPolicies,
  getPolicies,
  importPolicies,
  type PolicyFilter,
  type PolicyInput,
  policyDefs,
  renamePolicy,
  setPolicy,
} from '../../core/policy/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { adminRoute, type RouteTable } from '../route.ts';

/** A list attribute: a JSON array of strings or a comma-separated string; undefined when absent. */
function listParam(params: Params, name: string): string[] | string | undefined {
  const v = params.values[name];
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (Array.isArray(v)) {
    if (v.some((x) => typeof x !== 'string')) throw new ParameterError(`'${name}' must be a list of strings`);
    return v as string[];
  }
  if (typeof v === 'string') return v;
  throw new ParameterError(`'${name}' must be a string or a list of strings`);
}

/** A boolean: JSON true/false, or privacyIDEA's is_true on text; undefined when absent. */
function boolParam(params: Params, name: string): boolean | undefined {
  const v = params.values[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  return params.bool(name);
}

function policyInput(params: Params): PolicyInput {
  const action = params.values.action;
  const input: PolicyInput = { scope: params.required('scope') };
  if (action !== undefined && action !== null) {
    if (typeof action === 'string' || (typeof action === 'object' && !Array.isArray(action))) {
      input.action = action as PolicyInput['action'] & object;
    } else {
      throw new ParameterError("'action' must be a comma-separated string or an object");
    }
  }
  for (const f of [
    'realm',
    'resolver',
    'user',
    'adminrealm',
    'adminuser',
    'client',
    'user_agents',
  ] as const) {
    const v = listParam(params, f);
    if (v !== undefined) input[f] = v;
  }
  const node = listParam(params, 'servicenode') ?? listParam(params, 'pinode');
  if (node !== undefined) input.servicenode = node;
  const time = params.str('time');
  if (time !== undefined) input.time = time;
  const priority = params.str('priority');
  if (priority !== undefined) input.priority = priority;
  for (const f of ['active', 'check_all_resolvers', 'user_case_insensitive'] as const) {
    const v = boolParam(params, f);
    if (v !== undefined) input[f] = v;
  }
  if (params.values.conditions !== undefined) input.conditions = params.values.conditions;
  const description = params.str('description');
  if (description !== undefined) input.description = description;
  return input;
}

function filterOf(params: Params, name: string | undefined): PolicyFilter {
  const active = params.str('active');
  return {
    name: name ?? params.str('name'),
    realm: params.str('realm'),
    scope: params.str('scope'),
    active: active === undefined || active === '' ? undefined : params.bool('active'),
  };
}

export function policyRoutes(r: RouteTable): void {
  r.add('get', '/policy/check', adminRoute('policyread'), async ({ rt, params }) => ({
    value: await checkPolicy(rt, {
      scope: params.required('scope'),
      action: params.required('action'),
      user: params.str('user'),
      realm: params.str('realm'),
      resolver: params.str('resolver'),
      client: params.str('client'),
    }),
  }));
  r.add('get', '/policy/defs', adminRoute('policyread'), async ({ rt }) => ({ value: await policyDefs(rt) }));
  r.add('get', '/policy/defs/:scope', adminRoute('policyread'), async ({ rt, params }) => ({
    value: await policyDefs(rt, params.required('scope')),
  }));
  r.add('post', '/policy/enable/:name', adminRoute('policywrite'), async ({ params, context, audit }) => {
    audit.info = params.required('name');
    return { value: await enablePolicy(context(), params.required('name')) };
  });
  r.add('post', '/policy/disable/:name', adminRoute('policywrite'), async ({ params, context, audit }) => {
    audit.info = params.required('name');
    return { value: await disablePolicy(context(), params.required('name')) };
  });
  r.add('get', '/policy/export/:export', adminRoute('policyread'), async ({ rt, params }) => ({
    file: { name: params.required('export'), contentType: 'text/plain', body: await exportPolicies(rt) },
  }));
  r.add('post', '/policy/import/:filename', adminRoute('policywrite'), async ({ params, context, audit }) => {
    const file = params.files.file;
    if (!file) throw ParameterError.missing('file');
    audit.info = params.required('filename');
    return { value: await importPolicies(context(), file.content) };
  });
  r.add('get', '/policy/', adminRoute('policyread'), async ({ rt, params }) => ({
    value: await getPolicies(rt, filterOf(params, undefined)),
  }));
  r.add('get', '/policy/:name', adminRoute('policyread'), async ({ rt, params }) => ({
    value: await getPolicies(rt, filterOf(params, params.required('name'))),
  }));
  r.add('post', '/policy/:name', adminRoute('policywrite'), async ({ params, context, audit }) => {
    const name = params.required('name');
    audit.info = name;
    const id = await setPolicy(context(), name, policyInput(params));
    return { value: { [`setPolicy ${name}`]: id } };
  });
  r.add('patch', '/policy/:old_name', adminRoute('policywrite'), async ({ params, context, audit }) => {
    const oldName = params.required('old_name');
    audit.info = `${oldName} → ${params.required('name')}`;
    return { value: await renamePolicy(context(), oldName, params.required('name')) };
  });
  r.add('delete', '/policy/:name', adminRoute('policydelete'), async ({ params, context, audit }) => {
    audit.info = params.required('name');
    return { value: await deletePolicy(context(), params.required('name')) };
  });
}
