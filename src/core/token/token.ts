// The token service (reference 3.3–3.5): enrollment with its pre-policies (token limits,
// require_description, PIN rules, label/issuer, per-type defaults, verify_enrollment), the token
// record as the API shows it, listing, and the selection and authorization of the tokens an action
// touches (check_token_action). The lifecycle actions build on `forEachToken`.
import { sql } from 'kysely';
import {
  ParameterError,
  PolicyError,
  ResourceNotFoundError,
  TokenAdminError,
  UserError,
} from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import { parseDuration } from '../../policy/index.ts';
import { findTokenType, planTwoStep, type TypeSettings } from '../../tokens/index.ts';
import { actionValue, actionValues, allow, grantedRealms, isAllowed, type Target } from '../access/index.ts';
import type { Context, Runtime } from '../context.ts';
import {
  type ResolvedUser,
  type ResolverHandle,
  realmExists,
  requireUser,
  splitLogin,
  userStore,
} from '../directory/index.ts';
import { checkLength, cutChars, LIMITS } from '../limits.ts';
import { configSnapshot } from '../system/index.ts';
import {
  type EnrollmentSubject,
  enrollmentIsSet,
  enrollmentLimit,
  enrollmentValue,
  enrollmentValues,
} from './enrollment-policy.ts';
import { checkPinPolicy, randomPinFor } from './pin-policy.ts';
import {
  consumeOtp,
  findToken,
  formatMinute,
  type LoadedToken,
  loadRows,
  loadTokenPage,
  pinHash,
  sealKey,
  setTokenInfo,
  setTokenOwner,
  setTokenRealms,
  type TokenOwner,
  type TokenRow,
  tokenState,
  tokensOfOwner,
  validityDate,
} from './store.ts';

/** The system configuration as token types read it. */
export async function typeSettings(rt: Runtime): Promise<TypeSettings> {
  const rows = await configSnapshot(rt);
  return {
    get: (k) => {
      const row = rows.get(k);
      return row && row.type !== 'password' ? row.value : undefined;
    },
  };
}

