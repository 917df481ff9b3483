// Users: found in the resolvers of a realm, listed, created, edited and deleted in editable stores,
// with custom attributes kept in authsrv's own database and merged into the user's info.
import type { UserChanges, UserRecord, UserStore } from '../resolvers/user-store.ts';
import { actionValues, grantedRealms, unrestricted } from './access.ts';
import type { Context, Runtime } from './context.ts';
import { ParameterError, PolicyError, UserError } from './errors.ts';
import { checkLength, LIMITS } from './limits.ts';
import { defaultRealm, orderedResolvers, realmExists } from './realm.ts';
import { type DirectoryResolver, realmDirectory } from './realm-directory.ts';
import { userStore, userStoreOf } from './resolver.ts';
import { configFlag } from './system-config.ts';

export interface ResolvedUser {
  login: string;
  realm: string;
  resolver: string;
  userid: string;
  info: UserRecord;
  /** The open store of the resolver that knows the user. */
  store: UserStore;
}

/** How many users one listing returns at most from each resolver. */
export const LIST_LIMIT = 10_000;

/**
 * The login and realm meant by a user name, as privacyIDEA's split_user and get_user_from_param do:
 * `user@realm` is split at the last '@' when what follows is a realm and splitAtSign is on;
 * `realm\user` (no '@' at all) at the last backslash. An explicit realm parameter then replaces the
 * realm part; without any realm the default realm applies.
 */
export async function splitLogin(
  rt: Runtime,
  username: string,
  realmParam: string | undefined,
): Promise<{ login: string; realm: string }> {
  let login = username;
  let realm = '';
  const at = username.lastIndexOf('@');
  if (at >= 0) {
    if (at > 0 && (await configFlag(rt, 'splitAtSign', true))) {
      const candidate = username.slice(at + 1).toLowerCase();
      if (candidate !== '' && (await realmExists(rt, candidate))) {
        login = username.slice(0, at);
        realm = candidate;
      }
    }
  } else {
    const slash = username.lastIndexOf('\\');
    if (slash > 0 && slash < username.length - 1) {
      login = username.slice(slash + 1);
      realm = username.slice(0, slash).toLowerCase();
    }
  }
  if (realmParam) realm = realmParam.toLowerCase();
  if (!realm) realm = (await defaultRealm(rt)) ?? '';
  return { login, realm };
}

/** Finds a login in a realm: the first resolver (by priority) that knows it wins. */
export async function findUser(rt: Runtime, login: string, realm: string): Promise<ResolvedUser | undefined> {
  for (const row of await orderedResolvers(rt, realm)) {
    const { store } = await userStoreOf(rt, row);
    const info = await store.findByLogin(login);
    if (info) {
      return {
        login: info.username,
        realm: realm.toLowerCase(),
        resolver: row.name,
        userid: info.userid,
        info,
        store,
      };
    }
  }
  return undefined;
}

/** The names of every resolver of the realm that knows the login, in priority order (check_all_resolvers). */
export async function resolversOfUser(rt: Runtime, login: string, realm: string): Promise<string[]> {
  const out: string[] = [];
  for (const row of await orderedResolvers(rt, realm)) {
    const { store } = await userStoreOf(rt, row);
    if (await store.findByLogin(login)) out.push(row.name);
  }
  return out;
}

/** Like findUser, but an unknown user is an error (904). */
export async function requireUser(rt: Runtime, login: string, realm: string): Promise<ResolvedUser> {
  const u = await findUser(rt, login, realm);
  if (!u) throw new UserError(`User <${login}@${realm}> does not exist.`);
  return u;
}

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

// --- custom attributes -------------------------------------------------------------------------

const ATTRIBUTE_KEY = /^[A-Za-z0-9_.:-]{1,255}$/;
/** Keys authsrv sets itself (privacyIDEA 3.13: last_used_token); clients may not. */
const INTERNAL_PREFIXES = ['last_used_token', 'authsrv.'];

interface AttributeRow {
  userid: string;
  key: string;
  value: string;
  realm: string;
}

/** Custom attributes of a user as merged into their info: those of the realm and those of no realm. */
function mergeAttributes(rows: readonly AttributeRow[], realm: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const r of rows) if (r.realm === '' || realm === '' || r.realm === realm) out[r.key] = r.value;
  return out;
}

async function customAttributes(
  rt: Runtime,
  who: { userid: string; resolver: string; realm: string },
): Promise<Record<string, string>> {
  const rows = await rt.store.db
    .selectFrom('user_attribute')
    .select(['userid', 'key', 'value', 'realm'])
    .where('resolver', '=', who.resolver)
    .where('userid', '=', who.userid)
    .orderBy('id')
    .execute();
  return mergeAttributes(rows, who.realm);
}

/** Every custom attribute of a resolver's users, by userid: one query for a whole listing. */
async function attributesOfResolver(rt: Runtime, resolver: string): Promise<Map<string, AttributeRow[]>> {
  const rows = await rt.store.db
    .selectFrom('user_attribute')
    .select(['userid', 'key', 'value', 'realm'])
    .where('resolver', '=', resolver)
    .orderBy('id')
    .execute();
  const out = new Map<string, AttributeRow[]>();
  for (const r of rows) {
    const list = out.get(r.userid) ?? [];
    list.push(r);
    out.set(r.userid, list);
  }
  return out;
}

