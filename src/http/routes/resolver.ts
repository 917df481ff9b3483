import {
  deleteResolver,
  getResolver,
  listResolvers,
  saveResolver,
  testResolver,
} from '../../core/resolver/index.ts';
import { adminRoute, type RouteTable } from '../route.ts';

export function resolverRoutes(r: RouteTable): void {
  r.add('get', '/resolver/', adminRoute('resolverread'), async ({ params, context }) => ({
    value: await listResolvers(context(), { type: params.str('type'), editable: params.bool('editable') }),
  }));
  r.add('post', '/resolver/test', adminRoute('resolverwrite'), async ({ params, context }) => {
    const result = await testResolver(context(), params.strings());
    return { value: result.value, detail: { description: result.description } };
  });
  r.add('get', '/resolver/:resolver', adminRoute('resolverread'), async ({ params, context }) => ({
    value: await getResolver(context(), params.required('resolver')),
  }));
  r.add('post', '/resolver/:resolver', adminRoute('resolverwrite'), async ({ params, context, audit }) => {
    const name = params.required('resolver');
    audit.resolver = name;
    const ctx = context();
    const saved = await saveResolver(ctx, name, params.strings());
    // The answer has no place for warnings (privacyIDEA's value is the id): they go to the log.
    for (const warning of saved.warnings) ctx.log.warn({ resolver: name }, warning);
    return { value: saved.id };
  });
  r.add('delete', '/resolver/:resolver', adminRoute('resolverdelete'), async ({ params, context, audit }) => {
    const name = params.required('resolver');
    audit.resolver = name;
    return { value: await deleteResolver(context(), name) };
  });
}