function intSetting(settings: TypeSettings, key: string, fallback: number): number {
  const n = Number(settings.get(key));
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** `2025-01-31T10:00:00+00:00`: privacyIDEA's creation_date form. */
function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

/** ERR1007: revoked (locked) tokens refuse every modification. */
export const TOKEN_LOCKED = 'This action is not possible, since the token is locked';

const SERIAL = /^[A-Za-z0-9_.:-]{1,40}$/;

export function checkSerial(serial: string): void {
  checkLength('serial', serial, LIMITS.serial);
  if (!SERIAL.test(serial)) throw new ParameterError('Invalid serial number.');
}

/** `<PREFIX><4-digit count of tokens of the type><4 hex>`, bumped on collision (reference 3.2). */
async function generateSerial(rt: Runtime, type: string, prefix: string): Promise<string> {
  const row = await rt.store.db
    .selectFrom('token')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tokentype', '=', type)
    .executeTakeFirstOrThrow();
  for (let n = Number(row.n); ; n++) {
    const serial = `${prefix}${String(n).padStart(4, '0')}${rt.random.bytes(2).toString('hex').toUpperCase()}`;
    if (!(await findToken(rt, serial))) return serial;
  }
}

/**
 * The owner a request names: users are always themselves; administrators name `user` (+ `realm`,
 * `user@realm`); an unknown user is an error.
 */
export async function ownerOf(
  ctx: Context,
  params: { user?: string | undefined; realm?: string | undefined },
): Promise<ResolvedUser | undefined> {
  if (ctx.caller.role === 'user') return requireUser(ctx, ctx.caller.username, ctx.caller.realm);
  if (!params.user) return undefined;
  const { login, realm } = await splitLogin(ctx, params.user, params.realm);
  if (!realm) throw new UserError('No realm given and no default realm is set.');
  if (!(await realmExists(ctx, realm))) throw new UserError(`The realm '${realm}' does not exist.`);
  return requireUser(ctx, login, realm);
}

export function ownerRecord(u: ResolvedUser): TokenOwner {
  return { resolver: u.resolver, userId: u.userid, realm: u.realm };
}

export interface InitResult {
  serial: string;
  detail: Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Enrollment pre-policies (reference 3.3).

async function countTokens(
  ctx: Context,
  owner: ResolvedUser,
  filter: { type?: string | undefined; active?: boolean },
): Promise<{ n: number; serials: string[] }> {
  let q = ctx.store.db
    .selectFrom('token')
    .innerJoin('tokenowner', 'tokenowner.token_id', 'token.id')
    .select('token.serial')
    .where('tokenowner.resolver', '=', owner.resolver)
    .where('tokenowner.user_id', '=', owner.userid);
  if (filter.type) q = q.where('token.tokentype', '=', filter.type);
  if (filter.active) q = q.where('token.active', '=', 1);
  const serials = (await q.execute()).map((r) => r.serial);
  return { n: serials.length, serials };
}

/**
 * max_token_per_realm, max_token_per_user, <type>_max_token_per_user, max_active_token_per_user and
 * <type>_max_active_token_per_user: the largest matching value is the limit; a serial the user
 * already has (among the counted tokens) may be re-enrolled, assigned or enabled.
 */
export async function checkTokenLimits(
  ctx: Context,
  owner: ResolvedUser | undefined,
  realm: string | undefined,
  type: string,
  serial: string | undefined,
): Promise<void> {
  const tokenRealm = (owner?.realm ?? realm)?.toLowerCase();
  if (tokenRealm) {
    const limit = await enrollmentLimit(ctx, { owner, realm: tokenRealm }, 'max_token_per_realm');
    if (limit !== undefined) {
      const rows = await ctx.store.db
        .selectFrom('tokenrealm')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .innerJoin('token', 'token.id', 'tokenrealm.token_id')
        .select('token.serial')
        .where('realm.name', '=', tokenRealm)
        .execute();
      const serials = rows.map((r) => r.serial);
      if (!(serial && serials.includes(serial)) && serials.length >= limit)
        throw new PolicyError('The number of tokens in this realm is limited!');
    }
  }
  if (!owner) return;
  const subject: EnrollmentSubject = { owner };
  const checks: [string, { type?: string; active?: boolean }, string][] = [
    ['max_token_per_user', {}, 'The number of tokens for this user is limited!'],
    [
      `${type}_max_token_per_user`,
      { type },
      `The number of tokens of type ${type} for this user is limited!`,
    ],
    ['max_active_token_per_user', { active: true }, 'The number of active tokens for this user is limited!'],
    [
      `${type}_max_active_token_per_user`,
      { type, active: true },
      `The number of active tokens of type ${type} for this user is limited!`,
    ],
  ];
  for (const [action, filter, message] of checks) {
    const limit = await enrollmentLimit(ctx, subject, action);
    if (limit === undefined) continue;
    const { n, serials } = await countTokens(ctx, owner, filter);
    if (serial && serials.includes(serial)) continue;
    if (n >= limit) throw new PolicyError(message);
  }
}

/** require_description: the listed types need a description (unless the token already has one). */
async function checkDescription(
  ctx: Context,
  subject: EnrollmentSubject,
  type: string,
  description: string | undefined,
  serial: string | undefined,
): Promise<void> {
  const types = await enrollmentValues(ctx, subject, 'require_description');
  if (!types.has(type) || description) return;
  const existing = serial ? await findToken(ctx, serial) : undefined;
  if (existing?.row.description) return;
  throw new PolicyError(`Description required for token type ${type}.`);
}

/** `next_pin_change` after a PIN was set: now (change_pin_on_first_use, admins) or now + change_pin_every. */
export async function nextPinChange(ctx: Context, subject: EnrollmentSubject): Promise<string | undefined> {
  const now = ctx.clock();
  if (ctx.caller.role === 'admin' && (await enrollmentIsSet(ctx, subject, 'change_pin_on_first_use')))
    return formatMinute(now);
  const every = await enrollmentValue(ctx, subject, 'change_pin_every');
  if (every === undefined) return undefined;
  const ms = parseDuration(every);
  if (ms === null) {
    ctx.log.warn({ value: every }, 'change_pin_every is not a duration like 90d; ignored');
    return undefined;
  }
  return formatMinute(new Date(now.getTime() + ms));
}

/** The target of the admin/user-scope checks for an owner (users: themselves). */
export function targetOfOwner(owner: ResolvedUser | undefined, realm?: string): Target {
  return owner ? { user: `${owner.login}@${owner.realm}`, resolver: owner.resolver } : { realm };
}

/** `{givenname}` / `{surname}` of a label or issuer from the owner's attributes. */
function withNames(text: string, owner: ResolvedUser | undefined): string {
  const attr = (k: string) => {
    const v = owner?.info[k];
    return typeof v === 'string' ? v : '';
  };
  return text.replace(/\{givenname\}/g, attr('givenname')).replace(/\{surname\}/g, attr('surname'));
}

/** The types whose enrollment can be verified with an OTP value (verify_enrollment). */
const VERIFIABLE = new Set(['hotp', 'totp']);
const VERIFY_MESSAGE = 'Please enter a valid OTP value of the new token.';

/**
 * The second step of a verified enrollment (`serial` + `verify=<OTP>`): a valid value of the new
 * token (consumed) ends the rollout state `verify`; the token is then `enrolled`.
 */
async function verifyEnrollment(
  ctx: Context,
  serial: string | undefined,
  otp: string,
  owner: ResolvedUser | undefined,
): Promise<InitResult> {
  if (!serial) throw ParameterError.missing('serial');
  const t = await findToken(ctx, serial);
  if (!t) throw new ResourceNotFoundError(`The requested token could not be found.`);
  if (
    ctx.caller.role === 'user' &&
    !(owner && t.owner?.userId === owner.userid && t.owner.resolver === owner.resolver)
  )
    throw new PolicyError('User actions are defined, but the action enroll is not allowed!');
  if (t.row.locked === 1) throw new TokenAdminError(TOKEN_LOCKED, 1007);
  if (t.row.rollout_state !== 'verify')
    throw new ParameterError(`The token ${serial} is not waiting for the verification of its enrollment.`);
  const match = t.type.checkOtp(tokenState(ctx, t), otp, ctx.clock());
  if (!match || !(await consumeOtp(ctx, t, match.newCount)))
    throw new ParameterError('Verification of the new token failed.');
  await ctx.store.db.transaction().execute(async (trx) => {
    await trx.updateTable('token').set({ rollout_state: 'enrolled' }).where('id', '=', t.row.id).execute();
    if (match.info) await setTokenInfo(ctx, trx, t.row.id, match.info);
  });
  return { serial, detail: { serial, rollout_state: 'enrolled' } };
}

/** POST /token/init: creates a token, or re-keys an existing one of the same type. */
export async function initToken(ctx: Context, given: Readonly<Record<string, string>>): Promise<InitResult> {
  const params: Record<string, string> = { ...given };
  const typeName = params.type || 'hotp';
  const type = findTokenType(typeName);
  if (!type) throw new TokenAdminError(`init token failed. Unknown token type: ${typeName}`, 1610);
  checkLength('serial', params.serial, LIMITS.serial);
  checkLength('otpkey', params.otpkey, LIMITS.otpkey);
  const owner = await ownerOf(ctx, params);
  const subject: EnrollmentSubject = { owner, realm: params.realm };
  const target = targetOfOwner(owner, params.realm);
  await checkTokenLimits(ctx, owner, params.realm, type.type, params.serial || undefined);
  await checkDescription(ctx, subject, type.type, params.description, params.serial || undefined);
  await allow(ctx, type.enrollAction, target);
  if (params.verify) return verifyEnrollment(ctx, params.serial, params.verify, owner);
  for (const k of ['tokenlabel', 'tokenissuer']) {
    const v = await enrollmentValue(ctx, subject, k, true);
    if (v !== undefined) params[k] = v;
    if (params[k] !== undefined) params[k] = withNames(params[k], owner);
  }
  if (params.pin && !(await isAllowed(ctx, 'enrollpin', target))) {
    throw new PolicyError("Setting a PIN is not allowed due to missing 'enrollpin' right.");
  }
  const randomLength = Number.parseInt((await enrollmentValue(ctx, subject, 'otp_pin_random')) ?? '', 10);
  if (Number.isInteger(randomLength) && randomLength > 0)
    params.pin = await randomPinFor(ctx, randomLength, target, type.type);
  // privacyIDEA checks `otppin`, else `pin`, and not at all on a rollover (verify returned above).
  const checkedPin = params.otppin || params.pin;
  if (checkedPin && !params.rollover) await checkPinPolicy(ctx, checkedPin, target, type.type);
  if (type.type === 'hotp' || type.type === 'totp') {
    const defaults: [string, string][] = [
      ['hashlib', `${type.type}_hashlib`],
      ['otplen', `${type.type}_otplen`],
      ...(type.type === 'totp' ? ([['timeStep', 'totp_timestep']] as [string, string][]) : []),
    ];
    for (const [param, action] of defaults) {
      if (params[param]) continue;
      const v = await actionValue(ctx, action, target);
      if (v !== undefined) params[param] = v;
    }
  }
  if (params.realm && !owner && !(await realmExists(ctx, params.realm))) {
    throw new ParameterError(`The realm '${params.realm}' does not exist.`);
  }
  // validity_period_start/end as /token/set takes them; a malformed date refuses the enrollment.
  const validity: Record<string, string> = {};
  for (const k of ['validity_period_start', 'validity_period_end'] as const) {
    const d = params[k] === undefined ? '' : validityDate(k, params[k]);
    if (d) validity[k] = d;
  }
  const policyValues = new Map<string, string>();
  for (const action of type.enrollmentActions) {
    const v = await enrollmentValue(ctx, subject, action);
    if (v !== undefined) policyValues.set(action, v);
  }
  const serial = params.serial || (await generateSerial(ctx, type.type, params.prefix || type.prefix));
  checkSerial(serial);
  const settings = await typeSettings(ctx);
  const now = ctx.clock();
  const prior = VERIFIABLE.has(type.type) && params.serial ? await findToken(ctx, serial) : undefined;
  const twoStep = VERIFIABLE.has(type.type)
    ? await planTwoStep(
        type.type,
        params,
        prior && {
          type: prior.row.tokentype,
          rolloutState: prior.row.rollout_state,
          info: prior.info,
          key: () => tokenState(ctx, prior).key(),
        },
        { mode: (a) => actionValue(ctx, a, target), size: (a) => enrollmentValue(ctx, subject, a) },
      )
    : undefined;
  const enrollment = await type.enroll({
    serial,
    params,
    settings,
    user: owner ? { login: owner.login, realm: owner.realm } : undefined,
    now,
    twoStep,
    policy: (action) => policyValues.get(action),
  });
  const encrypt = isTrue(params.encryptpin) || (await enrollmentIsSet(ctx, subject, 'encrypt_pin'));
  const pin = await pinHash(params.pin, encrypt ? ctx : undefined);
  const pinChange = await nextPinChange(ctx, subject);
  if (!enrollment.rolloutState && VERIFIABLE.has(type.type)) {
    const listed = await enrollmentValues(ctx, subject, 'verify_enrollment');
    if (listed.has(type.type)) {
      enrollment.rolloutState = 'verify';
      enrollment.detail = { ...enrollment.detail, verify: { message: VERIFY_MESSAGE } };
    }
  }
  await ctx.store.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('token')
      .selectAll()
      .where('serial', '=', serial)
      .executeTakeFirst();
    if (existing && existing.tokentype !== type.type) {
      throw new TokenAdminError(
        `init token failed: Token ${serial} already exists with type ${existing.tokentype}. Can not initialize token with new type ${type.type}`,
      );
    }
    if (existing && existing.locked === 1) throw new TokenAdminError(TOKEN_LOCKED, 1007);
    if (existing && ctx.caller.role === 'user') {
      const [loaded] = await loadRows(ctx, [existing], trx);
      const mine =
        owner && loaded?.owner?.userId === owner.userid && loaded.owner.resolver === owner.resolver;
      if (!mine) throw new PolicyError('User actions are defined, but the action enroll is not allowed!');
    }
    const values = {
      tokentype: type.type,
      description: cutChars(params.description ?? enrollment.description ?? existing?.description ?? '', 80),
      otplen: enrollment.otplen ?? intSetting(settings, 'DefaultOtpLen', 6),
      key_enc: sealKey(ctx, enrollment.key),
      rollout_state: enrollment.rolloutState ?? '',
      ...(params.pin !== undefined || !existing ? { pin_hash: pin } : {}),
    };
    let id: number;
    if (existing) {
      await trx
        .updateTable('token')
        .set({ ...values, count: 0, failcount: 0 })
        .where('id', '=', existing.id)
        .execute();
      id = existing.id;
    } else {
      await trx
        .insertInto('token')
        .values({
          serial,
          ...values,
          pin_hash: pin,
          maxfail: intSetting(settings, 'DefaultMaxFailCount', 10),
          failcount: 0,
          count: 0,
          count_window: intSetting(settings, 'DefaultCountWindow', 10),
          sync_window: intSetting(settings, 'DefaultSyncWindow', 1000),
          active: 1,
          revoked: 0,
          locked: 0,
        })
        .execute();
      id = (await trx.selectFrom('token').select('id').where('serial', '=', serial).executeTakeFirstOrThrow())
        .id;
      await setTokenInfo(ctx, trx, id, { tokenkind: 'software', creation_date: isoSeconds(now) });
    }
    await setTokenInfo(ctx, trx, id, {
      ...enrollment.info,
      ...validity,
      ...(pinChange !== undefined ? { next_pin_change: pinChange } : {}),
    });
    if (owner) await setTokenOwner(trx, id, ownerRecord(owner));
    else if (params.realm) await setTokenRealms(trx, id, [params.realm]);
  });
  return { serial, detail: { serial, rollout_state: enrollment.rolloutState ?? '', ...enrollment.detail } };
}

