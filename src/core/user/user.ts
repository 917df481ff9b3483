// Users: found in the resolvers of a realm, listed, created, edited and deleted in editable stores,
// with custom attributes kept in authsrv's own database and merged into the user's info.

import { ParameterError, UserError } from '../../errors.ts';
import type { UserChanges, UserRecord } from '../../resolvers/index.ts';
import { grantedRealms } from '../access/index.ts';
import type { Context } from '../context.ts';
import {
  type DirectoryResolver,
  orderedResolvers,
  type ResolvedUser,
  realmDirectory,
  realmExists,
  requireUser,
  splitLogin,
  userStore,
  userStoreOf,
} from '../directory/index.ts';
import { checkFilters, checkLength, LIMITS } from '../limits.ts';
import { attributesOfResolver, customAttributes, mergeAttributes } from './attributes.ts';

/** How many users one listing returns at most from each resolver. */
export const LIST_LIMIT = 10_000;

/** The user a request names (`user`, `realm`, optional `resolver`); a normal user always names themselves. */
export async function targetUser(
  ctx: Context,
  params: { user?: string | undefined; realm?: string | undefined; resolver?: string | undefined },
): Promise<ResolvedUser> {
  if (ctx.caller.role === 'user') return requireUser(ctx, ctx.caller.username, ctx.caller.realm);
  if (!params.user) throw ParameterError.missing('user');
  const { login, realm } = await splitLogin(ctx, params.user, params.realm);
  if (!realm) throw new UserError('No realm given and no default realm is set.');
  if (!(await realmExists(ctx, realm))) throw new UserError(`The realm '${realm}' does not exist.`);
  const u = await requireUser(ctx, login, realm);
  if (params.resolver && params.resolver.toLowerCase() !== u.resolver.toLowerCase()) {
    throw new UserError(`User <${login}@${realm}> does not exist in resolver '${params.resolver}'.`);
  }
  return u;
}

export interface ListQuery {
  realm?: string | undefined;
  resolver?: string | undefined;
  /** Search fields (privacyIDEA names; `*` wildcards). `username` or `user` search the login. */
  search: Record<string, string>;
  /** Only these attributes are returned (plus username, userid, resolver, editable). */
  attributes?: string[] | undefined;
  includeCustomAttributes?: boolean;
}

export type UserListEntry = Record<string, string | string[] | boolean>;

