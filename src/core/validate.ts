// Authentication checks (reference 4.2–4.4): /validate/check with a user or a serial, the core
// algorithm check_token_list, challenge-response, the authentication and authorization policies
// around it, and triggerchallenge. The HTTP layer only maps parameters and renders the result.
import type { MatchRequest, PolicySet } from '../policy/matcher.ts';
import type { TokenType } from '../tokens/token-type.ts';
import { challengesOf, createChallenge, deleteTransaction, isValid, newTransactionId } from './challenge.ts';
import type { Context, Runtime } from './context.ts';
import { AuthCode, AuthError, ParameterError, PolicyError, TokenAdminError, UserError } from './errors.ts';
import { compiledPolicies } from './policy.ts';
import { userStore } from './resolver.ts';
import { configFlag } from './system-config.ts';
import {
  bumpInfoCounterRacing,
  consumeOtp,
  deleteTokenRows,
  incFailcount,
  type LoadedToken,
  pinMatches,
  requireToken,
  setTokenInfoRacing,
  tokenState,
  tokensOfOwner,
} from './token-store.ts';
import { findUser, type ResolvedUser, requireUser, splitLogin } from './user.ts';

export interface CheckInput {
  user?: string | undefined;
  realm?: string | undefined;
  serial?: string | undefined;
  pass?: string | undefined;
  transactionId?: string | undefined;
  type?: string | undefined;
  otponly?: boolean | undefined;
  client: string;
}

/** What the audit row records about a check. */
export interface CheckAudit {
  user: string;
  realm: string;
  resolver: string;
  serial: string;
  tokenType: string;
  info: string;
}

export interface CheckResult {
  value: boolean;
  detail: Record<string, unknown> | undefined;
  user: ResolvedUser | undefined;
  audit: CheckAudit;
}

type Detail = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------
// Policies of the opt-in scopes authentication and authorization, for the user of the request.

export class RequestPolicies {
  readonly #set: PolicySet;
  readonly #base: Omit<MatchRequest, 'scope'>;

