// /user (reference 6.3, spec "User endpoints"): the users of a realm, editing users of editable
// resolvers, and their custom attributes.
import type { Context } from '../../core/context.ts';
import {
  createUser,
  deleteUser,
  deleteUserAttribute,
  editableAttributes,
  getUserAttributes,
  listUsers,
  setUserAttribute,
  targetUser,
  type UserChanges,
  updateUser,
  userChanges,
  userToEdit,
} from '../../core/user/index.ts';
import type { Params } from '../params.ts';
import { adminRoute, anyRoleRoute, firing, type Handler, type RouteTable } from '../route.ts';

export function userRoutes(r: RouteTable): void {
  r.add('get', '/user/editable_attributes/', firing('get_editable_attributes', anyRoleRoute(null)), editable);
  r.add('post', '/user/attribute', firing('set_custom_user_attribute', anyRoleRoute(null)), setAttribute);
  r.add(
    'get',
    '/user/attribute',
    firing('get_user_attribute', anyRoleRoute({ admin: 'userlist' })),
    getAttributes,
  );
  r.add(
    'delete',
    '/user/attribute/:attrkey/:username/:realm',
    firing('delete_custom_user_attribute', anyRoleRoute(null)),
    deleteAttribute,
  );
  r.add('get', '/user/', firing('user_list', anyRoleRoute('userlist')), list);
  r.add(
    'post',
    '/user/',
    firing('user_add', { ...adminRoute('adduser'), target: inResolver }),
    editing(createUser),
  );
  r.add(
    'put',
    '/user/',
    firing('user_update', { ...anyRoleRoute('updateuser'), target: inResolver }),
    editing(updateUser),
  );
  r.add('delete', '/user/:resolvername/:username', firing('user_delete', DELETE_USER), remove);
}

// Users are created, edited and deleted in a resolver: the check targets that user in that
// resolver (and so the realms containing it), never a realm parameter the handler ignores.
const DELETE_USER = {
  ...adminRoute('deleteuser'),
  target: (p: Readonly<Record<string, string>>) => ({ user: p.username, resolver: p.resolvername }),
};
function inResolver(p: Readonly<Record<string, string>>) {
  return { user: p.user ?? p.username, resolver: p.resolver ?? '' };
}

/** The parameters of GET /user/ that are not a search on a user attribute. */
const LIST_CONTROL = new Set(['realm', 'resolver', 'attributes', 'include_custom_attributes', 'nonce']);

function who(params: Params) {
  return { user: params.str('user'), realm: params.str('realm'), resolver: params.str('resolver') };
}

const editable: Handler = async ({ params, context }) => {
  const user = await targetUser(context(), who(params));
  return { value: await editableAttributes(context(), user) };
};

const setAttribute: Handler = async ({ params, context, audit }) => {
  const user = await targetUser(context(), who(params));
  audit.user = user.login;
  audit.realm = user.realm;
  audit.resolver = user.resolver;
  const key = params.required('key');
  audit.info = key;
  return {
    value: await setUserAttribute(context(), user, key, params.required('value'), params.str('type')),
  };
};

const getAttributes: Handler = async ({ params, context }) => {
  const user = await targetUser(context(), who(params));
  return { value: await getUserAttributes(context(), user, params.str('key')) };
};

const deleteAttribute: Handler = async ({ params, context, audit }) => {
  const username = params.required('username');
  const realm = params.required('realm');
  audit.user = username;
  audit.realm = realm;
  audit.info = params.required('attrkey');
  return { value: await deleteUserAttribute(context(), params.required('attrkey'), username, realm) };
};

const list: Handler = async ({ params, context }) => {
  const search: Record<string, string> = {};
  for (const [k, v] of Object.entries(params.strings())) if (!LIST_CONTROL.has(k)) search[k] = v;
  const attributes = params.str('attributes');
  return {
    value: await listUsers(context(), {
      realm: params.nonEmpty('realm'),
      resolver: params.nonEmpty('resolver'),
      search,
      attributes: attributes ? attributes.split(',').map((a) => a.trim()) : undefined,
      includeCustomAttributes: params.has('include_custom_attributes')
        ? params.bool('include_custom_attributes')
        : true,
    }),
  };
};

/** POST and PUT /user/: create or change the user (a normal user: themselves) in a resolver. */
function editing(
  run: (
    ctx: Context,
    resolver: string,
    username: string,
    changes: UserChanges,
    password: string | undefined,
  ) => Promise<unknown>,
): Handler {
  return async ({ params, context, audit }) => {
    const { resolver, username } = await userToEdit(context(), {
      user: params.str('user') ?? params.str('username'),
      resolver: params.str('resolver'),
    });
    audit.user = username;
    audit.resolver = resolver;
    const changes = userChanges(params.strings());
    return { value: await run(context(), resolver, username, changes, params.str('password')) };
  };
}

const remove: Handler = async ({ params, context, audit }) => {
  audit.user = params.required('username');
  audit.resolver = params.required('resolvername');
  return { value: await deleteUser(context(), params.required('resolvername'), params.required('username')) };
};
