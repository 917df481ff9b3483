// /serviceid/ (reference 6.5, spec "Service ID endpoints"): named services with a description.
// privacyIDEA's events of these endpoints: serviceid_list, serviceid_add, serviceid_delete.
import { deleteServiceId, listServiceIds, setServiceId } from '../../core/serviceid/index.ts';
import { adminRoute, firing, type Handler, type RouteTable } from '../route.ts';

export function serviceidRoutes(r: RouteTable): void {
  r.add(
    'get',
    ['/serviceid/', '/serviceid/:name'],
    firing('serviceid_list', adminRoute('serviceid_list')),
    list,
  );
  r.add('post', '/serviceid/:name', firing('serviceid_add', adminRoute('serviceid_add')), set);
  r.add('delete', '/serviceid/:name', firing('serviceid_delete', adminRoute('serviceid_delete')), remove);
}

const list: Handler = async ({ rt, params }) => ({
  value: await listServiceIds(rt, params.nonEmpty('name')),
});

const set: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return { value: await setServiceId(context(), name, params.str('description')) };
};

const remove: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return { value: await deleteServiceId(context(), name) };
};
