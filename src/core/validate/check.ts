// Authentication checks (reference 4.1–4.4), the request layer: /validate/check with a user or a
// serial, the policy wrappers of the user path and the post-policies, samlcheck's attributes and
// triggerchallenge. The algorithm is check-token-list.ts; the policy rules are validate-policies.ts;
// the HTTP layer only maps parameters and renders the result.

import { AuthCode, AuthError, ParameterError, PolicyError, UserError } from '../../errors.ts';
import type { PolicySet } from '../../policy/index.ts';
import type { Context, Runtime } from '../context.ts';
import { findUser, type ResolvedUser, requireUser, splitLogin, userStore } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';
import { configFlag } from '../system/index.ts';
import { type LoadedToken, requireToken, tokensOfOwner } from '../token/index.ts';
import { addToCache, parseCacheWindow, verifyInCache } from './auth-cache.ts';
import { autoassign } from './autoassign.ts';
import { challengeDetail, createChallenges, decorateChallenges } from './challenges.ts';
import { checkTokenList, type ListResult, unusable } from './check-token-list.ts';
import {
  applyLastAuth,
  authLimitReached,
  authorizeToken,
  type Detail,
  mangle,
  RequestPolicies,
  requireApiKey,
  rewrittenRealm,
  type Who,
} from './policies.ts';

export interface CheckInput {
  user?: string | undefined;
  realm?: string | undefined;
  serial?: string | undefined;
  pass?: string | undefined;
  transactionId?: string | undefined;
  type?: string | undefined;
  otponly?: boolean | undefined;
  client: string;
  /**
   * Set by the /validate endpoints, which api_key_required guards, with the raw JWT of the request
   * (PI-Authorization or Authorization). Other callers (/auth with login_mode=privacyIDEA, the
   * CLI) leave it out: the policy is about the endpoint, not the check.
   */
  apiKey?: { authorization: string | undefined } | undefined;
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

/** The user path inside auth_cache (reference 4.2.1 #2–#7). */
async function userPathUncached(
  rt: Runtime,
  input: CheckInput,
  who: Who,
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
  }
  const limit = await authLimitReached(rt, pol, user);
  if (limit) return { value: false, detail: { message: limit } };
  return withLastAuth(rt, pol, async () => {
    if (tokens.length === 0) {
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
      if (tokens.length === 0)
        return { value: false, detail: { message: 'The user has no tokens assigned' } };
    }
    return checkTokenList(rt, tokens, {
      pass,
      transactionId: input.transactionId,
      otponly: false,
      user,
      pol,
      forceChallenge: pol.isSet('authentication', 'force_challenge_response'),
    });
  });
}

/**
 * last_auth around a check (reference 4.2.1 #5): a success by one token is refused when that
 * token last authenticated too long ago, and otherwise stamps its last_auth.
 */
async function withLastAuth(
  rt: Runtime,
  pol: RequestPolicies,
  run: () => Promise<ListResult>,
): Promise<ListResult> {
  const res = await run();
  if (!res.value || !res.token || typeof res.detail.serial !== 'string') return res;
  const refused = await applyLastAuth(rt, pol, res.token);
  return refused ? { ...res, value: false, detail: { ...res.detail, message: refused } } : res;
}

/**
 * The user path (check_user_pass) in auth_cache (reference 4.2.1 #1). The cache holds only
 * successes of existing users by their password; an answer to a challenge (OTP only) is neither
 * looked up nor cached.
 */
async function userPath(
  rt: Runtime,
  input: CheckInput,
  who: Who,
  pol: RequestPolicies,
  user: ResolvedUser | undefined,
): Promise<ListResult> {
  const setting = pol.value('authentication', 'auth_cache');
  const pass = input.pass ?? '';
  const cacheable = setting !== undefined && user !== undefined && !input.transactionId && pass !== '';
  if (cacheable && verifyInCache(rt, user, pass, parseCacheWindow(setting)))
    return accepted('Authenticated by AuthCache.');
  const res = await userPathUncached(rt, input, who, pol, user);
  if (cacheable && res.value) addToCache(rt, user, pass);
  return res;
}

