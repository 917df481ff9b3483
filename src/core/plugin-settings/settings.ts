// The named, typed settings of a plug-in kind (user resolvers, machine resolvers): one JSON document
// per stored object with password-typed values sealed by the security module. They leave the
// service only as __CENSORED__, and __CENSORED__ sent back means "keep the stored secret" — under
// the destination rule of secret-reuse.ts. What differs between the resources (their table, their
// name in messages, what refers to them) stays in resolver/ and machineresolver/.
import { ParameterError } from '../../errors.ts';
import type { AllowedFiles } from '../../files/index.ts';
import type { ResolverSettings, SettingsKind, TestResult } from '../../resolvers/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS, TEXT_COLUMN_BYTES } from '../limits.ts';
import { checkSecretReuse } from '../secret-reuse.ts';
import { CENSORED } from '../system/index.ts';

/** Names of resolvers and machine resolvers (privacyIDEA's sanity_name_check). */
const NAME_SYNTAX = /^[A-Za-z0-9_.-]{1,255}$/;

const MAX_VALUE = 65_000;

/** The stored document. */
export interface StoredConfig {
  settings: Record<string, string>;
  /** Keys whose values are sealed. */
  secrets: string[];
}

/** Settings with their secrets, as a service works with them (secrets in clear). */
export interface OpenSettings {
  settings: ResolverSettings;
  secrets: Set<string>;
}

/** GET's view of a stored object: settings with secrets as __CENSORED__. */
export interface SettingsView {
  resolvername: string;
  type: string;
  data: Record<string, string>;
  censor_keys: string[];
}

export function parseStored(rt: Runtime, text: string): OpenSettings {
  const stored = JSON.parse(text) as StoredConfig;
  const secrets = new Set(stored.secrets);
  const settings: ResolverSettings = {};
  for (const [k, v] of Object.entries(stored.settings)) settings[k] = secrets.has(k) ? rt.hsm.decrypt(v) : v;
  return { settings, secrets };
}

export function seal(rt: Runtime, settings: ResolverSettings, secrets: Set<string>): string {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(settings)) out[k] = secrets.has(k) ? rt.hsm.encrypt(v) : v;
  const stored: StoredConfig = { settings: out, secrets: [...secrets].filter((k) => k in settings).sort() };
  return JSON.stringify(stored);
}

/** The stored document of settings, refused when it does not fit the TEXT column. */
export function sealWithinLimit(rt: Runtime, what: string, open: OpenSettings): string {
  const config = seal(rt, open.settings, open.secrets);
  // All settings share one TEXT column; MariaDB holds 65 535 bytes there.
  if (Buffer.byteLength(config, 'utf8') > TEXT_COLUMN_BYTES) {
    throw new ParameterError(
      `The settings of ${what} are too long: at most ${TEXT_COLUMN_BYTES} bytes can be stored`,
    );
  }
  return config;
}

/** Checks a name: `what` is the parameter named in the error (resolver, machine resolver …). */
export function checkName(what: string, name: string): void {
  checkLength(what, name, LIMITS.name);
  if (!NAME_SYNTAX.test(name)) {
    throw new ParameterError(`Invalid ${what} name '${name}': use letters, digits, '_', '-' or '.'`);
  }
}

export function censoredView(name: string, type: string, text: string): SettingsView {
  const stored = JSON.parse(text) as StoredConfig;
  const data: Record<string, string> = {};
  for (const [k, v] of Object.entries(stored.settings)) data[k] = stored.secrets.includes(k) ? CENSORED : v;
  return { resolvername: name, type, data, censor_keys: [...stored.secrets] };
}

/** The setting names (aliases included) a kind seals. */
export function secretSettingNames(kind: SettingsKind): Set<string> {
  const out = new Set<string>();
  for (const [name, spec] of Object.entries(kind.settings)) {
    if (spec.type !== 'password') continue;
    out.add(name);
    for (const alias of spec.aliases ?? []) out.add(alias);
  }
  return out;
}

/** The canonical name of a setting (aliases folded), or undefined when the kind does not know it. */
function canonicalKey(kind: SettingsKind, key: string): string | undefined {
  for (const [name, spec] of Object.entries(kind.settings)) {
    if (name === key || spec.aliases?.includes(key)) return name;
  }
  return undefined;
}

/** One parameter's value stored into settings (in place); false when __CENSORED__ kept a secret. */
function applyValue(key: string, value: string, settings: ResolverSettings, secrets: Set<string>): boolean {
  if (value.length > MAX_VALUE) throw new ParameterError(`The value of ${key} is too long`);
  if (value.includes('\u0000')) throw new ParameterError(`The value of ${key} contains a NUL character`);
  if (value === CENSORED && secrets.has(key)) {
    if (settings[key] === undefined) throw new ParameterError(`${key} is ${CENSORED} but no value is stored`);
    return false;
  }
  if (value === '') delete settings[key];
  else settings[key] = value;
  return true;
}

/**
 * Applies request parameters to settings (in place): empty values delete a setting, __CENSORED__
 * keeps a stored secret, `type.<Key>=password` marks a key secret, `desc.<Key>` is accepted and
 * ignored. Returns the keys the request gave a value of its own.
 */
