// The user path of a check (check_user_pass, reference 4.2.1): auth_cache around it, then the
// passOnNoUser / passOnNoToken / passthru policies, the audit-counted limits, last_auth, and the
// user's tokens through check_token_list.
import { UserError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { type LoadedToken, tokensOfOwner } from '../token/index.ts';
import { addToCache, parseCacheWindow, verifyInCache } from './auth-cache.ts';
import { checkTokenList } from './check-token-list.ts';
import { passthruToRadius } from './passthru.ts';
import { applyLastAuth, authLimitReached, type RequestPolicies, type Who } from './policies.ts';
import { type CheckInput, typeFilter } from './request.ts';
import type { ListResult } from './round.ts';

/** A check by user: the request, the user it names, its policies, and the user if found. */
export interface UserRequest {
  input: CheckInput;
  who: Who;
  pol: RequestPolicies;
  user: ResolvedUser | undefined;
}

function accepted(message: string): ListResult {
  return { value: true, detail: { message } };
}

const NO_TOKENS: ListResult['detail'] = { message: 'The user has no tokens assigned' };

/**
 * The user path in auth_cache (reference 4.2.1 #1). The cache holds only successes of existing
 * users by their password; an answer to a challenge (OTP only) is neither looked up nor cached.
 */
export async function userPath(rt: Runtime, req: UserRequest): Promise<ListResult> {
  const { input, pol, user } = req;
  const setting = pol.value('authentication', 'auth_cache');
  const pass = input.pass ?? '';
  const cacheable = setting !== undefined && user !== undefined && !input.transactionId && pass !== '';
  if (cacheable && verifyInCache(rt, user, pass, parseCacheWindow(setting)))
    return accepted('Authenticated by AuthCache.');
  const res = await userPathUncached(rt, req);
  if (cacheable && res.value) addToCache(rt, user, pass);
  return res;
}

/** The user path inside auth_cache (reference 4.2.1 #2–#7). */
async function userPathUncached(rt: Runtime, req: UserRequest): Promise<ListResult> {
  const { pol, user } = req;
  if (!user) return unknownUser(req);
  const tokens = await tokensOfOwner(rt, user.resolver, user.userid);
  if (tokens.length === 0) {
    const names = pol.names('authentication', 'passOnNoToken');
    if (names.length > 0) return accepted(`user has no token, accepted due to '${names[0]}'`);
  }
  const limit = await authLimitReached(rt, pol, user);
  if (limit) return { value: false, detail: { message: limit } };
  return withLastAuth(rt, pol, () =>
    tokens.length === 0 ? passthru(rt, req, user) : checkUserTokens(rt, req, user, tokens),
  );
}

/**
 * A user that does not exist: passOnNoUser, else an error (under hide_specific_error_message
 * answered as a REJECT by check(): enumeration.ts).
 */
function unknownUser({ pol, who }: UserRequest): ListResult {
  const names = pol.names('authentication', 'passOnNoUser');
  if (names.length > 0) return accepted(`user does not exist, accepted due to '${names[0]}'`);
  throw new UserError(`User <${who.login}@${who.realm}> does not exist.`);
}

/**
 * A user without tokens: passthru=userstore checks the pass against the user store, passthru=<a
 * RADIUS server identifier> asks that server (passthru.ts); a failed passthru goes on as without.
 */
async function passthru(rt: Runtime, { input, pol }: UserRequest, user: ResolvedUser): Promise<ListResult> {
  const names = pol.names('authentication', 'passthru');
  const target = names.length > 0 ? pol.value('authentication', 'passthru') : undefined;
  const pass = input.pass ?? '';
  if (target === 'userstore') {
    const good = await user.store.checkPassword(user.info, pass).catch(() => false);
    if (good) return accepted(`against userstore due to '${names[0]}'`);
  } else if (target) {
    const res = await passthruToRadius(rt, pol, user, pass, target, names[0]!);
    if (res) return res;
  }
  return { value: false, detail: { ...NO_TOKENS } };
}

/** The user's tokens (of the request's type, if it may name one) through check_token_list. */
async function checkUserTokens(
  rt: Runtime,
  { input, pol }: UserRequest,
  user: ResolvedUser,
  owned: LoadedToken[],
): Promise<ListResult> {
  const type = typeFilter(pol, input.type);
  const tokens = type ? owned.filter((t) => t.type.type === type) : owned;
  if (tokens.length === 0) return { value: false, detail: { ...NO_TOKENS } };
  return checkTokenList(rt, tokens, {
    pass: input.pass ?? '',
    transactionId: input.transactionId,
    otponly: false,
    user,
    pol,
    forceChallenge: pol.isSet('authentication', 'force_challenge_response'),
    exception: input.exception,
  });
}

/**
 * last_auth around a check (reference 4.2.1 #5): a success by one token is refused when that
 * token last authenticated too long ago, and otherwise stamps its last_auth.
 */
export async function withLastAuth(
  rt: Runtime,
  pol: RequestPolicies,
  run: () => Promise<ListResult>,
): Promise<ListResult> {
  const res = await run();
  if (!res.value || !res.token || typeof res.detail.serial !== 'string') return res;
  const refused = await applyLastAuth(rt, pol, res.token);
  return refused ? { ...res, value: false, detail: { ...res.detail, message: refused } } : res;
}
