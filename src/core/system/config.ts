// System configuration entries (/system/setConfig and friends): typed key/value pairs in the
// database. Password-typed values are sealed with the security module and never leave as clear text.
import type { Kysely, Transaction } from 'kysely';
import { ERR, ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import type { Database, Store } from '../../store/index.ts';
import { runTransaction } from '../../store/index.ts';
import {
  bumpCounter,
  CONFIG_VERSION_ROW,
  CountedCache,
  forgetCounters,
  recentCounters,
} from '../change-counters.ts';
import type { Context, Runtime } from '../context.ts';
import { TEXT_COLUMN_BYTES } from '../limits.ts';

export const CENSORED = '__CENSORED__';
export const CONFIG_TYPES = ['', 'int', 'string', 'text', 'password', 'public'] as const;
export type ConfigType = (typeof CONFIG_TYPES)[number];

export interface ConfigEntry {
  key: string;
  value: string;
  type?: string | undefined;
  description?: string | undefined;
}

/** Keys that behave as True when absent, and are reported so (reference 8.1). */
const TRUE_WHEN_ABSENT = ['PrependPin', 'splitAtSign', 'IncFailCountOnFalsePin', 'ReturnSamlAttributes'];

const BOOLEAN_KEYS = new Set([
  ...TRUE_WHEN_ABSENT,
  'ReturnSamlAttributesOnFail',
  'AutoResync',
  'no_auth_counter',
  'ResetFailcounterOnPIN',
  'DefaultResetFailCount',
]);

/**
 * Validation of well-known keys: returns the normalised value or throws. A Map, so that a key
 * named like an object's inherited member (`constructor`, `hasOwnProperty`) is no validator.
 */
const KNOWN = new Map<string, (v: string, key: string) => string>(
  Object.entries({
    DefaultMaxFailCount: intBetween(1, 1_000_000),
    DefaultSyncWindow: intBetween(1, 1_000_000),
    DefaultCountWindow: intBetween(1, 1_000_000),
    DefaultOtpLen: (v, key) => {
      if (v !== '6' && v !== '8') throw new ParameterError(`${key} must be 6 or 8, got '${v}'`);
      return v;
    },
    DefaultChallengeValidityTime: intBetween(1, 86_400 * 30),
    AutoResyncTimeout: intBetween(1, 86_400),
    SerialLength: intBetween(4, 32),
    failcounter_clear_timeout: intBetween(0, 525_600),
  }),
);

function intBetween(min: number, max: number) {
  return (v: string, key: string): string => {
    const t = v.trim();
    if (!/^-?\d+$/.test(t) || Number(t) < min || Number(t) > max) {
      throw new ParameterError(`${key} must be a whole number from ${min} to ${max}, got '${v}'`);
    }
    return String(Number(t));
  };
}

function normaliseBool(v: string, key: string): string {
  if (isTrue(v)) return 'True';
  if (['0', 'false', 'False', 'FALSE'].includes(v)) return 'False';
  throw new ParameterError(`${key} must be True or False, got '${v}'`);
}

const KEY_SYNTAX = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,254}$/;
const MAX_VALUE = 65_000;
const MAX_DESCRIPTION = 2000;

/** The checks that do not depend on what is stored: key syntax, sizes, characters. */
function checkSyntax(e: ConfigEntry): void {
  if (!KEY_SYNTAX.test(e.key)) {
    throw new ParameterError(
      `Invalid configuration key '${printable(e.key)}': use letters, digits, '_', '.', ':' or '-' (at most 255)`,
    );
  }
  if (/\.(type|desc)$/.test(e.key)) {
    throw new ParameterError(
      `Invalid configuration key '${e.key}': names ending in .type or .desc are the attributes of another key`,
    );
  }
  if (e.type !== undefined && !(CONFIG_TYPES as readonly string[]).includes(e.type)) {
    throw new ParameterError(
      `Invalid type '${printable(e.type)}' for ${e.key}: use int, string, text, password or public`,
    );
  }
  if (e.value.length > MAX_VALUE)
    throw new ParameterError(`The value of ${e.key} is longer than ${MAX_VALUE} characters`);
  if ((e.description ?? '').length > MAX_DESCRIPTION) {
    throw new ParameterError(`The description of ${e.key} is longer than ${MAX_DESCRIPTION} characters`);
  }
  // PostgreSQL cannot store NUL in text, and no configuration value has a use for it.
  if (e.value.includes('\u0000') || (e.description ?? '').includes('\u0000')) {
    throw new ParameterError(`The value or description of ${e.key} contains a NUL character`);
  }
}

