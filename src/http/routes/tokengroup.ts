// /tokengroup/ (reference 6.5: the shape of /serviceid/) and /token/group (reference 3.5): token
// groups and the tokens in them. The `tokengroups` right depends on the token, so its service
// checks it; the fixed /token/group paths are mounted before /token/:serial.

import type { Context } from '../../core/context.ts';
import {
  addTokenToGroup,
  deleteTokenGroup,
  listTokenGroups,
  removeTokenFromGroup,
  setGroupsOfToken,
  setTokenGroup,
} from '../../core/token/index.ts';
import { textList } from '../../text-list.ts';
import { adminRoute, firing, type Handler, type RouteTable } from '../route.ts';

export function tokengroupRoutes(r: RouteTable): void {
  r.add(
    'get',
    ['/tokengroup/', '/tokengroup/:name'],
    firing('tokengroup_list', adminRoute('tokengroup_list')),
    list,
  );
  r.add('post', '/tokengroup/:name', firing('tokengroup_add', adminRoute('tokengroup_add')), set);
  r.add('delete', '/tokengroup/:name', firing('tokengroup_delete', adminRoute('tokengroup_delete')), remove);
  r.add(
    'post',
    '/token/group/:serial/:groupname',
    firing('token_assign_group', adminRoute(null)),
    inGroup(addTokenToGroup),
  );
  r.add('post', '/token/group/:serial', adminRoute(null), setGroups);
  r.add(
    'delete',
    '/token/group/:serial/:groupname',
    firing('token_unassign_group', adminRoute(null)),
    inGroup(removeTokenFromGroup),
  );
}

const list: Handler = async ({ rt, params }) => ({
  value: await listTokenGroups(rt, params.nonEmpty('name')),
});

const set: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return { value: await setTokenGroup(context(), name, params.str('description')) };
};

const remove: Handler = async ({ params, context, audit }) => {
  const name = params.required('name');
  audit.info = name;
  return { value: await deleteTokenGroup(context(), name) };
};

/** Puts the token of the path into the group of the path, or takes it out. */
function inGroup(run: (ctx: Context, serial: string, group: string) => Promise<unknown>): Handler {
  return async ({ params, context, audit }) => {
    const serial = params.required('serial');
    audit.serial = serial;
    audit.info = params.required('groupname');
    return { value: await run(context(), serial, params.required('groupname')) };
  };
}

const setGroups: Handler = async ({ params, context, audit }) => {
  const serial = params.required('serial');
  audit.serial = serial;
  const raw = params.values.groups;
  // A list, or comma-separated text; names keep their case (unlike realm names).
  const groups = textList(Array.isArray(raw) ? raw.map(String) : params.str('groups'));
  audit.info = groups.join(', ');
  return { value: await setGroupsOfToken(context(), serial, groups) };
};
