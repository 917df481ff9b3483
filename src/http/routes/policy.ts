// /policy (reference 5.6, spec "Policy endpoints"). The fixed paths (check, defs, enable, disable)
// are declared before /policy/:name so that they are never taken for a policy name.
import type { Context } from '../../core/context.ts';
import {
  checkPolicy,
  deletePolicy,
  disablePolicy,
  enablePolicy,
  exportPolicies,
  getPolicies,
  importPolicies,
  LIST_FIELDS,
  type PolicyFilter,
  type PolicyInput,
  policyDefs,
  renamePolicy,
  setPolicy,
} from '../../core/policy/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function policyRoutes(r: RouteTable): void {
  r.add('get', '/policy/check', READ, check);
  r.add('get', '/policy/defs', READ, allDefs);
  r.add('get', '/policy/defs/:scope', READ, defsOfScope);
  r.add('post', '/policy/enable/:name', WRITE, named(enablePolicy));
  r.add('post', '/policy/disable/:name', WRITE, named(disablePolicy));
  r.add('get', '/policy/export/:export', READ, exportFile);
  r.add('post', '/policy/import/:filename', WRITE, importFile);
  r.add('get', '/policy/', READ, list);
  r.add('get', '/policy/:name', READ, listOne);
  r.add('post', '/policy/:name', WRITE, set);
  r.add('patch', '/policy/:old_name', WRITE, rename);
  r.add('delete', '/policy/:name', adminRoute('policydelete'), named(deletePolicy));
}

const READ = adminRoute('policyread');
const WRITE = adminRoute('policywrite');

/** A change of the policy named in the path, noted in the audit entry; its answer is the id. */
function named(run: (ctx: Context, name: string) => Promise<number>): Handler {
  return async ({ params, context, audit }) => {
    audit.info = params.required('name');
    return { value: await run(context(), params.required('name')) };
  };
}

const check: Handler = async ({ rt, params }) => ({
  value: await checkPolicy(rt, {
    scope: params.required('scope'),
    action: params.required('action'),
    user: params.str('user'),
    realm: params.str('realm'),
    resolver: params.str('resolver'),
    client: params.str('client'),
  }),
});

const allDefs: Handler = async ({ rt }) => ({ value: (await policyDefs(rt)).defs });

const defsOfScope: Handler = async ({ rt, params }) => ({
  value: (await policyDefs(rt, params.required('scope'))).defs,
});

const exportFile: Handler = async ({ rt, params }) => {
  const { text } = await exportPolicies(rt);
  return { file: { name: params.required('export'), contentType: 'text/plain', body: text } };
};

const importFile: Handler = async ({ params, context, audit }) => {
  const file = params.files.file;
  if (!file) throw ParameterError.missing('file');
  audit.info = params.required('filename');
  return { value: await importPolicies(context(), file.content) };
};

const list: Handler = async ({ rt, params }) => ({
  value: await getPolicies(rt, filterOf(params, undefined)),
});

const listOne: Handler = async ({ rt, params }) => ({
  value: await getPolicies(rt, filterOf(params, params.required('name'))),
});

function filterOf(params: Params, name: string | undefined): PolicyFilter {
  const active = params.str('active');
  return {
    name: name ?? params.str('name'),
    realm: params.str('realm'),
    scope: params.str('scope'),
    active: active === undefined || active === '' ? undefined : params.bool('active'),
  };
}

const set: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  const id = await setPolicy(context(), name, policyInput(params));
  return { value: { [`setPolicy ${name}`]: id } };
};

const rename: Handler = async ({ params, context, audit }) => {
  const oldName = params.required('old_name');
  audit.info = `${oldName} → ${params.required('name')}`;
  return { value: await renamePolicy(context(), oldName, params.required('name')) };
};

/** The parameters of POST /policy/<name> as the service takes them; absent ones stay undefined. */
function policyInput(params: Params): PolicyInput {
  const input: PolicyInput = { scope: params.required('scope') };
  const action = actionParam(params);
  if (action !== undefined) input.action = action;
  for (const f of LIST_FIELDS) {
    // privacyIDEA's clients may still send the node list as `pinode`.
    const v = listParam(params, f) ?? (f === 'servicenode' ? listParam(params, 'pinode') : undefined);
    if (v !== undefined) input[f] = v;
  }
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

/** The action: a comma-separated string or an object; undefined when absent. */
function actionParam(params: Params): PolicyInput['action'] {
  const action = params.values.action;
  if (action === undefined || action === null) return undefined;
  if (typeof action === 'string' || (typeof action === 'object' && !Array.isArray(action))) {
    return action as PolicyInput['action'] & object;
  }
  throw new ParameterError("'action' must be a comma-separated string or an object");
}

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
