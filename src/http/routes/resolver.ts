// /resolver (reference 6.1, spec "Resolver endpoints"): user-store settings (secrets censored)
// and their test.
import {
  deleteResolver,
  getResolver,
  listResolvers,
  saveResolver,
  testResolver,
} from '../../core/resolver/index.ts';
import { adminRoute, type Handler, type RouteTable } from '../route.ts';

export function resolverRoutes(r: RouteTable): void {
  r.add('get', '/resolver/', adminRoute('resolverread'), list);
  r.add('post', '/resolver/test', adminRoute('resolverwrite'), test);
  r.add('get', '/resolver/:resolver', adminRoute('resolverread'), get);
  r.add('post', '/resolver/:resolver', adminRoute('resolverwrite'), save);
  r.add('delete', '/resolver/:resolver', adminRoute('resolverdelete'), remove);
}

const list: Handler = async ({ params, context }) => ({
  value: await listResolvers(context(), { type: params.str('type'), editable: params.bool('editable') }),
});

const test: Handler = async ({ params, context }) => {
  const result = await testResolver(context(), params.strings());
  return { value: result.value, detail: { description: result.description } };
};

const get: Handler = async ({ params, context }) => ({
  value: await getResolver(context(), params.required('resolver')),
});

const save: Handler = async ({ params, context, audit }) => {
  const name = params.required('resolver');
  audit.resolver = name;
  const ctx = context();
  const saved = await saveResolver(ctx, name, params.strings());
  // The answer has no place for warnings (privacyIDEA's value is the id): they go to the log.
  for (const warning of saved.warnings) ctx.log.warn({ resolver: name }, warning);
  return { value: saved.id };
};

const remove: Handler = async ({ params, context, audit }) => {
  const name = params.required('resolver');
  audit.resolver = name;
  return { value: await deleteResolver(context(), name) };
};
