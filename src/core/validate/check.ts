// Authentication checks (reference 4.1–4.4), the request layer: /validate/check with a user or a
// serial, the client application recorded, the policies of the request, the post-policies. The
// user path is user-path.ts, the algorithm check-token-list.ts, the policy rules policies.ts; the
// front ends only map parameters and render the result.
import { ParameterError, ThrottledError } from '../../errors.ts';
import type { PolicySet } from '../../policy/index.ts';
import { type ClientSeen, recordClient } from '../client/index.ts';
import type { LoginResult, Runtime } from '../context.ts';
import { findUser, type ResolvedUser, requireUser } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';
import { accountOf, serialAccount, type ThrottleVerdict, throttled } from '../throttle/index.ts';
import { type LoadedToken, requireToken } from '../token/index.ts';
import { checkAuthItems } from './auth-items.ts';
import { autoassign } from './autoassign.ts';
import { pollTransaction } from './challenge-store.ts';
import { checkTokenList } from './check-token-list.ts';
import { type CheckProgress, hiddenFailure, hidesOutcome, NOT_THE_USERS_TOKEN } from './enumeration.ts';
import { answerOf, type CheckAnswer } from './outcome.ts';
import { RequestPolicies, requireApiKey, type Who } from './policies.ts';
import { postProcess } from './post-process.ts';
import {
  type CheckInput,
  type CheckResult,
  checkAudit,
  checkRequestParams,
  ownerUser,
  requestedUser,
} from './request.ts';
import type { ListResult } from './round.ts';
import { userPath, withLastAuth } from './user-path.ts';

/** The answer of a poll: whether the transaction's challenge was answered, and its status. */
export interface PollResult {
  value: boolean;
  detail: { challenge_status: 'accept' | 'pending' };
}

/**
 * /validate/polltransaction asked by a client application: whether the transaction's challenge
 * was answered, after api_key_required (the request names no user, so only the client counts).
 */
export async function clientPoll(
  rt: Runtime,
  client: string,
  authorization: string | undefined,
  transactionId: string,
): Promise<PollResult> {
  await requireApiKey(rt, await RequestPolicies.of(rt, { login: '', realm: '' }, client), authorization);
  const answered = await pollTransaction(rt, transactionId);
  return { value: answered, detail: { challenge_status: answered ? 'accept' : 'pending' } };
}

/**
 * A check asked by a client application (the /validate endpoints; a RADIUS front end): the client
 * is recorded before the request is read, so that a malformed request and a failed check count
 * too (privacyIDEA saves it before anything else); a failure to record it is only logged.
 */
export async function clientCheck(
  rt: Runtime,
  seen: ClientSeen,
  request: () => Omit<CheckInput, 'client'>,
): Promise<CheckResult> {
  try {
    await recordClient(rt, seen);
  } catch (e) {
    rt.log.warn({ err: e }, 'client application could not be recorded');
  }
  let res: CheckResult;
  try {
    const input = { ...request(), client: seen.ip };
    // A malformed request (an overlong pass) is refused before the throttling, and counts for nothing there.
    checkRequestParams(input);
    res = await throttled(
      rt,
      checkAttempt(input, seen.throttleAddress ?? input.client),
      () => check(rt, input),
      checkVerdict,
    );
  } catch (e) {
    rt.metrics.login(e instanceof ThrottledError ? 'throttled' : 'error', '');
    throw e;
  }
  rt.metrics.login(LOGIN_RESULT[answerOf(res)], res.audit.tokenType);
  return res;
}

/** The metrics' name of an answer. */
const LOGIN_RESULT: Readonly<Record<CheckAnswer, LoginResult>> = {
  ACCEPT: 'accept',
  REJECT: 'reject',
  CHALLENGE: 'challenge',
  DECLINED: 'declined',
};

/** Whom a check tries, for the throttling: the user (login@realm), else the serial; from `address`. */
function checkAttempt(input: CheckInput, address: string) {
  const account = input.user ? accountOf(input.user, input.realm) : serialAccount(input.serial ?? '');
  return { account, address };
}

