// The lifecycle actions of the /token API (reference 3.5): assign, unassign, enable, disable,
// revoke, delete, reset, resync, setpin, setrandompin, copypin, copyuser, lost, getserial,
// description, set, realms, tokeninfo, challenges. Each
// action first selects and authorizes its tokens (forEachToken), then validates everything, and
// only then writes, in one transaction: bad input or a locked token changes nothing.
import { sql, type Transaction } from 'kysely';
import { ParameterError, PolicyError, TokenAdminError } from '../../errors.ts';
import { randomChars } from '../../policy/index.ts';
import type { Database } from '../../store/index.ts';
import { findCounter, HotpType, hashlibOf, isHashlib, type OtpMatch, TotpType } from '../../tokens/index.ts';
import { actionValue, allow, grantedRealms } from '../access/index.ts';
import type { Context } from '../context.ts';
import { findUser, type ResolvedUser, userStore } from '../directory/index.ts';
import { checkLength, cutChars, LIMITS } from '../limits.ts';
import { configSnapshot } from '../system/index.ts';
import { enrollmentValue } from './enrollment-policy.ts';
import { checkPinPolicy, randomPinFor } from './pin-policy.ts';
import {
  consumeOtp,
  deleteTokenInfo,
  deleteTokenRows,
  findToken,
  formatMinute,
  type LoadedToken,
  loadRows,
  pinHash,
  requireToken,
  sealKey,
  setTokenInfo,
  setTokenInfoRacing,
  setTokenOwner,
  setTokenRealms,
  tokenState,
  validityDate,
} from './store.ts';
import {
  checkSerial,
  checkTokenLimits,
  forEachToken,
  mayActOn,
  nextPinChange,
  ownerOf,
  ownerRecord,
  type Selection,
  TOKEN_LOCKED,
  type TokenView,
  targetOfOwner,
} from './token.ts';

type Trx = Transaction<Database>;

/** The answer of a bulk-capable action: a number for one serial, else the dict of reference 3.5. */
export type BulkValue = number | { count_success: number; failed: string[]; unauthorized: string[] };

interface Picked {
  tokens: LoadedToken[];
  single: boolean;
  failed: string[];
  unauthorized: string[];
}

/** The tokens a request selects that the caller may act on (nothing is written yet). */
async function pick(ctx: Context, action: string, sel: Selection): Promise<Picked> {
  const tokens: LoadedToken[] = [];
  const r = await forEachToken(ctx, action, sel, async (t) => {
    tokens.push(t);
    return 0;
  });
  return { tokens, single: r.single, failed: r.failed, unauthorized: r.unauthorized };
}

function refuseLocked(tokens: readonly LoadedToken[]): void {
  if (tokens.some((t) => t.row.locked === 1)) throw new TokenAdminError(TOKEN_LOCKED, 1007);
}

/** The owner of a token as a user (undefined when it has none or the user is gone). */
async function ownerUser(ctx: Context, t: LoadedToken): Promise<ResolvedUser | undefined> {
  if (!t.owner) return undefined;
  const handle = await userStore(ctx, t.owner.resolver).catch(() => undefined);
  const login = handle ? (await handle.store.findById(t.owner.userId))?.username : undefined;
  return login ? findUser(ctx, login, t.owner.realm) : undefined;
}

/** The PIN policies (admin/user scope) for every token's owner; next_pin_change per token. */
async function pinRules(
  ctx: Context,
  tokens: readonly LoadedToken[],
  pin: string,
): Promise<Map<number, string>> {
  const changes = new Map<number, string>();
  for (const t of tokens) {
    const owner = await ownerUser(ctx, t);
    await checkPinPolicy(ctx, pin, targetOfOwner(owner, t.realms[0]), t.row.tokentype);
    const next = await nextPinChange(ctx, { owner, realm: t.realms[0] });
    if (next !== undefined) changes.set(t.row.id, next);
  }
  return changes;
}

