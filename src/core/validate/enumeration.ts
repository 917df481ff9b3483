// Enumeration at the checks (issue 16 item 8; reference 4.2.3 #11): under the authentication
// policy hide_specific_error_message a check that fails is answered alike whatever the reason —
// unknown user, unknown serial, a serial not the user's, no token, wrong PIN or OTP, a disabled or
// locked token — as a REJECT whose detail is only `Authentication failed.` (and the threadid). The
// real reason is the audit row's info.
import { AuthsrvError, ERR, ParameterError } from '../../errors.ts';
import type { PolicySet } from '../../policy/index.ts';
import type { Runtime } from '../context.ts';
import { type Detail, RequestPolicies, type Who } from './policies.ts';
import type { CheckResult } from './request.ts';
import type { ListResult } from './round.ts';

/** The detail message of every failed check under hide_specific_error_message. */
export const HIDDEN_MESSAGE = 'Authentication failed.';

/** The refusal of a serial that is another user's (reference 4.2, serial path). */
export const NOT_THE_USERS_TOKEN = 'Given serial does not belong to given user!';

function startedChallenges(detail: Detail): boolean {
  return Array.isArray(detail.multi_challenge) && detail.multi_challenge.length > 0;
}

/** Whether this outcome is answered generically: a failure (not a challenge) under the policy. */
export function hidesOutcome(res: ListResult, pol: RequestPolicies): boolean {
  return (
    !res.value && !startedChallenges(res.detail) && pol.isSet('authentication', 'hide_specific_error_message')
  );
}

/**
 * Errors of a check that tell whether a user or token exists, or in which state a token is: an
 * unknown user (904), an unknown serial (601), a serial of another user (905 with that text), a
 * locked token (1007). Malformed requests and policy refusals tell nothing of the kind and stay.
 */
function telling(e: unknown): e is AuthsrvError {
  if (!(e instanceof AuthsrvError)) return false;
  if (e instanceof ParameterError) return e.message === NOT_THE_USERS_TOKEN;
  const codes: number[] = [ERR.User, ERR.ResourceNotFound, ERR.TokenLocked];
  return codes.includes(e.code);
}

/** What a check had found out when it failed: whom it checks (the policy is matched on it). */
export interface CheckProgress {
  who: Who;
  client: string;
  serial: string | undefined;
}

/**
 * A telling error of a check as the generic REJECT, when hide_specific_error_message applies to
 * whom the check had found so far; otherwise the error itself. The audit names the user (or
 * serial) asked for and the error's message.
 */
export function hiddenFailure(rt: Runtime, set: PolicySet, seen: CheckProgress, e: unknown): CheckResult {
  if (!telling(e)) throw e;
  const pol = new RequestPolicies(set, rt, seen.who, seen.client);
  if (!pol.isSet('authentication', 'hide_specific_error_message')) throw e;
  return {
    value: false,
    detail: { message: HIDDEN_MESSAGE },
    user: undefined,
    audit: {
      user: seen.who.login,
      realm: seen.who.realm,
      resolver: '',
      serial: seen.serial ?? '',
      tokenType: '',
      info: e.message,
    },
  };
}
