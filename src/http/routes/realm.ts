// /realm and /defaultrealm (reference 6.2, spec "Realm endpoints"): realms, their resolvers with
// priorities, and the default realm.
import type { Context } from '../../core/context.ts';
import {
  clearDefaultRealm,
  defaultRealmView,
  deleteRealm,
  setDefaultRealm,
  setRealm,
  superuserRealms,
  visibleRealms,
} from '../../core/realm/index.ts';
import { ParameterError } from '../../errors.ts';
import type { Params } from '../params.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function realmRoutes(r: RouteTable): void {
  r.add('get', '/realm/superuser', adminRoute(null), superusers);
  r.add('get', '/realm/', adminRoute(null), visible);
  r.add('post', '/realm/:realm', adminRoute('resolverwrite'), set);
  r.add('delete', '/realm/:realm', adminRoute('resolverdelete'), onRealm(deleteRealm));
  r.add('get', '/defaultrealm', adminRoute(null), getDefault);
  r.add('post', '/defaultrealm/:realm', adminRoute('resolverwrite'), onRealm(setDefaultRealm));
  r.add('delete', '/defaultrealm', adminRoute('resolverdelete'), clearDefault);
}

/** A change of the realm named in the path, noted in the audit entry. */
function onRealm(run: (ctx: Context, realm: string) => Promise<number>): Handler {
  return async ({ params, context, audit }) => {
    audit.realm = params.required('realm');
    return { value: await run(context(), params.required('realm')) };
  };
}

const superusers: Handler = ({ rt }) => ({ value: superuserRealms(rt) });

const visible: Handler = async ({ context }) => ({ value: await visibleRealms(context()) });

const set: Handler = async ({ params, context, audit }) => {
  audit.realm = params.required('realm');
  return {
    value: await setRealm(context(), params.required('realm'), resolverList(params), priorities(params)),
  };
};

const getDefault: Handler = async ({ context }) => ({ value: await defaultRealmView(context()) });

const clearDefault: Handler = async ({ context }) => ({ value: await clearDefaultRealm(context()) });

/** `resolvers` as a JSON list or a comma-separated string. */
function resolverList(params: Params): string[] {
  const v = params.values.resolvers ?? params.values.resolver;
  if (Array.isArray(v)) {
    if (v.some((x) => typeof x !== 'string')) throw new ParameterError("'resolvers' must be a list of names");
    return v as string[];
  }
  if (typeof v === 'string') return v.split(',');
  throw ParameterError.missing('resolvers');
}

/**
 * `priority.<resolver>` from JSON integers and from form strings alike; an empty value or null (a
 * form field left blank) means no priority.
 */
function priorities(params: Params): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(params.values)) {
    if (!k.startsWith('priority.')) continue;
    if (v === null || (typeof v === 'string' && v.trim() === '')) continue;
    const n =
      typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : Number.NaN;
    if (!Number.isInteger(n)) throw new ParameterError(`${k} must be a whole number`);
    out[k.slice('priority.'.length)] = n;
  }
  return out;
}
