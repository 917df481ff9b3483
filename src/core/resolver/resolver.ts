// Resolvers: named, typed user-store configurations. Settings are stored as one JSON document per
// resolver with password-typed values sealed by the security module; they leave the service only
// as __CENSORED__, and __CENSORED__ sent back means "keep the stored secret".

import { ConfigAdminError, ParameterError } from '../../errors.ts';
import type { AllowedFiles } from '../../files/index.ts';
import { isTrue } from '../../is-true.ts';
import {
  type ResolverKind,
  type ResolverSettings,
  resolverKind,
  type TestResult,
} from '../../resolvers/index.ts';
import type { Context, Runtime } from '../context.ts';
import { dropStore, parseStored, type StoredConfig, seal, writeRealmTables } from '../directory/index.ts';
import { checkLength, LIMITS, TEXT_COLUMN_BYTES } from '../limits.ts';
import { checkSecretReuse } from '../secret-reuse.ts';
import { CENSORED } from '../system/index.ts';

export const NAME_SYNTAX = /^[A-Za-z0-9_.-]{1,255}$/;

const MAX_VALUE = 65_000;

export interface ResolverView {
  resolvername: string;
  type: string;
  data: Record<string, string>;
  censor_keys: string[];
}

/** Parameters of POST /resolver/… that are not settings. */
const NOT_SETTINGS = new Set(['resolver', 'type', 'nonce', 'name']);

function checkName(name: string): void {
  checkLength('resolver', name, LIMITS.name);
  if (!NAME_SYNTAX.test(name)) {
    throw new ParameterError(`Invalid resolver name '${name}': use letters, digits, '_', '-' or '.'`);
  }
}

function censoredView(name: string, type: string, text: string): ResolverView {
  const stored = JSON.parse(text) as StoredConfig;
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(stored.settings)) data[k] = stored.secrets.includes(k) ? CENSORED : v;
  return { resolvername: name, type, data, censor_keys: [...stored.secrets] };
}

/** The setting names (aliases included) a resolver type seals. */
export function secretSettingNames(type: string): Set<string> {
  const out = new Set<string>();
  for (const [name, spec] of Object.entries(resolverKind(type).settings)) {
    if (spec.type !== 'password') continue;
    out.add(name);
    for (const alias of spec.aliases ?? []) out.add(alias);
  }
  return out;
}

/** The canonical name of a setting (aliases folded), or undefined when the type does not know it. */
function canonicalKey(kind: ResolverKind, key: string): string | undefined {
  for (const [name, spec] of Object.entries(kind.settings)) {
    if (name === key || spec.aliases?.includes(key)) return name;
  }
  return undefined;
}

/**
 * Applies request parameters to settings (in place): empty values delete a setting, __CENSORED__
 * keeps a stored secret, `type.<Key>=password` marks a key secret, `desc.<Key>` is accepted and
 * ignored. Returns the keys the request gave a value of its own.
 */
function applyParams(
  kind: ResolverKind,
  params: Record<string, string>,
  settings: ResolverSettings,
  secrets: Set<string>,
): Set<string> {
  const given = new Set<string>();
  for (const [rawKey, value] of Object.entries(params)) {
    if (NOT_SETTINGS.has(rawKey)) continue;
    const marker = /^(type|desc)\.(.+)$/.exec(rawKey);
    if (marker) {
      const key = canonicalKey(kind, marker[2]!);
      if (!key) throw new ParameterError(`Unknown setting '${marker[2]}' for a ${kind.type}`);
      if (marker[1] === 'type' && value === 'password') secrets.add(key);
      continue;
    }
    const key = canonicalKey(kind, rawKey);
    if (!key) {
      throw new ParameterError(
        `Unknown setting '${rawKey}' for a ${kind.type}: use ${Object.keys(kind.settings).join(', ')}`,
      );
    }
    if (value.length > MAX_VALUE) throw new ParameterError(`The value of ${key} is too long`);
    if (value.includes('\u0000')) throw new ParameterError(`The value of ${key} contains a NUL character`);
    if (value === CENSORED && secrets.has(key)) {
      if (settings[key] === undefined)
        throw new ParameterError(`${key} is ${CENSORED} but no value is stored`);
      continue;
    }
    given.add(key);
    if (value === '') delete settings[key];
    else settings[key] = value;
  }
  return given;
}