// ---------------------------------------------------------------------------------------------
// The token record of the API (reference 3.4).

export type TokenView = Record<string, unknown>;

export async function tokenView(rt: Runtime, t: LoadedToken): Promise<TokenView> {
  return (await tokenViews(rt, [t]))[0]!;
}

interface OwnerName {
  username: string;
  editable: boolean;
}

/**
 * The owners' user names of tokens, each resolver and user looked up once (a page of a listing
 * usually holds many tokens of few users). A resolver that is gone or unreachable gives
 * privacyIDEA's marker `**resolver error**`.
 */
function ownerNames(rt: Runtime): (owner: TokenOwner) => Promise<OwnerName> {
  const handles = new Map<string, Promise<ResolverHandle | undefined>>();
  const names = new Map<string, Promise<OwnerName>>();
  return (owner) => {
    const key = JSON.stringify([owner.resolver, owner.userId]);
    let name = names.get(key);
    if (!name) {
      let handle = handles.get(owner.resolver);
      if (!handle) {
        handle = userStore(rt, owner.resolver).catch(() => undefined);
        handles.set(owner.resolver, handle);
      }
      name = handle.then(async (h): Promise<OwnerName> => {
        if (!h) return { username: '**resolver error**', editable: false };
        const editable = h.store.editable;
        try {
          return { username: (await h.store.findById(owner.userId))?.username ?? '', editable };
        } catch {
          return { username: '**resolver error**', editable };
        }
      });
      names.set(key, name);
    }
    return name;
  };
}

