// The attributes of a token an administrator sets (reference 3.5): its description, /token/set's
// counters, windows, hashlib, limits and validity, its realms and free tokeninfo keys.

import { ParameterError } from '../../errors.ts';
import { textList } from '../../text-list.ts';
import { isHashlib } from '../../tokens/index.ts';
import { grantedRealms } from '../access/index.ts';
import type { Context } from '../context.ts';
import { checkLength, cutChars, LIMITS } from '../limits.ts';
import { checkTokenLimits } from './enrollment-limits.ts';
import { inTransaction, pick, refuseLocked, type Selection } from './select.ts';
import {
  addToTokenInfo,
  changeFailcount,
  deleteTokenInfo,
  setFailcount,
  setTokenInfo,
  setTokenRealms,
  setTokenSettings,
  type TokenSettings,
} from './store/index.ts';
import { validityDate } from './tokeninfo-dates.ts';

export async function setDescriptions(
  ctx: Context,
  sel: Selection,
  description: string | undefined,
): Promise<boolean> {
  if (description === undefined) throw ParameterError.missing('description');
  const p = await pick(ctx, 'setdescription', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens)
      await setTokenSettings(trx, t.row.id, { description: cutChars(description, 80) });
  });
  return true;
}

export const SETTABLE = [
  'description',
  'count_window',
  'sync_window',
  'hashlib',
  'max_failcount',
  'count_auth_max',
  'count_auth_success_max',
  'validity_period_start',
  'validity_period_end',
] as const;

export type Settable = (typeof SETTABLE)[number];

function nonNegativeInt(name: string, v: string): number {
  if (!/^\s*\d{1,9}\s*$/.test(v))
    throw new ParameterError(`'${name}' must be a non-negative integer, not '${v}'`);
  return Number(v);
}

/** POST /token/set: the number of attributes set, summed over the tokens. */
export async function setTokenAttributes(
  ctx: Context,
  sel: Selection,
  given: Partial<Record<Settable, string>>,
): Promise<number> {
  const columns: TokenSettings = {};
  const info: Record<string, string> = {};
  const dropInfo: string[] = [];
  if (given.description !== undefined) columns.description = cutChars(given.description, 80);
  if (given.count_window !== undefined)
    columns.count_window = nonNegativeInt('count_window', given.count_window);
  if (given.sync_window !== undefined) columns.sync_window = nonNegativeInt('sync_window', given.sync_window);
  if (given.max_failcount !== undefined)
    columns.maxfail = nonNegativeInt('max_failcount', given.max_failcount);
  if (given.hashlib !== undefined) {
    const h = given.hashlib.toLowerCase();
    if (!isHashlib(h))
      throw new ParameterError(`Unsupported hashlib '${given.hashlib}': use sha1, sha256 or sha512`);
    info.hashlib = h;
  }
  for (const k of ['count_auth_max', 'count_auth_success_max'] as const)
    if (given[k] !== undefined) info[k] = String(nonNegativeInt(k, given[k]));
  for (const k of ['validity_period_start', 'validity_period_end'] as const) {
    if (given[k] === undefined) continue;
    const d = validityDate(k, given[k]);
    if (d) info[k] = d;
    else dropInfo.push(k);
  }
  const perToken = SETTABLE.filter((k) => given[k] !== undefined).length;
  const p = await pick(ctx, 'set', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) {
      if (Object.keys(columns).length) await setTokenSettings(trx, t.row.id, columns);
      await setTokenInfo(ctx, trx, t.row.id, info);
      for (const k of dropInfo) await deleteTokenInfo(trx, t.row.id, k);
    }
  });
  return perToken * p.tokens.length;
}

/** A list parameter: a JSON list, or comma-separated text. */
export function nameList(v: string | readonly string[] | undefined): string[] {
  return textList(v).map((s) => s.toLowerCase());
}

/**
 * POST /token/realm/<serial>: replaces the realms (unknown ones are dropped). The owner's realm
 * stays; a realm-restricted administrator neither adds nor removes realms outside his own.
 */
export async function setRealmsOfToken(
  ctx: Context,
  serial: string,
  realms: readonly string[],
): Promise<boolean> {
  const p = await pick(ctx, 'tokenrealms', { serial });
  const t = p.tokens[0]!;
  refuseLocked([t]);
  const granted = await grantedRealms(ctx, 'tokenrealms');
  let wanted = [...new Set(realms)];
  if (granted) {
    wanted = wanted.filter((r) => granted.includes(r));
    for (const r of t.realms) if (!granted.includes(r)) wanted.push(r);
  }
  if (t.owner && !wanted.includes(t.owner.realm)) wanted.push(t.owner.realm);
  // max_token_per_realm for every realm the token is added to.
  for (const r of wanted)
    if (!t.realms.includes(r)) await checkTokenLimits(ctx, undefined, r, t.row.tokentype, t.row.serial);
  await inTransaction(ctx, (trx) => setTokenRealms(trx, t.row.id, wanted));
  return true;
}

export async function setInfoOfToken(
  ctx: Context,
  serial: string,
  key: string,
  value: string,
): Promise<boolean> {
  if (!key) throw ParameterError.missing('key');
  checkLength('key', key, LIMITS.name);
  checkLength('value', value, LIMITS.text);
  const p = await pick(ctx, 'settokeninfo', { serial });
  const t = p.tokens[0]!;
  refuseLocked([t]);
  await inTransaction(ctx, (trx) => setTokenInfo(ctx, trx, t.row.id, { [key]: value }));
  return true;
}

export async function deleteInfoOfToken(ctx: Context, serial: string, key: string): Promise<boolean> {
  const p = await pick(ctx, 'settokeninfo', { serial });
  const t = p.tokens[0]!;
  refuseLocked([t]);
  await inTransaction(ctx, (trx) => deleteTokenInfo(trx, t.row.id, key));
  return true;
}

/** The one token a serial names, after the right check of `action`; locked ones refuse. */
async function oneToken(ctx: Context, action: string, serial: string) {
  const p = await pick(ctx, action, { serial });
  const t = p.tokens[0]!;
  refuseLocked([t]);
  return t;
}

/** Sets the fail counter of a token (the Token event handler's `set failcounter`). */
export async function setFailcountOfToken(ctx: Context, serial: string, value: number): Promise<void> {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new ParameterError('The fail counter must be 0 or more.');
  const t = await oneToken(ctx, 'set', serial);
  await inTransaction(ctx, (trx) => setFailcount(trx, t.row.id, value));
}

/** Adds `delta` to the fail counter of a token, never below 0 (`change failcounter`). */
export async function changeFailcountOfToken(ctx: Context, serial: string, delta: number): Promise<void> {
  if (!Number.isSafeInteger(delta)) throw new ParameterError('The fail counter change must be an integer.');
  const t = await oneToken(ctx, 'set', serial);
  await inTransaction(ctx, (trx) => changeFailcount(trx, t.row.id, delta));
}

/** Adds `increment` to the integer of a tokeninfo entry (`increase tokeninfo`). */
export async function increaseInfoOfToken(
  ctx: Context,
  serial: string,
  key: string,
  increment: number,
): Promise<void> {
  if (!key) throw ParameterError.missing('key');
  checkLength('key', key, LIMITS.name);
  if (!Number.isSafeInteger(increment)) throw new ParameterError('The increment must be an integer.');
  const t = await oneToken(ctx, 'settokeninfo', serial);
  await inTransaction(ctx, (trx) => addToTokenInfo(ctx, trx, t.row.id, key, increment));
}