async function inTransaction<T>(ctx: Context, work: (trx: Trx) => Promise<T>): Promise<T> {
  return ctx.store.db.transaction().execute(work);
}

function bulkValue(p: Picked, count: number): BulkValue {
  if (p.single) return count;
  return { count_success: p.tokens.length, failed: p.failed, unauthorized: p.unauthorized };
}

// ---------------------------------------------------------------------------------------------
// assign / unassign

function userRepr(login: string, realm: string, resolver: string): string {
  return `User(login='${login}', realm='${realm}', resolver='${resolver}')`;
}

/** POST /token/assign: the token gets an owner (and the owner's realm); its fail counter is reset. */
export async function assignToken(
  ctx: Context,
  p: {
    serial?: string | undefined;
    user?: string | undefined;
    realm?: string | undefined;
    pin?: string | undefined;
  },
): Promise<boolean> {
  if (!p.serial) throw ParameterError.missing('serial');
  checkSerial(p.serial);
  if (ctx.caller.role === 'admin' && !p.user) throw ParameterError.missing('user');
  const owner = (await ownerOf(ctx, p))!;
  const t = await requireToken(ctx, p.serial);
  if (ctx.caller.role === 'admin') {
    await allow(ctx, 'assign', { user: `${owner.login}@${owner.realm}`, resolver: owner.resolver });
    if (!(await mayActOn(ctx, 'assign', t)))
      throw new PolicyError('Admin actions are defined, but the action assign is not allowed!');
  } else {
    await allow(ctx, 'assign');
  }
  if (t.owner) {
    if (ctx.caller.role === 'user')
      throw new TokenAdminError('Token already assigned to another user.', 1103);
    const handle = await userStore(ctx, t.owner.resolver).catch(() => undefined);
    const login = handle ? ((await handle.store.findById(t.owner.userId))?.username ?? '') : '';
    throw new TokenAdminError(
      `Token already assigned to user ${userRepr(login, t.owner.realm, t.owner.resolver)}`,
      1103,
    );
  }
  refuseLocked([t]);
  await checkTokenLimits(ctx, owner, owner.realm, t.row.tokentype, undefined);
  let pinChange: string | undefined;
  if (p.pin) {
    await checkPinPolicy(ctx, p.pin, targetOfOwner(owner), t.row.tokentype);
    pinChange = await nextPinChange(ctx, { owner });
  }
  const pin = p.pin !== undefined ? await pinHash(p.pin) : undefined;
  await inTransaction(ctx, async (trx) => {
    await setTokenOwner(trx, t.row.id, ownerRecord(owner));
    await trx
      .updateTable('token')
      .set({ failcount: 0, ...(pin !== undefined ? { pin_hash: pin } : {}) })
      .where('id', '=', t.row.id)
      .execute();
    if (pinChange !== undefined) await setTokenInfo(ctx, trx, t.row.id, { next_pin_change: pinChange });
  });
  return true;
}

/** POST /token/unassign: removes the owner, the PIN and the fail count. */
export async function unassignTokens(ctx: Context, sel: Selection): Promise<BulkValue> {
  const p = await pick(ctx, 'unassign', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) {
      await setTokenOwner(trx, t.row.id, undefined);
      await trx.updateTable('token').set({ pin_hash: '', failcount: 0 }).where('id', '=', t.row.id).execute();
    }
  });
  return bulkValue(p, p.tokens.length);
}

// ---------------------------------------------------------------------------------------------
// enable / disable / revoke / reset / delete

