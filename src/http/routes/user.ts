import {
  createUser,
  deleteUser,
  deleteUserAttribute,
  editableAttributes,
  getUserAttributes,
  listUsers,
  setUserAttribute,
  targetUser,
  updateUser,
  userChanges,
  userToEdit,
} from '../../core/user/index.ts';
import type { Params } from '../params.ts';
import { adminRoute, anyRoleRoute, type RouteTable } from '../route.ts';

const LIST_CONTROL = new Set(['realm', 'resolver', 'attributes', 'include_custom_attributes', 'nonce']);

function who(params: Params) {
  return { user: params.str('user'), realm: params.str('realm'), resolver: params.str('resolver') };
}

function editParams(params: Params) {
  return {
    user: params.str('user') ?? params.str('username'),
    resolver: params.str('resolver'),
  };
}

// Users are created, edited and deleted in a resolver: the check targets that user in that
// resolver (and so the realms containing it), never a realm parameter the handler ignores.
const DELETE_USER = {
  ...adminRoute('deleteuser'),
  target: (p: Readonly<Record<string, string>>) => ({ user: p.username, resolver: p.resolvername }),
};
const inResolver = (p: Readonly<Record<string, string>>) => ({
  user: p.user ?? p.username,
  resolver: p.resolver ?? '',
});

export function userRoutes(r: RouteTable): void {
  r.add('get', '/user/editable_attributes/', anyRoleRoute(null), async ({ params, context }) => {
    const user = await targetUser(context(), who(params));
    return { value: await editableAttributes(context(), user) };
  });
  r.add('post', '/user/attribute', anyRoleRoute(null), async ({ params, context, audit }) => {
    const user = await targetUser(context(), who(params));
    audit.user = user.login;
    audit.realm = user.realm;
    audit.resolver = user.resolver;
    const key = params.required('key');
    audit.info = key;
    return {
      value: await setUserAttribute(context(), user, key, params.required('value'), params.str('type')),
    };
  });
  r.add('get', '/user/attribute', anyRoleRoute({ admin: 'userlist' }), async ({ params, context }) => {
    const user = await targetUser(context(), who(params));
    return { value: await getUserAttributes(context(), user, params.str('key')) };
  });
  r.add(
    'delete',
    '/user/attribute/:attrkey/:username/:realm',
    anyRoleRoute(null),
    async ({ params, context, audit }) => {
      const username = params.required('username');
      const realm = params.required('realm');
      audit.user = username;
      audit.realm = realm;
      audit.info = params.required('attrkey');
      return { value: await deleteUserAttribute(context(), params.required('attrkey'), username, realm) };
    },
  );
  r.add('get', '/user/', anyRoleRoute('userlist'), async ({ params, context }) => {
    const search: Record<string, string> = {};
    for (const [k, v] of Object.entries(params.strings())) if (!LIST_CONTROL.has(k)) search[k] = v;
    const attributes = params.str('attributes');
    return {
      value: await listUsers(context(), {
        realm: params.str('realm') || undefined,
        resolver: params.str('resolver') || undefined,
        search,
        attributes: attributes ? attributes.split(',').map((a) => a.trim()) : undefined,
        includeCustomAttributes: params.has('include_custom_attributes')
          ? params.bool('include_custom_attributes')
          : true,
      }),
    };
  });
  r.add('post', '/user/', { ...adminRoute('adduser'), target: inResolver }, async (call) => {
    const { resolver, username } = await userToEdit(call.context(), editParams(call.params));
    call.audit.user = username;
    call.audit.resolver = resolver;
    const changes = userChanges(call.params.strings());
    return {
      value: await createUser(call.context(), resolver, username, changes, call.params.str('password')),
    };
  });
  r.add('put', '/user/', { ...anyRoleRoute('updateuser'), target: inResolver }, async (call) => {
    const { resolver, username } = await userToEdit(call.context(), editParams(call.params));
    call.audit.user = username;
    call.audit.resolver = resolver;
    const changes = userChanges(call.params.strings());
    return {
      value: await updateUser(call.context(), resolver, username, changes, call.params.str('password')),
    };
  });
  r.add('delete', '/user/:resolvername/:username', DELETE_USER, async ({ params, context, audit }) => {
    audit.user = params.required('username');
    audit.resolver = params.required('resolvername');
    return {
      value: await deleteUser(context(), params.required('resolvername'), params.required('username')),
    };
  });
}
