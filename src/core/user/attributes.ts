// Custom user attributes (reference 6.3): kept in authsrv's own database per resolver, user and
// realm, merged into the user's info, and set or deleted as the caller's policies allow.

import { ParameterError, PolicyError } from '../../errors.ts';
import { runTransaction } from '../../store/index.ts';
import { actionValues, unrestricted } from '../access/index.ts';
import type { Context, Runtime } from '../context.ts';
import { type ResolvedUser, requireUser } from '../directory/index.ts';
import { checkLength, LIMITS } from '../limits.ts';

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
export function mergeAttributes(rows: readonly AttributeRow[], realm: string): Record<string, string> {
  // Through a Map: a key is any name a caller chose, `__proto__` and `constructor` included, and
  // each must be an own entry of the result (a plain object's `__proto__` would swallow it).
  const out = new Map<string, string>();
  for (const r of rows) if (r.realm === '' || realm === '' || r.realm === realm) out.set(r.key, r.value);
  return Object.fromEntries(out);
}

export async function customAttributes(
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
export async function attributesOfResolver(
  rt: Runtime,
  resolver: string,
): Promise<Map<string, AttributeRow[]>> {
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

/** The key and value of an attribute a client or an event handler sets, checked. */
function checkAttribute(key: string, value: string, type: string | undefined): void {
  checkLength('key', key, LIMITS.name);
  if (!ATTRIBUTE_KEY.test(key)) throw new ParameterError(`Invalid attribute name '${key}'`);
  if (INTERNAL_PREFIXES.some((p) => key.startsWith(p))) {
    throw new ParameterError(`Invalid attribute name! '${key}' is reserved for internal use.`);
  }
  if (value.length > 10_000) throw new ParameterError('The attribute value is longer than 10000 characters');
  checkLength('type', type, LIMITS.attributeType);
}

/** The user whose attributes are written: the row's columns. */
export type AttributeOwner = Pick<ResolvedUser, 'userid' | 'resolver' | 'realm'>;

async function writeAttribute(
  rt: Runtime,
  user: AttributeOwner,
  key: string,
  value: string,
  type: string | undefined,
): Promise<number> {
  return runTransaction(rt.store, async (trx) => {
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

async function removeAttribute(rt: Runtime, user: AttributeOwner, key: string): Promise<number> {
  const r = await rt.store.db
    .deleteFrom('user_attribute')
    .where('resolver', '=', user.resolver)
    .where('userid', '=', user.userid)
    .where('realm', '=', user.realm)
    .where('key', '=', key)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function setUserAttribute(
  ctx: Context,
  user: ResolvedUser,
  key: string,
  value: string,
  type: string | undefined,
): Promise<number> {
  checkAttribute(key, value, type);
  if (!maySet(await editableAttributes(ctx, user), key, value))
    throw new PolicyError(`You are not allowed to set the custom user attribute ${key}!`);
  return writeAttribute(ctx, user, key, value, type);
}

/**
 * Sets an attribute as the server itself, no policy asked (the event handler module
 * CustomUserAttributes: its definition was authorised when it was saved; an import of another
 * system's attributes); the key is checked as for a client.
 */
export async function setUserAttributeAsServer(
  rt: Runtime,
  user: AttributeOwner,
  key: string,
  value: string,
  type?: string,
): Promise<void> {
  checkAttribute(key, value, type);
  await writeAttribute(rt, user, key, value, type);
}

/** Deletes an attribute as the server itself, no policy asked; the number of rows deleted. */
export function deleteUserAttributeAsServer(rt: Runtime, user: AttributeOwner, key: string): Promise<number> {
  return removeAttribute(rt, user, key);
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
  // Own entries only: `constructor` or `toString` must not answer Object.prototype's function.
  return Object.hasOwn(all, key) ? (all[key] ?? null) : null;
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
  return removeAttribute(ctx, user, key);
}