function applyParams(
  kind: SettingsKind,
  params: Record<string, string>,
  notSettings: ReadonlySet<string>,
  open: OpenSettings,
): Set<string> {
  const given = new Set<string>();
  for (const [rawKey, value] of Object.entries(params)) {
    if (notSettings.has(rawKey)) continue;
    const marker = /^(type|desc)\.(.+)$/.exec(rawKey);
    if (marker) {
      const key = canonicalKey(kind, marker[2]!);
      if (!key) throw new ParameterError(`Unknown setting '${marker[2]}' for a ${kind.type}`);
      if (marker[1] === 'type' && value === 'password') open.secrets.add(key);
      continue;
    }
    const key = canonicalKey(kind, rawKey);
    if (!key) {
      throw new ParameterError(
        `Unknown setting '${rawKey}' for a ${kind.type}: use ${Object.keys(kind.settings).join(', ')}`,
      );
    }
    if (applyValue(key, value, open.settings, open.secrets)) given.add(key);
  }
  return given;
}

const BOOL_TEXTS = ['0', '1', 'true', 'false', 'True', 'False', 'TRUE', 'FALSE'];

/** Checks the merged settings against the kind's descriptions: required ones, types, its own checks. */
function checkValues(kind: SettingsKind, settings: ResolverSettings, files: AllowedFiles): void {
  for (const [key, spec] of Object.entries(kind.settings)) {
    if (spec.required && (settings[key] ?? '') === '') throw ParameterError.missing(key);
    const v = settings[key];
    if (v === undefined) continue;
    if (spec.type === 'int' && !/^-?\d+$/.test(v.trim()))
      throw new ParameterError(`${key} must be a whole number`);
    if (spec.type === 'bool' && !BOOL_TEXTS.includes(v))
      throw new ParameterError(`${key} must be True or False`);
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
 * are checked against files.allowed_dirs (the kind's validate). `notSettings` are the request's
 * parameters that are not settings (the name, the type …).
 */
export function mergeSettings(
  kind: SettingsKind,
  params: Record<string, string>,
  notSettings: ReadonlySet<string>,
  before: OpenSettings,
  files: AllowedFiles,
): OpenSettings {
  const stored = before.settings;
  const open = { settings: { ...stored }, secrets: new Set(before.secrets) };
  for (const [key, spec] of Object.entries(kind.settings))
    if (spec.type === 'password') open.secrets.add(key);
  const given = applyParams(kind, params, notSettings, open);
  checkSecretReuse({ specs: kind.settings, stored, requested: open.settings, secrets: open.secrets, given });
  checkValues(kind, open.settings, files);
  return open;
}

/** The kind's sentences about settings that are accepted but have no effect. */
export function settingWarnings(kind: SettingsKind, settings: ResolverSettings): string[] {
  return kind.warnings?.(settings) ?? [];
}

/** A test's description with the warnings about settings without effect appended. */
function withWarnings(description: string, warnings: string[]): string {
  if (warnings.length === 0) return description;
  const text = description.trim();
  const sentence = text === '' || /[.!?]$/.test(text) ? text : `${text}.`;
  return [sentence, ...warnings].filter((t) => t !== '').join(' ');
}

/**
 * Tries settings without saving them: the request's parameters merged into `base` (a stored
 * object's settings, whose secrets __CENSORED__ then keeps, or none). A kind's test that throws
 * fails with the error's message; the warnings about settings without effect end the description.
 */
export async function testSettings(
  ctx: Context,
  kind: SettingsKind,
  params: Record<string, string>,
  notSettings: ReadonlySet<string>,
  base: OpenSettings,
): Promise<TestResult> {
  const { settings } = mergeSettings(kind, params, notSettings, base, ctx.files);
  const warnings = settingWarnings(kind, settings);
  let result: TestResult;
  try {
    result = await kind.test(settings, { log: ctx.log, clock: ctx.clock, files: ctx.files });
  } catch (e) {
    result = { value: false, description: (e as Error).message };
  }
  return { value: result.value, description: withWarnings(result.description, warnings) };
}

/** A stored object of a settings table (resolver, machineresolver). */
export interface StoredObject {
  name: string;
  type: string;
  config: string;
}

/** What a save stores: the type, the sealed settings, and the warnings about settings without effect. */
export interface SettingsToSave {
  type: string;
  config: string;
  warnings: string[];
}

/**
 * The settings a POST stores for `name`: the request's merged into the existing object's (if
 * any). The type defaults to the stored one and may not change; `label` names the resource in
 * the messages ("Resolver", "Machine resolver").
 */
export function settingsToSave(
  ctx: Context,
  request: {
    label: string;
    name: string;
    existing: StoredObject | undefined;
    params: Record<string, string>;
    notSettings: ReadonlySet<string>;
    kindOf: (type: string) => SettingsKind;
  },
): SettingsToSave {
  const { label, name, existing, params } = request;
  const type = params.type ?? existing?.type;
  if (!type) throw ParameterError.missing('type');
  if (existing && existing.type !== type) {
    throw new ParameterError(
      `${label} '${existing.name}' is a ${existing.type}; its type cannot be changed to ${type}`,
    );
  }
  const kind = request.kindOf(type);
  const before: OpenSettings = existing
    ? parseStored(ctx, existing.config)
    : { settings: {}, secrets: new Set() };
  const merged = mergeSettings(kind, params, request.notSettings, before, ctx.files);
  const config = sealWithinLimit(ctx, `${label.toLowerCase()} '${name}'`, merged);
  return { type, config, warnings: settingWarnings(kind, merged.settings) };
}

/** The stored settings a test starts from: those of the named object when it has the tested type. */
export function testBase(rt: Runtime, stored: StoredObject | undefined, type: string): OpenSettings {
  return stored && stored.type === type
    ? parseStored(rt, stored.config)
    : { settings: {}, secrets: new Set() };
}