export async function listUsers(ctx: Context, q: ListQuery): Promise<UserListEntry[]> {
  checkFilters({ ...q.search, realm: q.realm, resolver: q.resolver });
  if (ctx.caller.role === 'user') {
    const me = await requireUser(ctx, ctx.caller.username, ctx.caller.realm);
    const custom =
      q.includeCustomAttributes === false
        ? undefined
        : await customAttributes(ctx, { userid: me.userid, resolver: me.resolver, realm: me.realm });
    return [entryOf(me.info, me.resolver, me.store.editable, custom, q)];
  }
  const search = { ...q.search };
  if (search.user !== undefined) {
    search.username ??= search.user;
    delete search.user;
  }
  // Without a realm, a realm-restricted administrator lists the realms his userlist policies name.
  const granted = q.realm ? undefined : await grantedRealms(ctx, 'userlist');
  const realms = q.realm
    ? [q.realm.toLowerCase()]
    : (await realmDirectory(ctx))
        .realms()
        .map((r) => r.name)
        .filter((r) => !granted || granted.includes(r));
  if (q.realm && !(await realmExists(ctx, q.realm)))
    throw new UserError(`The realm '${q.realm}' does not exist.`);
  const seen = new Set<string>();
  const out: UserListEntry[] = [];
  const resolverRows: { row: DirectoryResolver; realm: string }[] = [];
  for (const realm of realms)
    for (const row of await orderedResolvers(ctx, realm)) resolverRows.push({ row, realm });
  if (!q.realm && q.resolver) {
    const h = await userStore(ctx, q.resolver);
    if (!resolverRows.some((r) => r.row.id === h.id)) {
      const row = (await realmDirectory(ctx)).resolvers().find((r) => r.id === h.id);
      if (row) resolverRows.push({ row, realm: '' });
    }
  }
  for (const { row, realm } of resolverRows) {
    if (q.resolver && row.name.toLowerCase() !== q.resolver.toLowerCase()) continue;
    const key = `${row.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const { store } = await userStoreOf(ctx, row);
    const found = await store.search(search, LIST_LIMIT);
    const attributes =
      q.includeCustomAttributes === false || found.length === 0
        ? undefined
        : await attributesOfResolver(ctx, row.name);
    for (const info of found) {
      const custom = attributes && mergeAttributes(attributes.get(info.userid) ?? [], realm);
      out.push(entryOf(info, row.name, store.editable, custom, q));
    }
  }
  return out;
}

/** The identity of a listed user, which custom attributes cannot override. */
const IDENTITY = new Set(['username', 'userid', 'resolver', 'editable']);

function entryOf(
  info: UserRecord,
  resolver: string,
  editable: boolean,
  custom: Record<string, string> | undefined,
  q: ListQuery,
): UserListEntry {
  const entry: UserListEntry = {};
  for (const [k, v] of Object.entries(info)) if (v !== undefined) entry[k] = v;
  for (const [k, v] of Object.entries(custom ?? {})) if (!IDENTITY.has(k)) entry[k] = v;
  if (q.attributes && q.attributes.length > 0) {
    const keep = new Set([...q.attributes, 'username', 'userid']);
    for (const k of Object.keys(entry)) if (!keep.has(k)) delete entry[k];
  }
  entry.resolver = resolver;
  entry.editable = editable;
  return entry;
}

async function editableStore(ctx: Context, resolver: string) {
  const h = await userStore(ctx, resolver);
  if (!h.store.editable) throw new UserError(`The resolver '${h.name}' is not editable.`);
  return h;
}

/** Request parameters that name the user or steer the call; `editable` comes back from listings. */
const NOT_ATTRIBUTES = new Set([
  'user',
  'username',
  'resolver',
  'realm',
  'password',
  'userid',
  'nonce',
  'editable',
]);

/** The user attributes among request parameters (everything but the control parameters). */
export function userChanges(params: Record<string, string>): UserChanges {
  const out: UserChanges = {};
  for (const [k, v] of Object.entries(params)) if (!NOT_ATTRIBUTES.has(k)) out[k] = v;
  return out;
}

/**
 * The user and resolver that POST/PUT /user act on. A normal user always edits themselves: user and
 * resolver are replaced by the authenticated user's.
 */
export async function userToEdit(
  ctx: Context,
  params: { user?: string | undefined; resolver?: string | undefined },
): Promise<{ resolver: string; username: string }> {
  if (ctx.caller.role === 'user') {
    const me = await requireUser(ctx, ctx.caller.username, ctx.caller.realm);
    return { resolver: me.resolver, username: me.login };
  }
  if (!params.resolver) throw ParameterError.missing('resolver');
  if (!params.user) throw ParameterError.missing('user');
  return { resolver: params.resolver, username: params.user };
}

export async function createUser(
  ctx: Context,
  resolver: string,
  username: string,
  changes: UserChanges,
  password: string | undefined,
): Promise<string> {
  if (!username) throw ParameterError.missing('user');
  checkLength('password', password, LIMITS.password);
  const h = await editableStore(ctx, resolver);
  if (await h.store.findByLogin(username))
    throw new UserError(`The user '${username}' already exists in resolver '${h.name}'.`);
  return h.store.create!({ ...changes, username }, password);
}

export async function updateUser(
  ctx: Context,
  resolver: string,
  username: string,
  changes: UserChanges,
  password: string | undefined,
): Promise<boolean> {
  checkLength('password', password, LIMITS.password);
  const h = await editableStore(ctx, resolver);
  const user = await h.store.findByLogin(username);
  if (!user) throw new UserError(`The user '${username}' does not exist in resolver '${h.name}'.`);
  await h.store.update!(user, changes, password);
  return true;
}

export async function deleteUser(ctx: Context, resolver: string, username: string): Promise<boolean> {
  const h = await editableStore(ctx, resolver);
  const user = await h.store.findByLogin(username);
  if (!user) throw new UserError(`The user '${username}' does not exist in resolver '${h.name}'.`);
  await h.store.delete!(user);
  await ctx.store.db
    .deleteFrom('user_attribute')
    .where('resolver', '=', h.name)
    .where('userid', '=', user.userid)
    .execute();
  return true;
}
