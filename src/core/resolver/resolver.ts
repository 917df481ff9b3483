// Resolvers: named, typed user-store configurations. Settings are stored as one JSON document per
// resolver with password-typed values sealed by the security module; they leave the service only
// as __CENSORED__, and __CENSORED__ sent back means "keep the stored secret". The merging, checks,
// sealing and test of settings are plugin-settings/'s, shared with the machine resolvers.

import { ConfigAdminError, ParameterError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import { resolverKind, type TestResult } from '../../resolvers/index.ts';
import type { Context, Runtime } from '../context.ts';
import { dropStore, writeRealmTables } from '../directory/index.ts';
import {
  censoredView,
  checkName,
  type SettingsView,
  secretSettingNames as secretsOfKind,
  settingsToSave,
  testBase,
  testSettings,
} from '../plugin-settings/index.ts';

export type ResolverView = SettingsView;

/** Parameters of POST /resolver/… that are not settings. */
const NOT_SETTINGS = new Set(['resolver', 'type', 'nonce', 'name']);

/** The setting names (aliases included) a resolver type seals. */
export function secretSettingNames(type: string): Set<string> {
  return secretsOfKind(resolverKind(type));
}

async function findRow(rt: Runtime, name: string) {
  const rows = await rt.store.db.selectFrom('resolver').selectAll().execute();
  return rows.find((r) => r.name.toLowerCase() === name.toLowerCase());
}

export async function listResolvers(
  ctx: Context,
  filter: { type?: string | undefined; editable?: boolean } = {},
): Promise<Record<string, ResolverView>> {
  let q = ctx.store.db.selectFrom('resolver').selectAll().orderBy('name');
  if (filter.type) q = q.where('type', '=', filter.type);
  const out: Record<string, ResolverView> = {};
  for (const r of await q.execute()) {
    const view = censoredView(r.name, r.type, r.config);
    if (filter.editable && !isTrue(view.data.EDITABLE ?? view.data.Editable)) {
      continue;
    }
    out[r.name] = view;
  }
  return out;
}

export async function getResolver(ctx: Context, name: string): Promise<Record<string, ResolverView>> {
  const row = await findRow(ctx, name);
  return row ? { [row.name]: censoredView(row.name, row.type, row.config) } : {};
}

export interface SavedResolver {
  id: number;
  /** The name as stored: an update keeps the spelling the resolver was created with. */
  name: string;
  /** Whether the save created the resolver (else it updated one). */
  created: boolean;
  /** Settings of the saved resolver that are accepted but have no effect, one sentence each. */
  warnings: string[];
}

/** Creates or updates a resolver; returns what it saved and the warnings about its settings. */
export async function saveResolver(
  ctx: Context,
  name: string,
  params: Record<string, string>,
): Promise<SavedResolver> {
  checkName('resolver', name);
  const now = ctx.clock().toISOString();
  let warnings: string[] = [];
  const saved = await writeRealmTables(ctx.store, async (trx) => {
    const existing = (await trx.selectFrom('resolver').selectAll().execute()).find(
      (r) => r.name.toLowerCase() === name.toLowerCase(),
    );
    const { type, config, ...rest } = settingsToSave(ctx, {
      label: 'Resolver',
      name,
      existing,
      params,
      notSettings: NOT_SETTINGS,
      kindOf: resolverKind,
    });
    warnings = rest.warnings;
    if (existing) {
      await trx
        .updateTable('resolver')
        .set({ config, updated_at: now })
        .where('id', '=', existing.id)
        .execute();
      return { value: { id: existing.id, name: existing.name, created: false }, changed: true };
    }
    await trx.insertInto('resolver').values({ name, type, config, updated_at: now }).execute();
    const row = await trx
      .selectFrom('resolver')
      .select('id')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return { value: { id: row.id, name, created: true }, changed: true };
  });
  return { ...saved, warnings };
}

/** Deletes a resolver; -1 when there is none of that name (privacyIDEA's answer). */
export async function deleteResolver(ctx: Context, name: string): Promise<number> {
  const id = await writeRealmTables(ctx.store, async (trx) => {
    const row = (await trx.selectFrom('resolver').select(['id', 'name']).execute()).find(
      (r) => r.name.toLowerCase() === name.toLowerCase(),
    );
    if (!row) return { value: -1, changed: false };
    const inRealm = await trx
      .selectFrom('realm_resolver')
      .innerJoin('realm', 'realm.id', 'realm_resolver.realm_id')
      .select('realm.name')
      .where('realm_resolver.resolver_id', '=', row.id)
      .executeTakeFirst();
    if (inRealm) {
      throw new ConfigAdminError(`The resolver '${row.name}' is still contained in realm '${inRealm.name}'.`);
    }
    await trx.deleteFrom('resolver').where('id', '=', row.id).execute();
    await trx.deleteFrom('user_attribute').where('resolver', '=', row.name).execute();
    return { value: row.id, changed: true };
  });
  if (id !== -1) dropStore(ctx, id);
  return id;
}

/** A test of resolver settings: privacyIDEA's value and description, and whether the settings work. */
export interface ResolverTest extends TestResult {
  succeeded: boolean;
}

/** privacyIDEA's value: true/false, or for SQL the number of users found and -1 on failure. */
function succeeded(value: TestResult['value']): boolean {
  return typeof value === 'number' ? value >= 0 : value;
}

/**
 * Tries settings without saving them. With `resolver=<name>` of a stored resolver, __CENSORED__
 * secrets are taken from it. The warnings about settings without effect end the description.
 */
export async function testResolver(ctx: Context, params: Record<string, string>): Promise<ResolverTest> {
  const type = params.type;
  if (!type) throw ParameterError.missing('type');
  const kind = resolverKind(type);
  const stored = params.resolver ? await findRow(ctx, params.resolver) : undefined;
  const result = await testSettings(ctx, kind, params, NOT_SETTINGS, testBase(ctx, stored, type));
  return { ...result, succeeded: succeeded(result.value) };
}