/** Enables or disables; the number of tokens whose state changed. */
export async function enableTokens(ctx: Context, sel: Selection, enable: boolean): Promise<number> {
  const p = await pick(ctx, enable ? 'enable' : 'disable', sel);
  refuseLocked(p.tokens);
  const changing = p.tokens.filter((t) => (t.row.active === 1) !== enable);
  // max_active_token_per_user: enabling counts against the owner's active tokens, one at a time.
  if (enable)
    for (const t of changing) {
      const owner = await ownerUser(ctx, t);
      if (owner) await checkTokenLimits(ctx, owner, undefined, t.row.tokentype, t.row.serial);
    }
  await inTransaction(ctx, async (trx) => {
    for (const t of changing)
      await trx
        .updateTable('token')
        .set({ active: enable ? 1 : 0 })
        .where('id', '=', t.row.id)
        .execute();
  });
  return changing.length;
}

/** Revoked tokens are locked and inactive for good. */
export async function revokeTokens(ctx: Context, sel: Selection): Promise<number> {
  const p = await pick(ctx, 'revoke', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens)
      await trx
        .updateTable('token')
        .set({ revoked: 1, locked: 1, active: 0 })
        .where('id', '=', t.row.id)
        .execute();
  });
  return p.tokens.length;
}

export async function resetTokens(ctx: Context, sel: Selection): Promise<number> {
  const p = await pick(ctx, 'reset', sel);
  refuseLocked(p.tokens);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) {
      await trx.updateTable('token').set({ failcount: 0 }).where('id', '=', t.row.id).execute();
      await deleteTokenInfo(trx, t.row.id, 'failcounter_exceeded');
    }
  });
  return p.tokens.length;
}

export async function deleteTokens(ctx: Context, sel: Selection): Promise<BulkValue> {
  const p = await pick(ctx, 'delete', sel);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens) await deleteTokenRows(trx, t);
  });
  return bulkValue(p, p.tokens.length);
}

// ---------------------------------------------------------------------------------------------
// resync

const hotp = new HotpType();
const totp = new TotpType();

/** POST /token/resync: two consecutive values re-align the counter (reference 4.5). */
export async function resyncToken(
  ctx: Context,
  sel: Selection,
  otp1: string | undefined,
  otp2: string | undefined,
): Promise<boolean> {
  if (!otp1) throw ParameterError.missing('otp1');
  if (!otp2) throw ParameterError.missing('otp2');
  const p = await pick(ctx, 'resync', sel);
  if (p.tokens.length !== 1) throw new ParameterError('resync needs exactly one token');
  const t = p.tokens[0]!;
  refuseLocked([t]);
  const state = tokenState(ctx, t);
  let update: { count: number; info?: Record<string, string> } | undefined;
  if (t.row.tokentype === 'hotp') {
    const c = hotp.findInSyncWindow(state, otp1);
    if (c >= 0 && findCounter(state.key(), otp2, c + 1, 1, state.otplen, hashlibOf(state)) === c + 1)
      update = { count: c + 2 };
  } else if (t.row.tokentype === 'totp') {
    const m = totp.resync(state, otp1, otp2, ctx.clock());
    if (m) update = { count: m.newCount, ...(m.info ? { info: m.info } : {}) };
  } else {
    throw new TokenAdminError(`Token type ${t.row.tokentype} can not be resynchronized`);
  }
  if (!update) return false;
  const u = update;
  await inTransaction(ctx, async (trx) => {
    await trx.updateTable('token').set({ count: u.count }).where('id', '=', t.row.id).execute();
    if (u.info) await setTokenInfo(ctx, trx, t.row.id, u.info);
  });
  return true;
}

// ---------------------------------------------------------------------------------------------
// setpin / description / set / realms / tokeninfo

/** POST /token/setpin; `encrypt` (encryptpin=1) stores the PIN sealed instead of hashed. */
export async function setPins(
  ctx: Context,
  sel: Selection,
  otppin: string | undefined,
  encrypt = false,
): Promise<number> {
  if (otppin === undefined) throw ParameterError.missing('otppin');
  const p = await pick(ctx, 'setpin', sel);
  refuseLocked(p.tokens);
  const changes = otppin ? await pinRules(ctx, p.tokens, otppin) : new Map<number, string>();
  await writePins(ctx, p.tokens, otppin, changes, encrypt);
  return p.tokens.length;
}