/** Post-policies of a finished check (reference 4.2.3, in that order). */
function postProcess(
  res: ListResult,
  pol: RequestPolicies,
  user: ResolvedUser | undefined,
): Detail | undefined {
  if (res.value && res.token) authorizeToken(pol, res.token);
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
  decorateChallenges(detail, pol);
  if (pol.value('authorization', 'authorized') === 'deny_access') {
    throw new PolicyError('User is not authorized to authenticate under these conditions.', 401);
  }
  const challenge = Array.isArray(res.detail.multi_challenge) && res.detail.multi_challenge.length > 0;
  if (!res.value && !challenge && pol.isSet('authentication', 'hide_specific_error_message')) {
    detail = { message: 'Authentication failed.' };
  }
  return detail;
}

/**
 * The user a request names, after the realm rewrites (set_realm, setrealm) and mangle, which
 * match the user as the request gave it (reference 4.1). Mangle may also rewrite the pass.
 */
async function requestedUser(
  rt: Runtime,
  set: PolicySet,
  input: CheckInput,
): Promise<{ who: Who; pass: string | undefined }> {
  const given = await splitLogin(rt, input.user!, input.realm);
  const pre = new RequestPolicies(set, rt, given, input.client);
  const realm = rewrittenRealm(pre, given.realm);
  const m = mangle(pre, { login: given.login, realm, pass: input.pass ?? '' });
  const pass = input.pass === undefined && m.pass === '' ? undefined : m.pass;
  return { who: { login: m.login, realm: m.realm }, pass };
}

/** api_key_required for a request that names no user (polltransaction). */
export async function checkApiKey(
  rt: Runtime,
  client: string,
  authorization: string | undefined,
): Promise<void> {
  await requireApiKey(rt, await RequestPolicies.of(rt, { login: '', realm: '' }, client), authorization);
}

/** /validate/check (and samlcheck, radiuscheck, and login_mode=privacyIDEA). */
export async function check(rt: Runtime, request: CheckInput): Promise<CheckResult> {
  checkRequestParams(request);
  let input = request;
  let who: Who = { login: '', realm: '' };
  let user: ResolvedUser | undefined;
  let token: LoadedToken | undefined;
  const set = await compiledPolicies(rt);
  if (input.user) {
    const named = await requestedUser(rt, set, input);
    input = { ...input, pass: named.pass };
    who = named.who;
    user = await findUser(rt, who.login, who.realm);
  }
  if (input.serial) {
    token = await requireToken(rt, input.serial);
    if (input.user) {
      const u = await requireUser(rt, who.login, who.realm);
      if (token.owner?.resolver !== u.resolver || token.owner.userId !== u.userid) {
        throw new ParameterError('Given serial does not belong to given user!');
      }
    }
    user ??= await ownerUser(rt, token);
    who = { login: user?.login ?? '', realm: user?.realm ?? token.realms[0] ?? '' };
  }
  const pol = new RequestPolicies(set, rt, { ...who, ...(user ? { user } : {}) }, input.client);
  if (input.apiKey) await requireApiKey(rt, pol, input.apiKey.authorization);
  const serialToken = token;
  const res = serialToken
    ? await withLastAuth(rt, pol, () =>
        checkTokenList(rt, [serialToken], {
          pass: input.pass ?? '',
          transactionId: input.transactionId,
          otponly: input.otponly === true,
          user,
          pol,
        }),
      )
    : await autoassign(rt, input.client, user, input.pass ?? '', await userPath(rt, input, who, pol, user));
  const decided = res.token ?? token;
  const audit: CheckAudit = {
    user: user?.login ?? who.login,
    realm: user?.realm ?? who.realm,
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
      !unusable(t, ctx.clock()) &&
      (!type || t.type.type === type),
  );
  const entries = fit.length > 0 ? await createChallenges(ctx, fit, pol) : [];
  const detail: Detail =
    entries.length > 0
      ? challengeDetail(entries)
      : { messages: [], transaction_ids: [], multi_challenge: [] };
  decorateChallenges(detail, pol);
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