/** What a caller may do with the custom attributes of one user: keys it may delete, values it may set per key. */
export interface AttributeRights {
  delete: string[];
  set: Record<string, string[]>;
}

const ALL_ATTRIBUTES: AttributeRights = { delete: ['*'], set: { '*': ['*'] } };

/**
 * `:key1: v1 v2 :key2: *` (also `:*:*`, `:room:101`) → {key1: [v1, v2], key2: ['*']}, merged into
 * `into`: the text is split at colons into alternating keys and whitespace-separated values.
 */
function parseSetRule(text: string, into: Map<string, string[]>): void {
  const parts = text.split(':');
  for (let i = 1; i < parts.length; i += 2) {
    const key = (parts[i] as string).trim();
    if (key === '') continue;
    const values = into.get(key) ?? [];
    for (const v of (parts[i + 1] ?? '').split(/\s+/).filter(Boolean))
      if (!values.includes(v)) values.push(v);
    into.set(key, values);
  }
}

/**
 * The caller's rights on a user's custom attributes, from set_custom_user_attributes and
 * delete_custom_user_attributes of the caller's scope (reference 6.3). An administrator whose scope
 * holds no active policy may do everything; a user needs a policy: attributes feed policy
 * conditions, so users may not set their own unless an administrator says so.
 */
export async function editableAttributes(ctx: Context, user: ResolvedUser): Promise<AttributeRights> {
  if (ctx.caller.role === 'admin' && (await unrestricted(ctx))) return ALL_ATTRIBUTES;
  const target = { user: user.login, realm: user.realm, resolver: user.resolver };
  const opts = { allowWhiteSpace: true };
  const set = new Map<string, string[]>();
  for (const v of (await actionValues(ctx, 'set_custom_user_attributes', target, opts)).keys()) {
    parseSetRule(v, set);
  }
  const del = new Set<string>();
  for (const v of (await actionValues(ctx, 'delete_custom_user_attributes', target, opts)).keys()) {
    for (const k of v.split(/\s+/).filter(Boolean)) del.add(k);
  }
  return { delete: [...del], set: Object.fromEntries(set) };
}

function maySet(rights: AttributeRights, key: string, value: string): boolean {
  return [key, '*'].some((k) => {
    const values = Object.hasOwn(rights.set, k) ? rights.set[k] : undefined;
    return values?.includes('*') || values?.includes(value);
  });
}

export async function setUserAttribute(
  ctx: Context,
  user: ResolvedUser,
  key: string,
  value: string,
  type: string | undefined,
): Promise<number> {
  checkLength('key', key, LIMITS.name);
  if (!ATTRIBUTE_KEY.test(key)) throw new ParameterError(`Invalid attribute name '${key}'`);
  if (INTERNAL_PREFIXES.some((p) => key.startsWith(p))) {
    throw new ParameterError(`Invalid attribute name! '${key}' is reserved for internal use.`);
  }
  if (value.length > 10_000) throw new ParameterError('The attribute value is longer than 10000 characters');
  checkLength('type', type, LIMITS.attributeType);
  if (!maySet(await editableAttributes(ctx, user), key, value))
    throw new PolicyError(`You are not allowed to set the custom user attribute ${key}!`);
  return ctx.store.db.transaction().execute(async (trx) => {
    const where = trx
      .selectFrom('user_attribute')
      .select('id')
      .where('resolver', '=', user.resolver)
      .where('userid', '=', user.userid)
      .where('realm', '=', user.realm)
      .where('key', '=', key);
    const existing = await where.executeTakeFirst();
    if (existing) {
      await trx
        .updateTable('user_attribute')
        .set({ value, type: type ?? '' })
        .where('id', '=', existing.id)
        .execute();
      return existing.id;
    }
    await trx
      .insertInto('user_attribute')
      .values({
        userid: user.userid,
        resolver: user.resolver,
        realm: user.realm,
        key,
        value,
        type: type ?? '',
      })
      .execute();
    return (await where.executeTakeFirstOrThrow()).id;
  });
}

export async function getUserAttributes(
  ctx: Context,
  user: ResolvedUser,
  key: string | undefined,
): Promise<Record<string, string> | string | null> {
  const all = await customAttributes(ctx, {
    userid: user.userid,
    resolver: user.resolver,
    realm: user.realm,
  });
  if (key === undefined) return all;
  return all[key] ?? null;
}

export async function deleteUserAttribute(
  ctx: Context,
  key: string,
  username: string,
  realm: string,
): Promise<number> {
  if (
    ctx.caller.role === 'user' &&
    (username !== ctx.caller.username || realm.toLowerCase() !== ctx.caller.realm)
  ) {
    throw new PolicyError('User is not allowed to delete attributes of other users.');
  }
  const user = await requireUser(ctx, username, realm.toLowerCase());
  const rights = await editableAttributes(ctx, user);
  if (!rights.delete.includes('*') && !rights.delete.includes(key)) {
    throw new PolicyError(`You are not allowed to delete the custom user attribute ${key}!`);
  }
  const r = await ctx.store.db
    .deleteFrom('user_attribute')
    .where('resolver', '=', user.resolver)
    .where('userid', '=', user.userid)
    .where('realm', '=', user.realm)
    .where('key', '=', key)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