async function writePins(
  ctx: Context,
  tokens: readonly LoadedToken[],
  pin: string,
  changes: ReadonlyMap<number, string>,
  encrypt = false,
): Promise<void> {
  const hash = await pinHash(pin, encrypt ? ctx : undefined);
  await inTransaction(ctx, async (trx) => {
    for (const t of tokens) {
      await trx.updateTable('token').set({ pin_hash: hash }).where('id', '=', t.row.id).execute();
      const next = changes.get(t.row.id);
      if (next !== undefined) await setTokenInfo(ctx, trx, t.row.id, { next_pin_change: next });
    }
  });
}

export const EMPTY_RANDOM_PIN = "We have an empty PIN. Please check your policy 'otp_pin_set_random'.";

/**
 * POST /token/setrandompin: a PIN of the otp_pin_set_random length (admin/user scope, for the
 * owner of the first token) is set on every selected token and returned once.
 */
export async function setRandomPins(ctx: Context, sel: Selection): Promise<{ count: number; pin: string }> {
  const p = await pick(ctx, 'setrandompin', sel);
  refuseLocked(p.tokens);
  const first = p.tokens[0]!;
  const target = targetOfOwner(await ownerUser(ctx, first), first.realms[0]);
  const length = Number.parseInt((await actionValue(ctx, 'otp_pin_set_random', target)) ?? '', 10);
  if (!Number.isInteger(length) || length <= 0) throw new TokenAdminError(EMPTY_RANDOM_PIN, 301);
  const pin = await randomPinFor(ctx, length, target, first.row.tokentype);
  const changes = await pinRules(ctx, p.tokens, pin);
  await writePins(ctx, p.tokens, pin, changes);
  return { count: p.tokens.length, pin };
}

// ---------------------------------------------------------------------------------------------
// copypin / copyuser / lost / getserial

async function fromTo(
  ctx: Context,
  from: string | undefined,
  to: string | undefined,
): Promise<[LoadedToken, LoadedToken]> {
  if (!from) throw ParameterError.missing('from');
  if (!to) throw ParameterError.missing('to');
  const a = await requireToken(ctx, from);
  const b = await requireToken(ctx, to);
  refuseLocked([b]);
  return [a, b];
}

/** POST /token/copypin: the target token gets the source token's PIN (its hash). */
export async function copyPin(
  ctx: Context,
  from: string | undefined,
  to: string | undefined,
): Promise<boolean> {
  const [a, b] = await fromTo(ctx, from, to);
  await ctx.store.db
    .updateTable('token')
    .set({ pin_hash: a.row.pin_hash })
    .where('id', '=', b.row.id)
    .execute();
  return true;
}

/** POST /token/copyuser: the target token gets the source token's owner and realms. */
export async function copyUser(
  ctx: Context,
  from: string | undefined,
  to: string | undefined,
): Promise<boolean> {
  const [a, b] = await fromTo(ctx, from, to);
  await inTransaction(ctx, async (trx) => {
    await setTokenOwner(trx, b.row.id, a.owner);
    await setTokenRealms(trx, b.row.id, a.realms);
  });
  return true;
}

const LOST_POOLS: Record<string, string> = {
  c: 'abcdefghijklmnopqrstuvwxyz',
  C: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  n: '0123456789',
  s: '!#$%&()*+,-./:;<=>?@[]^_',
  '8': '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz',
};

/** A password of privacyIDEA's lost-token contents (`c`, `C`, `n`, `s`, `8` = base58; empty = letters and digits). */
function lostPassword(ctx: Context, length: number, contents: string): string {
  const groups = [...new Set(contents)].filter((g) => LOST_POOLS[g]);
  const pool = groups.length
    ? groups.map((g) => LOST_POOLS[g]).join('')
    : `${LOST_POOLS.c}${LOST_POOLS.C}${LOST_POOLS.n}`;
  // One character of every named group, the rest from all of them.
  return randomChars(
    length,
    groups.map((g) => LOST_POOLS[g]!),
    pool,
    (max) => ctx.random.int(max),
  );
}