/** An accepted check succeeded, a rejected one failed; challenges (and a declined push) are neither. */
function checkVerdict(res: CheckResult): ThrottleVerdict {
  const answer = answerOf(res);
  if (answer === 'ACCEPT') return 'success';
  return answer === 'REJECT' ? 'failure' : 'neither';
}

/**
 * /validate/check (and samlcheck, radiuscheck, and login_mode=privacyIDEA). Under
 * hide_specific_error_message an unknown user or serial is a REJECT like any other (enumeration.ts).
 */
export async function check(rt: Runtime, request: CheckInput): Promise<CheckResult> {
  checkRequestParams(request);
  const set = await compiledPolicies(rt);
  const seen: CheckProgress = {
    who: { login: request.user ?? '', realm: request.realm ?? '' },
    client: request.client,
    serial: request.serial,
  };
  try {
    return await checkNamed(rt, set, request, seen);
  } catch (e) {
    return hiddenFailure(rt, set, seen, e);
  }
}

async function checkNamed(
  rt: Runtime,
  set: PolicySet,
  request: CheckInput,
  seen: CheckProgress,
): Promise<CheckResult> {
  const { input, who, user, token } = await named(rt, set, request, seen);
  const pol = new RequestPolicies(set, rt, { ...who, ...(user ? { user } : {}) }, input.client);
  if (input.apiKey) await requireApiKey(rt, pol, input.apiKey.authorization);
  const res = token
    ? await serialPath(rt, input, pol, user, token)
    : await autoassign(
        rt,
        input.client,
        user,
        input.pass ?? '',
        await userPath(rt, { input, who, pol, user }),
      );
  const audit = checkAudit(who, user, res.token ?? token, res.detail);
  const detail = postProcess(res, pol, user);
  const authItems =
    res.value && res.token && input.wantsAuthItems
      ? await checkAuthItems(rt, input, res.token, user?.login)
      : undefined;
  // A failure answered generically names no user either (samlcheck's attributes).
  const shown = hidesOutcome(res, pol) ? undefined : user;
  return { value: res.value, detail, user: shown, audit, ...(authItems ? { authItems } : {}) };
}

/**
 * What a request names: the user (after rewrites and mangle, which may change the pass) and the
 * token of its serial, which must be the user's when both are given; a serial alone checks as
 * its owner, in the owner's (else the token's first) realm.
 */
async function named(
  rt: Runtime,
  set: PolicySet,
  request: CheckInput,
  seen: CheckProgress,
): Promise<{ input: CheckInput; who: Who; user: ResolvedUser | undefined; token: LoadedToken | undefined }> {
  let input = request;
  let who: Who = { login: '', realm: '' };
  let user: ResolvedUser | undefined;
  if (input.user) {
    const asked = await requestedUser(rt, set, input);
    input = { ...input, pass: asked.pass };
    who = asked.who;
    seen.who = who;
    user = await findUser(rt, who.login, who.realm);
  }
  if (!input.serial) return { input, who, user, token: undefined };
  const token = await requireToken(rt, input.serial);
  if (input.user) {
    const u = await requireUser(rt, who.login, who.realm);
    if (token.owner?.resolver !== u.resolver || token.owner.userId !== u.userid) {
      throw new ParameterError(NOT_THE_USERS_TOKEN);
    }
  }
  user ??= await ownerUser(rt, token);
  who = { login: user?.login ?? '', realm: user?.realm ?? token.realms[0] ?? '' };
  seen.who = who;
  return { input, who, user, token };
}

/** The serial path: the one token through check_token_list, under last_auth. */
function serialPath(
  rt: Runtime,
  input: CheckInput,
  pol: RequestPolicies,
  user: ResolvedUser | undefined,
  token: LoadedToken,
): Promise<ListResult> {
  return withLastAuth(rt, pol, () =>
    checkTokenList(rt, [token], {
      pass: input.pass ?? '',
      transactionId: input.transactionId,
      otponly: input.otponly === true,
      user,
      pol,
      exception: input.exception,
    }),
  );
}