function printable(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  return s.replace(/[\u0000-\u001f\u007f]/g, '?');
}

/**
 * Checks an entry and returns it as it will be stored. A type or description that is not given
 * keeps the stored one (`existing`), so that updating a password-typed entry without repeating
 * `.type=password` does not store the new secret in clear text.
 */
export function validateEntry(
  e: ConfigEntry,
  existing?: { type: string; description: string },
): Required<ConfigEntry> {
  checkSyntax(e);
  const type = e.type ?? existing?.type ?? '';
  const description = e.description ?? existing?.description ?? '';
  let value = e.value;
  if (type === 'int') intBetween(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)(value, e.key);
  const known = KNOWN.get(e.key);
  if (known) value = known(value, e.key);
  else if (BOOLEAN_KEYS.has(e.key)) value = normaliseBool(value, e.key);
  return { key: e.key, value, type, description };
}

type Db = Kysely<Database> | Transaction<Database>;

/** Stores entries all-or-nothing; returns for each key whether it was inserted or updated. */
export async function setConfig(
  ctx: Context,
  entries: ConfigEntry[],
): Promise<Record<string, 'insert' | 'update'>> {
  if (entries.length === 0) throw new ParameterError('No configuration values given');
  // Everything that can be checked without the database fails before a transaction starts.
  for (const e of entries) validateEntry(e);
  if (entries.some((e) => e.type === 'password')) ctx.hsm.encrypt('');
  const out = await runTransaction(ctx.store, async (trx) => {
    const out: Record<string, 'insert' | 'update'> = {};
    for (const e of entries) {
      const stored = await trx
        .selectFrom('config')
        .select(['type', 'description'])
        .where('name', '=', e.key)
        .executeTakeFirst();
      const valid = validateEntry(e, stored);
      if (valid.type === 'password') valid.value = ctx.hsm.encrypt(valid.value);
      // The value column is TEXT: MariaDB holds 65 535 bytes there (multi-byte or encrypted text is longer).
      if (Buffer.byteLength(valid.value, 'utf8') > TEXT_COLUMN_BYTES) {
        throw new ParameterError(
          `The value of ${e.key} is too long: at most ${TEXT_COLUMN_BYTES} bytes can be stored${valid.type === 'password' ? ' (encrypted)' : ''}`,
        );
      }
      out[e.key] = await upsert(trx, valid, stored !== undefined);
    }
    await bumpCounter(trx, ctx.store, CONFIG_VERSION_ROW);
    return out;
  });
  forgetSnapshot(ctx.store);
  return out;
}

async function upsert(db: Db, e: Required<ConfigEntry>, exists: boolean): Promise<'insert' | 'update'> {
  const row = { value: e.value, type: e.type, description: e.description };
  if (exists) {
    await db.updateTable('config').set(row).where('name', '=', e.key).execute();
    return 'update';
  }
  await db
    .insertInto('config')
    .values({ name: e.key, ...row })
    .execute();
  return 'insert';
}

/**
 * All entries as the API shows them; administrators see everything, users only public keys. Without
 * a prototype, so that every key, `__proto__` and `constructor` too, is an entry like any other.
 */
export async function listConfig(ctx: Context): Promise<Record<string, string>> {
  const rows = await ctx.store.db.selectFrom('config').selectAll().orderBy('name').execute();
  const out: Record<string, string> = Object.create(null);
  if (ctx.caller.role === 'admin') for (const key of TRUE_WHEN_ABSENT) out[key] = 'True';
  for (const r of rows) {
    if (ctx.caller.role !== 'admin' && r.type !== 'public' && !r.name.endsWith('.identifier')) continue;
    out[r.name] = r.type === 'password' ? CENSORED : r.value;
  }
  return out;
}