function positive(v: string | undefined, fallback: number): number {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export interface LostResult {
  serial: string;
  init: boolean;
  user: boolean;
  pin: boolean;
  valid_to: string;
  password: string;
  end_date: string;
  disable: number;
}

/**
 * POST /token/lost/<serial>: a temporary pw token `lost<serial>` for the owner, with the old PIN,
 * valid for losttoken_valid days; the lost token is disabled.
 */
export async function lostToken(ctx: Context, serial: string): Promise<LostResult> {
  const p = await pick(ctx, 'losttoken', { serial });
  const t = p.tokens[0]!;
  if (!t.owner) throw new TokenAdminError('You can only define a lost token for an assigned token.', 2012);
  refuseLocked([t]);
  const owner = await ownerUser(ctx, t);
  const subject = { owner, realm: t.owner.realm };
  const length = positive(await enrollmentValue(ctx, subject, 'losttoken_PW_length'), 16);
  const contents = (await enrollmentValue(ctx, subject, 'losttoken_PW_contents')) ?? '8';
  const days = positive(await enrollmentValue(ctx, subject, 'losttoken_valid'), 10);
  const password = lostPassword(ctx, length, contents);
  const now = ctx.clock();
  const endDate = formatMinute(new Date(now.getTime() + days * 86_400_000));
  const newSerial = `lost${serial}`;
  checkSerial(newSerial);
  const previous = await findToken(ctx, newSerial);
  if (previous && previous.row.tokentype !== 'pw')
    throw new TokenAdminError(
      `init token failed: Token ${newSerial} already exists with type ${previous.row.tokentype}. Can not initialize token with new type pw`,
    );
  if (previous) refuseLocked([previous]);
  const settings = await configSnapshot(ctx);
  const setting = (k: string, d: number) => positive(settings.get(k)?.value, d);
  await inTransaction(ctx, async (trx) => {
    if (previous) await deleteTokenRows(trx, previous);
    await trx
      .insertInto('token')
      .values({
        serial: newSerial,
        tokentype: 'pw',
        description: `temporary replacement for ${serial}`.slice(0, 80),
        otplen: password.length,
        key_enc: sealKey(ctx, Buffer.from(password, 'utf8')),
        rollout_state: '',
        pin_hash: t.row.pin_hash,
        maxfail: setting('DefaultMaxFailCount', 10),
        failcount: 0,
        count: 0,
        count_window: setting('DefaultCountWindow', 10),
        sync_window: setting('DefaultSyncWindow', 1000),
        active: 1,
        revoked: 0,
        locked: 0,
      })
      .execute();
    const id = (
      await trx.selectFrom('token').select('id').where('serial', '=', newSerial).executeTakeFirstOrThrow()
    ).id;
    await setTokenInfo(ctx, trx, id, {
      tokenkind: 'software',
      creation_date: `${now.toISOString().slice(0, 19)}+00:00`,
      validity_period_end: endDate,
    });
    await setTokenOwner(trx, id, t.owner);
    await setTokenRealms(trx, id, t.realms);
    await trx.updateTable('token').set({ active: 0 }).where('id', '=', t.row.id).execute();
  });
  return {
    serial: newSerial,
    init: true,
    user: true,
    pin: true,
    valid_to: 'xxxx',
    password,
    end_date: endDate,
    disable: 1,
  };
}

export interface GetSerialQuery {
  type?: string | undefined;
  /** A part of the serial. */
  serial?: string | undefined;
  assigned?: boolean | undefined;
  unassigned?: boolean | undefined;
  countOnly?: boolean | undefined;
  window?: number | undefined;
}

/**
 * GET /token/getserial/<otp>: the HOTP or TOTP token among the candidates whose values within
 * `window` hold the OTP (HOTP: the next `window` counters; TOTP: ±`window` time steps around now,
 * newer than its last accepted step). The value is consumed: the counter moves past it (TOTP: the
 * matched step becomes the last accepted one and the drift is learned), so it can no longer be
 * used to authenticate. Several matches → ERR1200.
 */
export async function serialByOtp(
  ctx: Context,
  otp: string,
  q: GetSerialQuery,
): Promise<{ serial: string | null; count: number }> {
  let query = ctx.store.db.selectFrom('token');
  if (q.type)
    query = query.where('tokentype', '=', q.type.toLowerCase() === 'hmac' ? 'hotp' : q.type.toLowerCase());
  if (q.serial)
    query = query.where(
      sql<boolean>`serial LIKE ${`%${q.serial.replace(/[!%_]/g, (c) => `!${c}`)}%`} ESCAPE '!'`,
    );
  if (q.assigned) query = query.where('id', 'in', (eb) => eb.selectFrom('tokenowner').select('token_id'));
  else if (q.unassigned)
    query = query.where('id', 'not in', (eb) => eb.selectFrom('tokenowner').select('token_id'));
  const rows = await query.selectAll().orderBy('serial').execute();
  if (q.countOnly) return { serial: null, count: rows.length };
  const window = q.window ?? 10;
  const now = ctx.clock();
  const found: { t: LoadedToken; match: OtpMatch }[] = [];
  for (const t of await loadRows(
    ctx,
    rows.filter((r) => r.tokentype === 'hotp' || r.tokentype === 'totp'),
  )) {
    const state = tokenState(ctx, t);
    const match =
      t.row.tokentype === 'hotp'
        ? hotp.matchAhead(state, otp, window)
        : totp.matchNear(state, otp, now, window);
    if (match) found.push({ t, match });
  }
  if (found.length > 1) throw new TokenAdminError('multiple tokens are matching this OTP value!', 1200);
  const hit = found[0];
  if (!hit || !(await consumeOtp(ctx, hit.t, hit.match.newCount)))
    return { serial: null, count: rows.length };
  if (hit.match.info) await setTokenInfoRacing(ctx, hit.t.row.id, hit.match.info);
  return { serial: hit.t.row.serial, count: rows.length };
}

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
      await trx
        .updateTable('token')
        .set({ description: cutChars(description, 80) })
        .where('id', '=', t.row.id)
        .execute();
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
  const columns: { description?: string; count_window?: number; sync_window?: number; maxfail?: number } = {};
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
      if (Object.keys(columns).length)
        await trx.updateTable('token').set(columns).where('id', '=', t.row.id).execute();
      await setTokenInfo(ctx, trx, t.row.id, info);
      for (const k of dropInfo) await deleteTokenInfo(trx, t.row.id, k);
    }
  });
  return perToken * p.tokens.length;
}

