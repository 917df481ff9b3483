// The lifecycle actions of the /token API (reference 3.5): assign, unassign, enable, disable,
// revoke, delete, reset, resync, setpin, description, set, realms, tokeninfo, challenges. Each
// action first selects and authorizes its tokens (forEachToken), then validates everything, and
// only then writes, in one transaction: bad input or a locked token changes nothing.
import type { Transaction } from 'kysely';
import type { Database } from '../store/schema.ts';
import { HotpType } from '../tokens/hotp.ts';
import { findCounter, isHashlib } from '../tokens/oath.ts';
import { hashlibOf } from '../tokens/oath-type.ts';
import { TotpType } from '../tokens/totp.ts';
import { allow, grantedRealms } from './access.ts';
import type { Context } from './context.ts';
import { ParameterError, PolicyError, TokenAdminError } from './errors.ts';
import { userStore } from './resolver.ts';
import {
  checkSerial,
  forEachToken,
  mayActOn,
  ownerOf,
  ownerRecord,
  type Selection,
  TOKEN_LOCKED,
  type TokenView,
} from './token.ts';
import {
  deleteTokenInfo,
  deleteTokenRows,
  type LoadedToken,
  pinHash,
  requireToken,
  setTokenInfo,
  setTokenOwner,
  setTokenRealms,
  tokenState,
} from './token-store.ts';

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
  const pin = p.pin !== undefined ? await pinHash(p.pin) : undefined;
  await inTransaction(ctx, async (trx) => {
    await setTokenOwner(trx, t.row.id, ownerRecord(owner));
    await trx
      .updateTable('token')
      .set({ failcount: 0, ...(pin !== undefined ? { pin_hash: pin } : {}) })
      .where('id', '=', t.row.id)
      .execute();
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

export async function setPins(ctx: Context, sel: Selection, otppin: string | undefined): Promise<number> {
  if (otppin === undefined) throw ParameterError.missing('otppin');
  const p = await pick(ctx, 'setpin', sel);
  refuseLocked(p.tokens);
  const hash = await pinHash(otppin);
  await inTransaction(ctx, async (trx) => {
    for (const t of p.tokens)
      await trx.updateTable('token').set({ pin_hash: hash }).where('id', '=', t.row.id).execute();
  });
  return p.tokens.length;
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
        .set({ description: description.slice(0, 80) })
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

/**
 * A validity date in privacyIDEA's stored form `YYYY-MM-DDThh:mm+oooo`; ISO forms with seconds,
 * `Z` or `+hh:mm` are accepted. Empty removes the limit.
 */
export function validityDate(name: string, v: string): string {
  if (v.trim() === '') return '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(
    v.trim(),
  );
  if (!m || Number.isNaN(Date.parse(`${m[1]}T${m[2]}:00Z`)))
    throw new ParameterError(`'${name}' must be a date like 2025-01-31T10:00+0000, not '${v}'`);
  const zone = !m[3] || m[3] === 'Z' ? '+0000' : m[3].replace(':', '');
  return `${m[1]}T${m[2]}${zone}`;
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
  if (given.description !== undefined) columns.description = given.description.slice(0, 80);
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
