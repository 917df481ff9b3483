// /tokengroup/ (reference 6.5: the shape of /serviceid/) and /token/group (reference 3.5): token
// groups and the tokens in them. The `tokengroups` right depends on the token, so its service
// checks it; the fixed /token/group paths are mounted before /token/:serial.
import {
  addTokenToGroup,
  deleteTokenGroup,
  listTokenGroups,
  removeTokenFromGroup,
  setGroupsOfToken,
  setTokenGroup,
} from '../../core/token/index.ts';
import { adminRoute, type RouteTable } from '../route.ts';

export function tokengroupRoutes(r: RouteTable): void {
  r.add(
    'get',
    ['/tokengroup/', '/tokengroup/:name'],
    adminRoute('tokengroup_list'),
    async ({ rt, params }) => ({
      value: await listTokenGroups(rt, params.str('name') || undefined),
    }),
  );
  r.add('post', '/tokengroup/:name', adminRoute('tokengroup_add'), async ({ params, context, audit }) => {
    const name = params.required('name');
    audit.info = name;
    return { value: await setTokenGroup(context(), name, params.str('description')) };
  });
  r.add(
    'delete',
    '/tokengroup/:name',
    adminRoute('tokengroup_delete'),
    async ({ params, context, audit }) => {
      const name = params.required('name');
      audit.info = name;
      return { value: await deleteTokenGroup(context(), name) };
    },
  );

  r.add('post', '/token/group/:serial/:groupname', adminRoute(null), async ({ params, context, audit }) => {
    const serial = params.required('serial');
    audit.serial = serial;
    audit.info = params.required('groupname');
    return { value: await addTokenToGroup(context(), serial, params.required('groupname')) };
  });
  r.add('post', '/token/group/:serial', adminRoute(null), async ({ params, context, audit }) => {
    const serial = params.required('serial');
    audit.serial = serial;
    const raw = params.values.groups;
    // A list, or comma-separated text; names keep their case (unlike realm names).
    const groups = (Array.isArray(raw) ? raw.map(String) : (params.str('groups') ?? '').split(','))
      .map((g) => g.trim())
      .filter(Boolean);
    audit.info = groups.join(', ');
    return { value: await setGroupsOfToken(context(), serial, groups) };
  });
  r.add('delete', '/token/group/:serial/:groupname', adminRoute(null), async ({ params, context, audit }) => {
    const serial = params.required('serial');
    audit.serial = serial;
    audit.info = params.required('groupname');
    return { value: await removeTokenFromGroup(context(), serial, params.required('groupname')) };
  });
}