/** A list parameter: a JSON list, or comma-separated text. */
export function nameList(v: string | readonly string[] | undefined): string[] {
  if (v === undefined) return [];
  const items = typeof v === 'string' ? v.split(',') : v;
  return items.map((s) => s.trim().toLowerCase()).filter(Boolean);
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

// ---------------------------------------------------------------------------------------------
// challenges

/** Flask's rendering of a datetime in JSON: an RFC 1123 HTTP date. */
function httpDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toUTCString();
}

export interface ChallengeQuery {
  serial?: string | undefined;
  transaction_id?: string | undefined;
  sortby?: string | undefined;
  sortdir?: string | undefined;
  page?: number | undefined;
  pagesize?: number | undefined;
}

const CHALLENGE_SORT = new Set(['timestamp', 'expiration', 'serial', 'transaction_id', 'id']);

/** GET /token/challenges/[<serial>]: realm-restricted administrators see their realms' tokens only. */
export async function listChallenges(
  ctx: Context,
  q: ChallengeQuery,
): Promise<{
  challenges: Record<string, unknown>[];
  count: number;
  current: number;
  prev: number | null;
  next: number | null;
}> {
  if (q.serial) {
    const t = await requireToken(ctx, q.serial);
    if (!(await mayActOn(ctx, 'getchallenges', t)))
      throw new PolicyError('Admin actions are defined, but the action getchallenges is not allowed!');
  }
  let query = ctx.store.db.selectFrom('challenge');
  if (q.serial) query = query.where('serial', '=', q.serial);
  if (q.transaction_id) query = query.where('transaction_id', '=', q.transaction_id);
  const granted = q.serial ? undefined : await grantedRealms(ctx, 'getchallenges');
  if (granted) {
    query = query.where('serial', 'in', (eb) =>
      eb
        .selectFrom('token')
        .innerJoin('tokenrealm', 'tokenrealm.token_id', 'token.id')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .select('token.serial')
        .where('realm.name', 'in', granted.length ? granted : ['']),
    );
  }
  const count = Number(
    (await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n,
  );
  const pagesize = q.pagesize && q.pagesize > 0 ? Math.min(q.pagesize, 10_000) : 15;
  const page = q.page && q.page > 0 ? q.page : 1;
  const sortby = q.sortby && CHALLENGE_SORT.has(q.sortby) ? q.sortby : 'timestamp';
  const rows = await query
    .selectAll()
    .orderBy(sortby as 'timestamp', q.sortdir === 'desc' ? 'desc' : 'asc')
    .orderBy('id')
    .limit(pagesize)
    .offset((page - 1) * pagesize)
    .execute();
  const challenges = rows.map((r) => {
    let data: unknown = r.data;
    try {
      data = JSON.parse(r.data);
    } catch {
      // kept as text
    }
    return {
      id: r.id,
      transaction_id: r.transaction_id,
      challenge: r.challenge,
      serial: r.serial,
      data,
      otp_received: r.received_count > 0,
      received_count: r.received_count,
      otp_valid: r.otp_valid === 1,
      expiration: httpDate(r.expiration),
      timestamp: httpDate(r.timestamp),
    };
  });
  return {
    challenges,
    count,
    current: page,
    prev: page > 1 ? page - 1 : null,
    next: page * pagesize < count ? page + 1 : null,
  };
}

/** DELETE /token/challenges/expired. */
export async function deleteExpiredChallenges(ctx: Context): Promise<{ status: boolean; deleted: number }> {
  const now = ctx.clock().getTime();
  const rows = await ctx.store.db.selectFrom('challenge').select(['id', 'expiration']).execute();
  const expired = rows.filter((r) => {
    const t = Date.parse(r.expiration);
    return !Number.isNaN(t) && t < now;
  });
  if (expired.length)
    await inTransaction(ctx, async (trx) => {
      for (let i = 0; i < expired.length; i += 500)
        await trx
          .deleteFrom('challenge')
          .where(
            'id',
            'in',
            expired.slice(i, i + 500).map((r) => r.id),
          )
          .execute();
    });
  return { status: true, deleted: expired.length };
}

// ---------------------------------------------------------------------------------------------
// CSV

function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `${pyRepr(k)}: ${pyRepr(x)}`)
    .join(', ')}}`;
}

function csvCell(v: unknown): string {
  const text =
    typeof v === 'string' ? v : typeof v === 'boolean' || typeof v === 'number' ? pyRepr(v) : pyRepr(v);
  return `'${text.replace(/\r?\n|\r/g, ' ')}', `;
}

/** `/token/?outform=csv` (reference 3.4): keys of the first record, then one line per token. */
export function tokensCsv(tokens: readonly TokenView[]): string {
  if (tokens.length === 0) return '';
  const keys = Object.keys(tokens[0]!);
  const lines = [keys.map((k) => `'${k}', `).join('')];
  for (const t of tokens) lines.push(keys.map((k) => csvCell(t[k])).join(''));
  return `${lines.join('\n')}\n`;
}
