// The post-policies of a finished check (reference 4.2.3, in that order): the authorization
// checks of the deciding token, the user and resolver in the answer, no_detail_on_success/fail,
// the challenge decorations, deny_access, and hide_specific_error_message.
import { ERR, PolicyError } from '../../errors.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { decorateChallenges } from './challenges.ts';
import { HIDDEN_MESSAGE, hidesOutcome } from './enumeration.ts';
import { authorizeToken, type Detail, type RequestPolicies } from './policies.ts';
import type { ListResult } from './round.ts';

export function postProcess(
  res: ListResult,
  pol: RequestPolicies,
  user: ResolvedUser | undefined,
): Detail | undefined {
  if (res.value && res.token) authorizeToken(pol, res.token);
  let detail: Detail | undefined = { ...res.detail };
  if (res.value && user) addUser(detail, pol, user);
  if (res.value && pol.isSet('authorization', 'no_detail_on_success')) detail = undefined;
  else if (!res.value && pol.isSet('authorization', 'no_detail_on_fail')) detail = undefined;
  decorateChallenges(detail, pol);
  if (pol.value('authorization', 'authorized') === 'deny_access') {
    throw new PolicyError(
      'User is not authorized to authenticate under these conditions.',
      ERR.ValidateDenied,
    );
  }
  if (hidesOutcome(res, pol)) detail = { message: HIDDEN_MESSAGE };
  return detail;
}

/** add_user_in_response (never the password) and add_resolver_in_response. */
function addUser(detail: Detail, pol: RequestPolicies, user: ResolvedUser): void {
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
