// Realms: named, ordered groups of resolvers. A user is looked up in the resolvers of a realm in
// priority order (lower first, none = 1000, ties in the order the realm listed them), and the first that knows
// the login wins. The first realm ever created becomes the default realm. The services read realms
// from the realm directory (realm-directory.ts); every write here goes through writeRealmTables.
import type { Transaction } from 'kysely';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import type { Database } from '../../store/index.ts';
import { grantedRealms } from '../access/index.ts';
import type { Context, Runtime } from '../context.ts';
import { realmDirectory, writeRealmTables } from '../directory/index.ts';
import { checkLength, LIMITS } from '../limits.ts';

const REALM_SYNTAX = /^[a-z0-9_.-]{1,255}$/;

/** How a realm name is stored and looked up: lower-case, spaces as '-'. */
export function storedRealmName(name: string): string {
  return name.trim().toLowerCase().replace(/ /g, '-');
}

/** Realm names are lower-case and spaces become '-', as in privacyIDEA. */
export function normaliseRealmName(name: string): string {
  const n = storedRealmName(name);
  checkLength('realm', n, LIMITS.name);
  if (!REALM_SYNTAX.test(n)) {
    throw new ParameterError(`Invalid realm name '${name}': use letters, digits, '_', '-' or '.'`);
  }
  return n;
}

export interface RealmResolverView {
  name: string;
  type: string;
  priority: number | null;
  node: string;
}

export interface RealmView {
  id: number;
  default: boolean;
  resolver: RealmResolverView[];
}

/** Every realm with its resolvers (those of every node, in the order they are asked), by name. */
export async function listRealms(rt: Runtime): Promise<Record<string, RealmView>> {
  const realms = (await realmDirectory(rt))
    .realms()
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: Record<string, RealmView> = {};
  for (const r of realms) {
    out[r.name] = {
      id: r.id,
      default: r.isDefault,
      resolver: r.resolvers.map(({ name, type, priority, node }) => ({ name, type, priority, node })),
    };
  }
  return out;
}

/** GET /realm/: the realms, narrowed to those of the caller's admin policies when they name realms. */
export async function visibleRealms(ctx: Context): Promise<Record<string, RealmView>> {
  const all = await listRealms(ctx);
  const granted = await grantedRealms(ctx, undefined);
  if (!granted) return all;
  return Object.fromEntries(Object.entries(all).filter(([name]) => granted.includes(name)));
}

/**
 * Creates a realm or replaces its resolver list. Unknown resolvers are reported in `failed`; when
 * none of the named resolvers exists nothing is changed and the call fails.
 */
export async function setRealm(
  ctx: Context,
  rawName: string,
  resolverNames: string[],
  priorities: Record<string, number>,
): Promise<{ added: string[]; failed: string[] }> {
  const name = normaliseRealmName(rawName);
  const wanted = [...new Set(resolverNames.map((r) => r.trim()).filter((r) => r !== ''))];
  if (wanted.length === 0) throw ParameterError.missing('resolvers');
  for (const [resolver, p] of Object.entries(priorities)) {
    if (!Number.isInteger(p) || p < 0 || p > 999_999) {
      throw new ParameterError(`priority.${resolver} must be a whole number from 0 to 999999`);
    }
  }
  return writeRealmTables(ctx.store, async (trx) => {
    const known = await trx.selectFrom('resolver').select(['id', 'name']).execute();
    const added: { id: number; name: string }[] = [];
    const failed: string[] = [];
    for (const w of wanted) {
      const r = known.find((k) => k.name.toLowerCase() === w.toLowerCase());
      if (r) added.push(r);
      else failed.push(w);
    }
    if (added.length === 0) throw new ParameterError(`None of the resolvers exists: ${failed.join(', ')}`);
    const realmId = await ensureRealm(trx, name);
    await trx.deleteFrom('realm_resolver').where('realm_id', '=', realmId).where('node', '=', '').execute();
    for (const [position, r] of added.entries()) {
      const p =
        priorities[r.name] ??
        Object.entries(priorities).find(([k]) => k.toLowerCase() === r.name.toLowerCase())?.[1];
      await trx
        .insertInto('realm_resolver')
        .values({ realm_id: realmId, resolver_id: r.id, priority: p ?? null, position, node: '' })
        .execute();
    }
    return { value: { added: added.map((r) => r.name), failed }, changed: true };
  });
}

async function ensureRealm(trx: Transaction<Database>, name: string): Promise<number> {
  const existing = await trx.selectFrom('realm').select('id').where('name', '=', name).executeTakeFirst();
  if (existing) return existing.id;
  const anyDefault = await trx
    .selectFrom('realm')
    .select('id')
    .where('is_default', '=', 1)
    .executeTakeFirst();
  await trx
    .insertInto('realm')
    .values({ name, is_default: anyDefault ? 0 : 1 })
    .execute();
  return (await trx.selectFrom('realm').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
}

const REALM_NOT_FOUND = 'The requested Realm could not be found.';

/** Deletes a realm; if it was the default and exactly one realm remains, that one becomes default. */
export async function deleteRealm(ctx: Context, rawName: string): Promise<number> {
  const name = storedRealmName(rawName);
  return writeRealmTables(ctx.store, async (trx) => {
    const row = await trx.selectFrom('realm').selectAll().where('name', '=', name).executeTakeFirst();
    if (!row) throw new ResourceNotFoundError(REALM_NOT_FOUND);
    await trx.deleteFrom('realm_resolver').where('realm_id', '=', row.id).execute();
    await trx.deleteFrom('realm').where('id', '=', row.id).execute();
    await trx.deleteFrom('user_attribute').where('realm', '=', name).execute();
    if (row.is_default === 1) {
      const rest = await trx.selectFrom('realm').select('id').execute();
      if (rest.length === 1)
        await trx.updateTable('realm').set({ is_default: 1 }).where('id', '=', rest[0]!.id).execute();
    }
    return { value: row.id, changed: true };
  });
}

export async function setDefaultRealm(ctx: Context, rawName: string): Promise<number> {
  const name = storedRealmName(rawName);
  return writeRealmTables(ctx.store, async (trx) => {
    const row = await trx.selectFrom('realm').select('id').where('name', '=', name).executeTakeFirst();
    if (!row) throw new ResourceNotFoundError(REALM_NOT_FOUND);
    await trx.updateTable('realm').set({ is_default: 0 }).where('is_default', '=', 1).execute();
    await trx.updateTable('realm').set({ is_default: 1 }).where('id', '=', row.id).execute();
    return { value: row.id, changed: true };
  });
}

/** Clears the default realm; returns the previous default's id, or 0. */
export async function clearDefaultRealm(ctx: Context): Promise<number> {
  return writeRealmTables(ctx.store, async (trx) => {
    const row = await trx.selectFrom('realm').select('id').where('is_default', '=', 1).executeTakeFirst();
    if (!row) return { value: 0, changed: false };
    await trx.updateTable('realm').set({ is_default: 0 }).where('id', '=', row.id).execute();
    return { value: row.id, changed: true };
  });
}

export function superuserRealms(rt: Runtime): string[] {
  return [...rt.config.security.superuserRealms];
}