  constructor(
    set: PolicySet,
    rt: Runtime,
    who: { login: string; realm: string; user?: ResolvedUser },
    client: string,
  ) {
    this.#set = set;
    this.#base = {
      user: who.login,
      realm: who.realm,
      resolver: who.user?.resolver ?? '',
      client,
      servicenode: rt.node,
      time: rt.clock(),
      conditionData: who.user ? { userinfo: who.user.info } : {},
    };
  }

  static async of(
    rt: Runtime,
    who: { login: string; realm: string; user?: ResolvedUser },
    client: string,
  ): Promise<RequestPolicies> {
    return new RequestPolicies(await compiledPolicies(rt), rt, who, client);
  }

  #req(scope: string, action: string): MatchRequest & { action: string } {
    return { ...this.#base, scope, action };
  }

  isSet(scope: string, action: string): boolean {
    return this.#set.hasActive(scope) && this.#set.isSet(this.#req(scope, action));
  }

  /** The names of the matching policies that set the action. */
  names(scope: string, action: string): string[] {
    if (!this.#set.hasActive(scope)) return [];
    return this.#set
      .match(this.#req(scope, action))
      .filter((p) => Object.hasOwn(p.action, action))
      .map((p) => p.name);
  }

  value(scope: string, action: string, allowWhiteSpace = false): string | undefined {
    if (!this.#set.hasActive(scope)) return undefined;
    return this.#set.actionValue(this.#req(scope, action), { allowWhiteSpace });
  }

  values(scope: string, action: string): string[] {
    if (!this.#set.hasActive(scope)) return [];
    return [...this.#set.actionValues(this.#req(scope, action)).keys()];
  }
}

// ---------------------------------------------------------------------------------------------
// Challenges in the answer (reference 4.3).

export interface ChallengeEntry {
  serial: string;
  transaction_id: string;
  type: string;
  client_mode: string;
  message: string;
}

function challengeText(pol: RequestPolicies, type: TokenType): string {
  const text = pol.value('authentication', 'challenge_text', true);
  return text !== undefined ? text.replace(/\\,/g, ',') : type.challengeMessage;
}

/** Creates one challenge per token, all in one new transaction. */
async function createChallenges(
  rt: Runtime,
  tokens: readonly LoadedToken[],
  pol: RequestPolicies,
): Promise<ChallengeEntry[]> {
  const tid = newTransactionId();
  const out: ChallengeEntry[] = [];
  for (const t of tokens) {
    await createChallenge(rt, { transactionId: tid, serial: t.row.serial, type: t.type.type });
    out.push({
      serial: t.row.serial,
      transaction_id: tid,
      type: t.type.type,
      client_mode: t.type.clientMode,
      message: challengeText(pol, t.type),
    });
  }
  return out;
}

/** The detail of a challenge answer: lists, the joined message, the last challenge at the top level. */
export function challengeDetail(entries: readonly ChallengeEntry[]): Detail {
  const messages = entries.map((e) => e.message);
  const last = entries.at(-1);
  return {
    ...(last ? { serial: last.serial, type: last.type, client_mode: last.client_mode } : {}),
    message: [...new Set(messages)].join(', '),
    messages,
    transaction_id: last?.transaction_id,
    transaction_ids: entries.map((e) => e.transaction_id),
    multi_challenge: entries,
  };
}

// ---------------------------------------------------------------------------------------------
// check_token_list (reference 4.2.2).

interface ListOptions {
  pass: string;
  transactionId: string | undefined;
  otponly: boolean;
  user: ResolvedUser | undefined;
  pol: RequestPolicies;
}

export interface ListResult {
  value: boolean;
  detail: Detail;
  /** The token that decided the result, for the audit and the authorization post-checks. */
  token?: LoadedToken;
}

/** Why a token cannot be used now, or undefined (check_all). */
function unusable(t: LoadedToken): string | undefined {
  const max = (k: string) => Number.parseInt(t.info[k] ?? '0', 10) || 0;
  const count = (k: string) => Number.parseInt(t.info[k] ?? '0', 10) || 0;
  if (
    (max('count_auth_max') > 0 && count('count_auth') >= max('count_auth_max')) ||
    (max('count_auth_success_max') > 0 && count('count_auth_success') >= max('count_auth_success_max'))
  )
    return 'Authentication counter exceeded';
  if (Number(t.row.active) !== 1) return 'Token is disabled';
  if (t.row.failcount >= t.row.maxfail) return 'Failcounter exceeded';
  if (t.row.rollout_state === 'clientwait' || t.row.rollout_state === 'verify')
    return 'Token is not yet enrolled';
  return undefined;
}

/** The PIN check under the otppin policy (reference 4.5). */
async function pinOk(t: LoadedToken, pin: string, o: ListOptions): Promise<boolean> {
  const mode = o.pol.value('authentication', 'otppin') ?? 'tokenpin';
  if (mode === 'none') return pin === '';
  if (mode === 'userstore') {
    const u = o.user;
    if (!u) return false;
    try {
      return await u.store.checkPassword(u.info, pin);
    } catch {
      return false;
    }
  }
  return pinMatches(t, pin);
}

function splitPass(
  t: LoadedToken,
  pass: string,
  prependPin: boolean,
): { pin: string; otp: string } | undefined {
  if (!t.type.hasOtp) return { pin: pass, otp: '' };
  const n = t.row.otplen;
  if (pass.length < n) return undefined;
  return prependPin
    ? { pin: pass.slice(0, pass.length - n), otp: pass.slice(pass.length - n) }
    : { pin: pass.slice(n), otp: pass.slice(0, n) };
}

function tokenDetail(t: LoadedToken): Detail {
  return { serial: t.row.serial, type: t.type.type, otplen: t.row.otplen };
}

async function countAuth(rt: Runtime, t: LoadedToken, success: boolean, noCounter: boolean): Promise<void> {
  if (noCounter) return;
  await bumpInfoCounterRacing(rt, t, 'count_auth');
  if (success) await bumpInfoCounterRacing(rt, t, 'count_auth_success');
}

/** The bookkeeping of a token that authenticated (the counter was already consumed). */
async function succeeded(
  rt: Runtime,
  t: LoadedToken,
  info: Record<string, string> | undefined,
  noCounter: boolean,
) {
  if (t.type.singleUse) {
    await deleteTokenRows(rt.store.db, t);
    return;
  }
  if (info && Object.keys(info).length > 0) await setTokenInfoRacing(rt, t.row.id, info);
  await countAuth(rt, t, true, noCounter);
}

function weight(t: LoadedToken): number {
  return t.type.type === 'push' ? 1000 : t.type.type.charCodeAt(0);
}

export async function checkTokenList(
  rt: Runtime,
  candidates: readonly LoadedToken[],
  o: ListOptions,
): Promise<ListResult> {
  const tokens = candidates.filter((t) => Number(t.row.revoked) !== 1).sort((a, b) => weight(a) - weight(b));
  if (tokens.length === 0)
    throw new TokenAdminError('This action is not possible, since the token is locked', 1007);
  const now = rt.clock();
  const noCounter = await configFlag(rt, 'no_auth_counter', false);
  const prependPin = await configFlag(rt, 'PrependPin', true);
  const crTypes = o.pol.values('authentication', 'challenge_response').map((v) => v.toLowerCase());

  const reasons: string[] = [];
  const valid: { t: LoadedToken; newCount: number; info?: Record<string, string> | undefined }[] = [];
  const pinMatching: { t: LoadedToken; otp: string }[] = [];
  const invalid: LoadedToken[] = [];
  const answering: LoadedToken[] = [];
  const requesting: LoadedToken[] = [];
  for (const t of tokens) {
    const why = unusable(t);
    if (why) {
      reasons.push(why);
      continue;
    }
    if (o.transactionId) {
      if ((await challengesOf(rt, o.transactionId, t.row.serial)).length > 0) answering.push(t);
      else invalid.push(t);
      continue;
    }
    const canRequest =
      !o.otponly && t.type.challengeCapable && (t.type.challengeAlways || crTypes.includes(t.type.type));
    if (canRequest && (await pinOk(t, o.pass, o))) {
      requesting.push(t);
      continue;
    }
    const parts = o.otponly ? { pin: '', otp: o.pass } : splitPass(t, o.pass, prependPin);
    if (!parts || !(o.otponly || (await pinOk(t, parts.pin, o)))) {
      invalid.push(t);
      continue;
    }
    const match = t.type.checkOtp(tokenState(rt, t), parts.otp, now);
    if (match) valid.push({ t, newCount: match.newCount, info: match.info });
    else pinMatching.push({ t, otp: parts.otp });
  }

  // The compare-and-set decides which of concurrent requests carrying one OTP is the one.
  const accepted: LoadedToken[] = [];
  for (const v of valid) {
    if (await consumeOtp(rt, v.t, v.newCount)) {
      await succeeded(rt, v.t, v.info, noCounter);
      accepted.push(v.t);
    } else pinMatching.push({ t: v.t, otp: '' });
  }
  if (accepted.length > 0) {
    if (o.user && o.pol.isSet('authentication', 'reset_all_user_tokens')) {
      await rt.store.db
        .updateTable('token')
        .set({ failcount: 0 })
        .where(
          'id',
          'in',
          candidates.map((t) => t.row.id),
        )
        .execute();
    }
    const detail: Detail = { message: `matching ${accepted.length} tokens` };
    if (accepted.length === 1) Object.assign(detail, tokenDetail(accepted[0]!));
    else if (new Set(accepted.map((t) => t.type.type)).size > 1) detail.type = 'undetermined';
    return { value: true, detail, token: accepted.length === 1 ? accepted[0] : undefined };
  }

  if (answering.length > 0) return answerChallenge(rt, answering, o, noCounter);

  if (requesting.length > 0) {
    if (o.pol.isSet('authentication', 'increase_failcounter_on_challenge')) {
      for (const t of requesting) await incFailcount(rt, t, now);
    }
    const entries = await createChallenges(rt, requesting, o.pol);
    return { value: false, detail: challengeDetail(entries), token: requesting.at(-1) };
  }

  if (pinMatching.length > 0) {
    for (const { t } of pinMatching) {
      await incFailcount(rt, t, now);
      await countAuth(rt, t, false, noCounter);
    }
    if (pinMatching.length === 1) {
      const { t, otp } = pinMatching[0]!;
      const previous = otp !== '' && t.type.previousOtp(tokenState(rt, t), now) === otp;
      const message = previous ? 'wrong otp value. previous otp used again' : 'wrong otp value';
      return { value: false, detail: { message, ...tokenDetail(t) }, token: t };
    }
    return { value: false, detail: { message: 'wrong otp value' } };
  }

  if (invalid.length > 0) {
    if (await configFlag(rt, 'IncFailCountOnFalsePin', true)) {
      for (const t of invalid) {
        await incFailcount(rt, t, now);
        await countAuth(rt, t, false, noCounter);
      }
    }
    return {
      value: false,
      detail: { message: 'wrong otp pin' },
      token: invalid.length === 1 ? invalid[0] : undefined,
    };
  }

  if (reasons.length > 0) {
    const token = tokens.length === 1 ? tokens[0] : undefined;
    return { value: false, detail: { message: [...new Set(reasons)].join(', ') }, token };
  }
  return { value: false, detail: { message: 'No suitable token found for authentication.' } };
}

/** The challenge-response list: the pass is the answer to a challenge of the transaction. */
async function answerChallenge(
  rt: Runtime,
  tokens: readonly LoadedToken[],
  o: ListOptions,
  noCounter: boolean,
): Promise<ListResult> {
  const now = rt.clock();
  const tid = o.transactionId!;
  for (const t of tokens) {
    const live = (await challengesOf(rt, tid, t.row.serial)).filter((c) => isValid(c, now));
    if (live.length === 0) continue;
    const answeredOutOfBand = o.pass === '' && live.some((c) => Number(c.otp_valid) === 1);
    let ok = answeredOutOfBand;
    let info: Record<string, string> | undefined;
    if (!ok) {
      const match = t.type.checkOtp(tokenState(rt, t), o.pass, now);
      ok = match !== null && (await consumeOtp(rt, t, match.newCount));
      info = match?.info;
    }
    if (ok) {
      await succeeded(rt, t, info, noCounter);
      await deleteTransaction(rt, tid);
      return { value: true, detail: { message: 'Found matching challenge', ...tokenDetail(t) }, token: t };
    }
  }
  for (const t of tokens) if (t.type.clientMode !== 'poll') await incFailcount(rt, t, now);
  if (tokens.length === 1) {
    const t = tokens[0]!;
    return {
      value: false,
      detail: { message: 'Response did not match the challenge.', serial: t.row.serial, type: t.type.type },
      token: t,
    };
  }
  return { value: false, detail: { message: `Response did not match for ${tokens.length} tokens.` } };
}

// ---------------------------------------------------------------------------------------------
// The request: parameters, the user or serial path, the policies around them.

/** check_user_serial_or_cred_id_in_request. */
export function checkRequestParams(p: { user?: string | undefined; serial?: string | undefined }): void {
  if (!p.user && !p.serial) throw new ParameterError('You need to specify a serial, user or credential_id.');
  if (p.serial?.includes('*')) throw new ParameterError('Invalid serial number.');
  if (p.user?.includes('%')) throw new ParameterError('Invalid user.');
}

/** The owner of a token as a resolved user, or undefined (unassigned, or gone from its store). */
async function ownerUser(rt: Runtime, t: LoadedToken): Promise<ResolvedUser | undefined> {
  if (!t.owner) return undefined;
  try {
    const { store } = await userStore(rt, t.owner.resolver);
    const info = await store.findById(t.owner.userId);
    if (!info) return undefined;
    return {
      login: info.username,
      realm: t.owner.realm,
      resolver: t.owner.resolver,
      userid: info.userid,
      info,
      store,
    };
  } catch {
    return undefined;
  }
}

function accepted(message: string): ListResult {
  return { value: true, detail: { message } };
}

/** The token types a request may restrict itself to (`type` needs application_tokentype). */
function typeFilter(pol: RequestPolicies, type: string | undefined): string | undefined {
  return type && pol.isSet('authorization', 'application_tokentype') ? type.toLowerCase() : undefined;
}

async function userPath(
  rt: Runtime,
  input: CheckInput,
  who: { login: string; realm: string },
  pol: RequestPolicies,
  user: ResolvedUser | undefined,
): Promise<ListResult> {
  const pass = input.pass ?? '';
  if (!user) {
    const names = pol.names('authentication', 'passOnNoUser');
    if (names.length > 0) return accepted(`user does not exist, accepted due to '${names[0]}'`);
    if (pol.isSet('authentication', 'hide_specific_error_message'))
      throw new AuthError('', AuthCode.WrongCredentials);
    throw new UserError(`User <${who.login}@${who.realm}> does not exist.`);
  }
  let tokens = await tokensOfOwner(rt, user.resolver, user.userid);
  if (tokens.length === 0) {
    const names = pol.names('authentication', 'passOnNoToken');
    if (names.length > 0) return accepted(`user has no token, accepted due to '${names[0]}'`);
    const passthru = pol.names('authentication', 'passthru');
    if (passthru.length > 0 && pol.value('authentication', 'passthru') === 'userstore') {
      const good = await user.store.checkPassword(user.info, pass).catch(() => false);
      if (good) return accepted(`against userstore due to '${passthru[0]}'`);
    }
    return { value: false, detail: { message: 'The user has no tokens assigned' } };
  }
  const type = typeFilter(pol, input.type);
  if (type) {
    tokens = tokens.filter((t) => t.type.type === type);
    if (tokens.length === 0) return { value: false, detail: { message: 'The user has no tokens assigned' } };
  }
  return checkTokenList(rt, tokens, { pass, transactionId: input.transactionId, otponly: false, user, pol });
}

/** Post-policies of a finished check (reference 4.2.3). */
function postProcess(
  res: ListResult,
  pol: RequestPolicies,
  user: ResolvedUser | undefined,
): Detail | undefined {
  if (
    pol.isSet('authorization', 'authorized') &&
    pol.value('authorization', 'authorized') === 'deny_access'
  ) {
    throw new PolicyError('User is not authorized to authenticate under these conditions.', 401);
  }
  const t = res.token;
  if (res.value && t) {
    const types = pol.values('authorization', 'tokentype').map((v) => v.toLowerCase());
    if (types.length > 0 && !types.includes(t.type.type))
      throw new PolicyError('Tokentype not allowed for authentication!');
    const serials = pol.values('authorization', 'serial');
    if (serials.length > 0 && !serials.some((s) => safeRegex(s).test(t.row.serial))) {
      throw new PolicyError('Serial is not allowed for authentication!');
    }
  }
  let detail: Detail | undefined = { ...res.detail };
  if (res.value && user) {
    if (pol.isSet('authorization', 'add_user_in_response')) {
      const info: Record<string, unknown> = { ...user.info };
      if ('password' in info) info.password = '';
      detail.user = info;
    }
    if (pol.isSet('authorization', 'add_resolver_in_response')) {
      detail['user-resolver'] = user.resolver;
      detail['user-realm'] = user.realm;
    }
  }
  if (res.value && pol.isSet('authorization', 'no_detail_on_success')) detail = undefined;
  else if (!res.value && pol.isSet('authorization', 'no_detail_on_fail')) detail = undefined;
  const challenge = Array.isArray(res.detail.multi_challenge) && res.detail.multi_challenge.length > 0;
  if (!res.value && !challenge && pol.isSet('authentication', 'hide_specific_error_message')) {
    detail = { message: 'Authentication failed.' };
  }
  return detail;
}

function safeRegex(s: string): RegExp {
  try {
    return new RegExp(`^(?:${s})`);
  } catch {
    return /(?!)/;
  }
}

/** /validate/check (and samlcheck, radiuscheck, and login_mode=privacyIDEA). */
export async function check(rt: Runtime, input: CheckInput): Promise<CheckResult> {
  checkRequestParams(input);
  let who: { login: string; realm: string };
  let user: ResolvedUser | undefined;
  let token: LoadedToken | undefined;
  if (input.user) {
    who = await splitLogin(rt, input.user, input.realm);
    user = await findUser(rt, who.login, who.realm);
  }
  if (input.serial) {
    token = await requireToken(rt, input.serial);
    if (input.user) {
      const u = await requireUser(rt, who!.login, who!.realm);
      if (token.owner?.resolver !== u.resolver || token.owner.userId !== u.userid) {
        throw new ParameterError('Given serial does not belong to given user!');
      }
    }
    user ??= await ownerUser(rt, token);
    who = { login: user?.login ?? '', realm: user?.realm ?? token.realms[0] ?? '' };
  }
  const pol = await RequestPolicies.of(rt, { ...who!, ...(user ? { user } : {}) }, input.client);
  const res = token
    ? await checkTokenList(rt, [token], {
        pass: input.pass ?? '',
        transactionId: input.transactionId,
        otponly: input.otponly === true,
        user,
        pol,
      })
    : await userPath(rt, input, who!, pol, user);
  const decided = res.token ?? token;
  const audit: CheckAudit = {
    user: user?.login ?? who!.login,
    realm: user?.realm ?? who!.realm,
    resolver: user?.resolver ?? '',
    serial: decided?.row.serial ?? '',
    tokenType: decided?.type.type ?? '',
    info: typeof res.detail.message === 'string' ? res.detail.message : '',
  };
  return { value: res.value, detail: postProcess(res, pol, user), user, audit };
}

const SAML_KEYS = ['username', 'realm', 'resolver', 'email', 'surname', 'givenname', 'mobile', 'phone'];

/**
 * samlcheck's attributes (reference 4.2.4): the user's store attributes — never a password or its
 * hash — when ReturnSamlAttributes (default true) and, after a failure, ReturnSamlAttributesOnFail.
 */
export async function samlAttributes(rt: Runtime, res: CheckResult): Promise<Record<string, unknown>> {
  const user = res.user;
  if (!user || !(await configFlag(rt, 'ReturnSamlAttributes', true))) return {};
  if (!res.value && !(await configFlag(rt, 'ReturnSamlAttributesOnFail', false))) return {};
  const out: Record<string, unknown> = Object.fromEntries(SAML_KEYS.map((k) => [k, null]));
  for (const [k, v] of Object.entries(user.info)) {
    if (!/pass|hash/i.test(k)) out[k] = v ?? null;
  }
  return Object.assign(out, { username: user.login, realm: user.realm, resolver: user.resolver });
}

// ---------------------------------------------------------------------------------------------
// triggerchallenge (reference 4.4).

export interface TriggerInput {
  user?: string | undefined;
  realm?: string | undefined;
  serial?: string | undefined;
  type?: string | undefined;
}

export interface TriggerResult {
  value: number;
  detail: Detail;
  audit: CheckAudit;
}

export async function triggerChallenge(ctx: Context, input: TriggerInput): Promise<TriggerResult> {
  checkRequestParams(input);
  let tokens: LoadedToken[];
  let user: ResolvedUser | undefined;
  if (input.serial) {
    const t = await requireToken(ctx, input.serial);
    tokens = [t];
    user = await ownerUser(ctx, t);
  } else {
    const { login, realm } = await splitLogin(ctx, input.user!, input.realm);
    user = await requireUser(ctx, login, realm);
    tokens = await tokensOfOwner(ctx, user.resolver, user.userid);
  }
  const who = { login: user?.login ?? '', realm: user?.realm ?? tokens[0]?.realms[0] ?? '' };
  const pol = await RequestPolicies.of(ctx, { ...who, ...(user ? { user } : {}) }, ctx.caller.client);
  const type = input.serial ? undefined : typeFilter(pol, input.type);
  const fit = tokens.filter(
    (t) =>
      t.type.challengeCapable &&
      Number(t.row.revoked) !== 1 &&
      Number(t.row.locked) !== 1 &&
      !unusable(t) &&
      (!type || t.type.type === type),
  );
  const entries = fit.length > 0 ? await createChallenges(ctx, fit, pol) : [];
  const detail: Detail =
    entries.length > 0
      ? challengeDetail(entries)
      : { messages: [], transaction_ids: [], multi_challenge: [] };
  return {
    value: entries.length,
    detail,
    audit: {
      user: who.login,
      realm: who.realm,
      resolver: user?.resolver ?? '',
      serial: fit.length === 1 ? fit[0]!.row.serial : '',
      tokenType: fit.length === 1 ? fit[0]!.type.type : '',
      info: typeof detail.message === 'string' ? detail.message : '',
    },
  };
}