/** Checks the merged settings against the kind's descriptions: required ones, types, its own checks. */
function checkValues(kind: ResolverKind, settings: ResolverSettings, files: AllowedFiles): void {
  for (const [key, spec] of Object.entries(kind.settings)) {
    if (spec.required && (settings[key] ?? '') === '') throw ParameterError.missing(key);
    const v = settings[key];
    if (v === undefined) continue;
    if (spec.type === 'int' && !/^-?\d+$/.test(v.trim()))
      throw new ParameterError(`${key} must be a whole number`);
    if (spec.type === 'bool' && !['0', '1', 'true', 'false', 'True', 'False', 'TRUE', 'FALSE'].includes(v)) {
      throw new ParameterError(`${key} must be True or False`);
    }
    if (spec.type === 'json') {
      try {
        JSON.parse(v);
      } catch {
        throw new ParameterError(`${key} must be valid JSON`);
      }
    }
  }
  kind.validate?.(settings, files);
}

/**
 * Merges request parameters into stored settings (applyParams). A stored secret the request keeps
 * (__CENSORED__ or not sent) is refused when a setting of its destination changes: it must be given
 * again (checkSecretReuse), before anything is contacted or stored. The files the settings name
 * are checked against files.allowed_dirs (the kind's validate).
 */
function mergeSettings(
  kind: ResolverKind,
  params: Record<string, string>,
  before: { settings: ResolverSettings; secrets: Set<string> },
  files: AllowedFiles,
): { settings: ResolverSettings; secrets: Set<string> } {
  const stored = before.settings;
  const settings = { ...stored };
  const secrets = new Set(before.secrets);
  for (const spec of Object.entries(kind.settings)) if (spec[1].type === 'password') secrets.add(spec[0]);
  const given = applyParams(kind, params, settings, secrets);
  checkSecretReuse({ specs: kind.settings, stored, requested: settings, secrets, given });
  checkValues(kind, settings, files);
  return { settings, secrets };
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

/** The resolver type's sentences about settings that are accepted but have no effect. */
function settingWarnings(kind: ResolverKind, settings: ResolverSettings): string[] {
  return kind.warnings?.(settings) ?? [];
}

/** A test's description with the warnings about settings without effect appended. */
function withWarnings(description: string, warnings: string[]): string {
  if (warnings.length === 0) return description;
  const text = description.trim();
  const sentence = text === '' || /[.!?]$/.test(text) ? text : `${text}.`;
  return [sentence, ...warnings].filter((t) => t !== '').join(' ');
}

/** Creates or updates a resolver; returns what it saved and the warnings about its settings. */
export async function saveResolver(
  ctx: Context,
  name: string,
  params: Record<string, string>,
): Promise<SavedResolver> {
  checkName(name);
  const now = ctx.clock().toISOString();
  let warnings: string[] = [];
  const saved = await writeRealmTables(ctx.store, async (trx) => {
    const existing = (await trx.selectFrom('resolver').selectAll().execute()).find(
      (r) => r.name.toLowerCase() === name.toLowerCase(),
    );
    const type = params.type ?? existing?.type;
    if (!type) throw ParameterError.missing('type');
    if (existing && existing.type !== type) {
      throw new ParameterError(
        `Resolver '${existing.name}' is a ${existing.type}; its type cannot be changed to ${type}`,
      );
    }
    const kind = resolverKind(type);
    const before = existing
      ? parseStored(ctx, existing.config)
      : { settings: {}, secrets: new Set<string>() };
    const merged = mergeSettings(kind, params, before, ctx.files);
    warnings = settingWarnings(kind, merged.settings);
    const config = seal(ctx, merged.settings, merged.secrets);
    // All settings share one TEXT column; MariaDB holds 65 535 bytes there.
    if (Buffer.byteLength(config, 'utf8') > TEXT_COLUMN_BYTES) {
      throw new ParameterError(
        `The settings of resolver '${name}' are too long: at most ${TEXT_COLUMN_BYTES} bytes can be stored`,
      );
    }
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
  let base: { settings: ResolverSettings; secrets: Set<string> } = { settings: {}, secrets: new Set() };
  if (params.resolver) {
    const row = await findRow(ctx, params.resolver);
    if (row && row.type === type) base = parseStored(ctx, row.config);
  }
  const { settings } = mergeSettings(kind, params, base, ctx.files);
  const warnings = settingWarnings(kind, settings);
  let result: TestResult;
  try {
    result = await kind.test(settings, { log: ctx.log, clock: ctx.clock, files: ctx.files });
  } catch (e) {
    result = { value: false, description: (e as Error).message };
  }
  const description = withWarnings(result.description, warnings);
  return { value: result.value, description, succeeded: succeeded(result.value) };
}