export async function getConfigValue(ctx: Context, key: string): Promise<string | null> {
  const all = await listConfig(ctx);
  return Object.hasOwn(all, key) ? all[key]! : null;
}

/** Deletes one entry and returns the value it had (censored when it was a password). */
export async function deleteConfig(ctx: Context, key: string): Promise<string> {
  const old = await runTransaction(ctx.store, async (trx) => {
    const row = await trx.selectFrom('config').selectAll().where('name', '=', key).executeTakeFirst();
    if (!row) throw new ResourceNotFoundError(`The configuration key '${key}' does not exist.`);
    await trx.deleteFrom('config').where('name', '=', key).execute();
    await bumpCounter(trx, ctx.store, CONFIG_VERSION_ROW);
    return row.type === 'password' ? CENSORED : row.value;
  });
  forgetSnapshot(ctx.store);
  return old;
}

export const DEFAULT_KEYS = [
  'DefaultMaxFailCount',
  'DefaultSyncWindow',
  'DefaultCountWindow',
  'DefaultOtpLen',
  'DefaultResetFailCount',
] as const;

/**
 * /system/setDefault: the token defaults, names matched case-insensitively. Parameters other than
 * these five are refused, so a typo never passes silently.
 */
export async function setDefaults(
  ctx: Context,
  params: Record<string, string>,
): Promise<Record<string, string>> {
  const entries: ConfigEntry[] = [];
  for (const [name, value] of Object.entries(params)) {
    const key = DEFAULT_KEYS.find((k) => k.toLowerCase() === name.toLowerCase());
    if (!key) {
      throw new ParameterError(`Unknown default '${name}': parameters are ${DEFAULT_KEYS.join(', ')}`);
    }
    entries.push({ key, value });
  }
  if (entries.length === 0) {
    throw new ParameterError(`Usage: parameters are: ${DEFAULT_KEYS.join(', ')}`, ERR.SetDefaultUsage);
  }
  return setConfig(ctx, entries);
}

// ---------------------------------------------------------------------------------------------
// The configuration the services read: every row in memory, one snapshot per database, reloaded
// only when the `config_version` counter moved (see change-counters.ts). Password-typed values
// stay sealed in it.

/** A stored entry as the snapshot holds it. */
export interface ConfigRow {
  value: string;
  type: string;
}

export type ConfigSnapshot = ReadonlyMap<string, ConfigRow>;

const snapshots = new CountedCache<ConfigSnapshot>((c) => c.config, recentCounters);

/**
 * Every configuration row. Reads the change counters (or shares a read just made, as the policy
 * read at the start of a request) and the `config` table only when its counter moved.
 */
export function configSnapshot(rt: Runtime): Promise<ConfigSnapshot> {
  return snapshots.get(rt.store, async () => {
    const rows = await rt.store.db.selectFrom('config').select(['name', 'value', 'type']).execute();
    return new Map(rows.map((r) => [r.name, { value: r.value, type: r.type }]));
  });
}

/** After a local write: a read that began before the commit must not be handed to later callers. */
function forgetSnapshot(store: Store): void {
  snapshots.forget(store);
  forgetCounters(store);
}

/** The stored value of a key as the services read it (password-typed values sealed), or undefined. */
export async function configValue(rt: Runtime, key: string): Promise<string | undefined> {
  return (await configSnapshot(rt)).get(key)?.value;
}

/** A boolean system setting as the services read it (absent → `fallback`). */
export async function configFlag(rt: Runtime, key: string, fallback: boolean): Promise<boolean> {
  const value = await configValue(rt, key);
  if (value === undefined) return fallback;
  return isTrue(value);
}

/** A numeric system setting as the services read it (absent or not a number → `fallback`). */
export async function configNumber(rt: Runtime, key: string, fallback: number): Promise<number> {
  const value = await configValue(rt, key);
  const n = value !== undefined && value.trim() !== '' ? Number(value) : Number.NaN;
  return Number.isFinite(n) ? n : fallback;
}