/** The token groups of tokens (by token id, names sorted), in one query. */
async function groupsOfTokens(rt: Runtime, ids: readonly number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await rt.store.db
    .selectFrom('tokengroup_token')
    .innerJoin('tokengroup', 'tokengroup.id', 'tokengroup_token.tokengroup_id')
    .select(['tokengroup_token.token_id', 'tokengroup.name'])
    .where('tokengroup_token.token_id', 'in', [...new Set(ids)])
    .orderBy('tokengroup.name')
    .execute();
  for (const r of rows) out.get(Number(r.token_id))?.push(r.name);
  return out;
}

/** The API records of tokens: owners and token groups are read once for all of them, not per token. */
export async function tokenViews(
  rt: Runtime,
  tokens: readonly LoadedToken[],
  /** The tokens' groups when already read (groupsOfTokens). */
  knownGroups?: Map<number, string[]>,
): Promise<TokenView[]> {
  if (tokens.length === 0) return [];
  const nameOf = ownerNames(rt);
  const [groups, names] = await Promise.all([
    knownGroups ??
      groupsOfTokens(
        rt,
        tokens.map((t) => t.row.id),
      ),
    Promise.all(tokens.map((t) => (t.owner ? nameOf(t.owner) : undefined))),
  ]);
  return tokens.map((t, i) => {
    const name = names[i];
    const owner: Record<string, unknown> =
      t.owner && name
        ? {
            resolver: t.owner.resolver,
            user_id: t.owner.userId,
            username: name.username,
            user_realm: t.owner.realm,
            user_editable: name.editable,
          }
        : { resolver: '', user_id: '', username: '', user_realm: '' };
    return {
      id: t.row.id,
      serial: t.row.serial,
      tokentype: t.row.tokentype,
      description: t.row.description,
      info: { ...t.info },
      otplen: t.row.otplen,
      maxfail: t.row.maxfail,
      failcount: t.row.failcount,
      count: Number(t.row.count),
      count_window: t.row.count_window,
      sync_window: t.row.sync_window,
      active: t.row.active === 1,
      revoked: t.row.revoked === 1,
      locked: t.row.locked === 1,
      rollout_state: t.row.rollout_state,
      realms: t.realms,
      tokengroup: groups.get(t.row.id) ?? [],
      ...owner,
      container_serial: '',
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Selection and authorization of the tokens an action touches (check_token_action).

/**
 * Whether the caller may perform `action` on a token: users on their own tokens (with the right
 * of their scope); administrators when a policy matches the owner (user, realm, resolver) or one
 * of the token's realms; a token in no realm matches only policies without realm restriction
 * (`assign` looks at neither owner nor realms: the new owner is checked by the caller).
 */
export async function mayActOn(ctx: Context, action: string, t: LoadedToken): Promise<boolean> {
  if (ctx.caller.role === 'user') {
    const me = await requireUser(ctx, ctx.caller.username, ctx.caller.realm);
    if (!t.owner || t.owner.resolver !== me.resolver || t.owner.userId !== me.userid) return false;
    return isAllowed(ctx, action);
  }
  if (t.owner && action !== 'assign') {
    const handle = await userStore(ctx, t.owner.resolver).catch(() => undefined);
    const login = handle ? (await handle.store.findById(t.owner.userId))?.username : undefined;
    if (
      login &&
      (await isAllowed(ctx, action, { user: login, realm: t.owner.realm, resolver: t.owner.resolver }))
    )
      return true;
  }
  for (const realm of t.realms) if (await isAllowed(ctx, action, { realm })) return true;
  if (action === 'assign') return isAllowed(ctx, action, { realm: '' });
  // A token in no realm is for administrators whose granting policies name no realm.
  if (t.realms.length === 0 && (await grantedRealms(ctx, action)) === undefined)
    return isAllowed(ctx, action);
  return false;
}

export interface Selection {
  serial?: string | undefined;
  /** JSON list or `[a,b]` text (bulk). */
  serials?: string | undefined;
  user?: string | undefined;
  realm?: string | undefined;
}

/** The serials a bulk request names, or undefined when it names a user instead. */
export function selectedSerials(sel: Selection): string[] | undefined {
  if (sel.serials) {
    const text = sel.serials.trim();
    let list: unknown;
    try {
      list = JSON.parse(text);
    } catch {
      list = text.replace(/^\[|\]$/g, '').split(',');
    }
    if (!Array.isArray(list)) throw new ParameterError("'serials' must be a list");
    return list
      .map((s) =>
        String(s)
          .trim()
          .replace(/^['"]|['"]$/g, ''),
      )
      .filter(Boolean);
  }
  if (sel.serial)
    return sel.serial
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
  return undefined;
}

export interface BulkResult {
  count_success: number;
  failed: string[];
  unauthorized: string[];
}

/**
 * Runs `act` on every token a request selects that the caller may manage (reference 3.5):
 * unknown serials go to `failed`, forbidden ones to `unauthorized`; a single forbidden serial, or
 * all forbidden, is PolicyError 303; no known serial at all is 601.
 */
export async function forEachToken(
  ctx: Context,
  action: string,
  sel: Selection,
  act: (t: LoadedToken) => Promise<number>,
): Promise<BulkResult & { single: boolean; changed: number }> {
  const serials = selectedSerials(sel);
  let tokens: LoadedToken[];
  const failed: string[] = [];
  if (serials) {
    tokens = [];
    for (const s of serials) {
      const t = await findToken(ctx, s);
      if (t) tokens.push(t);
      else failed.push(s);
    }
    if (tokens.length === 0)
      throw new ResourceNotFoundError(`No token found for serials: ${serials.join(', ')}`);
  } else {
    const owner = await ownerOf(ctx, sel);
    if (!owner) throw new ParameterError("Missing parameter: 'serial' or 'serials'");
    tokens = await tokensOfOwner(ctx, owner.resolver, owner.userid);
  }
  const unauthorized: string[] = [];
  let changed = 0;
  let success = 0;
  for (const t of tokens) {
    if (!(await mayActOn(ctx, action, t))) {
      unauthorized.push(t.row.serial);
      continue;
    }
    changed += await act(t);
    success++;
  }
  if (unauthorized.length > 0 && success === 0 && tokens.length > 0) {
    const who = ctx.caller.role === 'admin' ? 'Admin' : 'User';
    if (tokens.length === 1)
      throw new PolicyError(`${who} actions are defined, but the action ${action} is not allowed!`);
    throw new PolicyError(
      `${who} actions are defined, but the action ${action} is not allowed for any of the serials provided!`,
    );
  }
  return { count_success: success, failed, unauthorized, single: (serials?.length ?? 0) === 1, changed };
}

// ---------------------------------------------------------------------------------------------
// Listing (reference 3.4).

export interface ListQuery {
  serial?: string | undefined;
  type?: string | undefined;
  user?: string | undefined;
  realm?: string | undefined;
  tokenrealm?: string | undefined;
  description?: string | undefined;
  assigned?: string | undefined;
  active?: string | undefined;
  rollout_state?: string | undefined;
  /** Comma-separated token types (exact, case-insensitive). */
  type_list?: string | undefined;
  /** Owner's user id / resolver; `*` wildcards, `*` alone = no filter. */
  userid?: string | undefined;
  resolver?: string | undefined;
  /** Tokens whose tokeninfo `infokey` has exactly the value `infovalue` (both or neither). */
  infokey?: string | undefined;
  infovalue?: string | undefined;
  /** Tokens in this container; this server has no containers, so any serial matches none. */
  container_serial?: string | undefined;
  sortby?: string | undefined;
  sortdir?: string | undefined;
  page?: number | undefined;
  pagesize?: number | undefined;
}

const SORTABLE = new Set([
  'serial',
  'tokentype',
  'description',
  'otplen',
  'maxfail',
  'failcount',
  'count',
  'count_window',
  'sync_window',
  'active',
  'revoked',
  'locked',
  'rollout_state',
  'id',
]);

function likePattern(v: string): string {
  return v.replace(/[!%_]/g, (c) => `!${c}`).replace(/\*/g, '%');
}

/**
 * The number of tokens in the store. PostgreSQL reads it from `token_count`, which its triggers
 * keep (migration 0008): counting 100 000 rows there takes tens of milliseconds per listing page.
 */
async function countEveryToken(rt: Runtime): Promise<number> {
  if (rt.store.dialect === 'postgres') {
    const r = await sql<{ n: string | number | null }>`SELECT sum(n) AS n FROM token_count`.execute(
      rt.store.db,
    );
    return Number(r.rows[0]?.n ?? 0);
  }
  const r = await rt.store.db
    .selectFrom('token')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

export async function listTokens(
  ctx: Context,
  q: ListQuery,
): Promise<{ tokens: TokenView[]; count: number; prev: number | null; next: number | null }> {
  const everyToken = ctx.store.db.selectFrom('token');
  let query = everyToken;
  const serials = q.serial && !q.serial.includes('*') ? q.serial.split(',').map((s) => s.trim()) : undefined;
  if (serials) query = query.where('token.serial', 'in', serials);
  else if (q.serial) query = query.where(sql<boolean>`token.serial LIKE ${likePattern(q.serial)} ESCAPE '!'`);
  if (q.type)
    query = query.where(sql<boolean>`token.tokentype LIKE ${likePattern(q.type.toLowerCase())} ESCAPE '!'`);
  if (q.description)
    query = query.where(sql<boolean>`token.description LIKE ${likePattern(q.description)} ESCAPE '!'`);
  if (q.active === 'true' || q.active === 'false')
    query = query.where('token.active', '=', q.active === 'true' ? 1 : 0);
  for (const [name, v] of Object.entries(q))
    if (typeof v === 'string' && v.includes('\u0000'))
      throw new ParameterError(`The value of '${name}' contains a NUL character`);
  if (q.rollout_state?.includes('*'))
    query = query.where(
      sql<boolean>`LOWER(token.rollout_state) LIKE ${likePattern(q.rollout_state.toLowerCase())} ESCAPE '!'`,
    );
  else if (q.rollout_state) query = query.where('token.rollout_state', '=', q.rollout_state);
  if (q.type_list !== undefined) {
    const types = q.type_list
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== '');
    if (!types.length) throw new ParameterError("'type_list' must name at least one token type");
    query = query.where('token.tokentype', 'in', types);
  }
  if ((q.infokey === undefined) !== (q.infovalue === undefined))
    throw ParameterError.missing(q.infokey === undefined ? 'infokey' : 'infovalue');
  if (q.infokey !== undefined && q.infovalue !== undefined) {
    const [key, value] = [q.infokey, q.infovalue];
    // Correlated on the (token_id, key) unique index: one index probe per candidate token.
    query = query.where(({ exists, selectFrom }) =>
      exists(
        selectFrom('tokeninfo')
          .select('tokeninfo.token_id')
          .whereRef('tokeninfo.token_id', '=', 'token.id')
          .where('tokeninfo.key', '=', key)
          .where('tokeninfo.value', '=', value),
      ),
    );
  }
  // privacyIDEA: `userid` and `resolver` filter the owner; `*` matches anything, so alone it is no filter.
  const ownerPattern = (v: string | undefined) => (v?.replace(/\*/g, '') ? v : undefined);
  const userid = ownerPattern(q.userid);
  const resolver = ownerPattern(q.resolver);
  if (userid || resolver) {
    query = query.where(({ exists, selectFrom }) => {
      let owners = selectFrom('tokenowner')
        .select('tokenowner.token_id')
        .whereRef('tokenowner.token_id', '=', 'token.id');
      for (const [column, v] of [
        ['tokenowner.user_id', userid],
        ['tokenowner.resolver', resolver],
      ] as const) {
        if (v?.includes('*'))
          owners = owners.where(sql<boolean>`${sql.ref(column)} LIKE ${likePattern(v)} ESCAPE '!'`);
        else if (v) owners = owners.where(column, '=', v);
      }
      return exists(owners);
    });
  }
  if (q.container_serial) query = query.where(sql<boolean>`1 = 0`);
  const ownerQuery = ctx.caller.role === 'user' ? { user: ctx.caller.username, realm: ctx.caller.realm } : q;
  const owner = ownerQuery.user ? await ownerOf(ctx, ownerQuery) : undefined;
  // hide_tokeninfo (privacyIDEA's prepolicy sets hidden_tokeninfo, overriding any request
  // parameter), asked while the tokens are read.
  const hiding = actionValues(
    ctx,
    'hide_tokeninfo',
    owner ? { user: owner.login, realm: owner.realm, resolver: owner.resolver } : {},
  );
  hiding.catch(() => undefined); // awaited below; a failure before that must not go unhandled
  if (owner) {
    query = query.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenowner')
        .select('token_id')
        .where('resolver', '=', owner.resolver)
        .where('user_id', '=', owner.userid),
    );
  } else if (q.realm) {
    query = query.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenowner')
        .innerJoin('realm', 'realm.id', 'tokenowner.realm_id')
        .select('tokenowner.token_id')
        .where('realm.name', '=', q.realm!.toLowerCase()),
    );
  }
  if (q.tokenrealm) {
    query = query.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenrealm')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .select('tokenrealm.token_id')
        .where('realm.name', '=', q.tokenrealm!.toLowerCase()),
    );
  }
  if (q.assigned === 'true' || q.assigned === 'false') {
    query =
      q.assigned === 'true'
        ? query.where('token.id', 'in', (eb) => eb.selectFrom('tokenowner').select('token_id'))
        : query.where('token.id', 'not in', (eb) => eb.selectFrom('tokenowner').select('token_id'));
  }
  // Realm-restricted administrators see the tokens of their tokenlist realms only.
  const granted = ctx.caller.role === 'admin' ? await grantedRealms(ctx, 'tokenlist') : undefined;
  if (granted) {
    query = query.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenrealm')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .select('tokenrealm.token_id')
        .where('realm.name', 'in', granted.length ? granted : ['']),
    );
  }
  const pagesize = q.pagesize && q.pagesize > 0 ? Math.min(q.pagesize, 10_000) : 15;
  const page = q.page && q.page > 0 ? q.page : 1;
  const sortby = q.sortby && SORTABLE.has(q.sortby) ? q.sortby : 'serial';
  // The count and the page at once (on a server database, two connections).
  const [count, { tokens: loaded, groups }] = await Promise.all([
    query === everyToken
      ? countEveryToken(ctx)
      : query
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
          .then((r) => Number(r.n)),
    loadTokenPage(ctx, query, {
      sortby: sortby as keyof TokenRow,
      desc: q.sortdir === 'desc',
      limit: pagesize,
      offset: (page - 1) * pagesize,
    }),
  ]);
  const hiddenValues = await hiding;
  const tokens = await tokenViews(ctx, loaded, groups);
  const hidden = new Set(hiddenValues.keys());
  if (hidden.size)
    for (const t of tokens)
      t.info = Object.fromEntries(
        Object.entries(t.info as Record<string, unknown>).filter(([key]) => !hidden.has(key)),
      );
  return { tokens, count, prev: page > 1 ? page - 1 : null, next: page * pagesize < count ? page + 1 : null };
}
