// One run of check_token_list (reference 4.2.2): what the caller asks, what it gets back, and what
// every step of the run shares — the tokens in the order they are tried, the settings read once
// at its start and the instant it runs at.
import type { Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { configFlag, configNumber } from '../system/index.ts';
import { type LoadedToken, tokenLockedError } from '../token/index.ts';
import { type PasswordCheck, presentedTokenCheck } from './four-eyes.ts';
import type { Detail, RequestPolicies } from './policies.ts';

export interface ListOptions {
  pass: string;
  transactionId: string | undefined;
  otponly: boolean;
  user: ResolvedUser | undefined;
  pol: RequestPolicies;
  /** force_challenge_response: PIN+OTP in one step never authenticates. */
  forceChallenge?: boolean;
  /** `exception=1`: a challenge message that cannot be sent fails the request (HTTP 500). */
  exception?: boolean | undefined;
}

export interface ListResult {
  value: boolean;
  detail: Detail;
  /** The token that decided the result, for the audit and the authorization post-checks. */
  token?: LoadedToken;
}

export interface Round {
  rt: Runtime;
  o: ListOptions;
  now: Date;
  /** The candidates as given (reset_all_user_tokens resets them all). */
  candidates: readonly LoadedToken[];
  /** The tokens tried: not revoked, not of a disabled type, in the types' try order. */
  tokens: readonly LoadedToken[];
  /** no_auth_counter: no count_auth* counting. */
  noCounter: boolean;
  prependPin: boolean;
  /** The types whose PIN alone starts a challenge under the challenge_response policy. */
  challengeTypes: readonly string[];
  /** failcounter_clear_timeout in minutes (0 = off). */
  clearFailcountAfter: number;
  /** How a 4eyes token checks the tokens presented to it. */
  checkPresented: PasswordCheck;
}

/**
 * The start of a run (reference 4.2.2, preparation): revoked tokens out (none left: ERR1007), the
 * types of disabled_token_types out, the rest in the types' try order (a stable sort keeps the
 * candidates' order among one weight).
 */
export async function startRound(
  rt: Runtime,
  candidates: readonly LoadedToken[],
  o: ListOptions,
): Promise<Round> {
  const live = candidates.filter((t) => Number(t.row.revoked) !== 1);
  if (live.length === 0) throw tokenLockedError();
  const disabled = o.pol.values('authentication', 'disabled_token_types').map((v) => v.toLowerCase());
  const tokens = live
    .filter((t) => !disabled.includes(t.type.type))
    .sort((a, b) => a.type.tryOrder - b.type.tryOrder);
  const now = rt.clock();
  const noCounter = await configFlag(rt, 'no_auth_counter', false);
  const prependPin = await configFlag(rt, 'PrependPin', true);
  const challengeTypes = o.pol.values('authentication', 'challenge_response').map((v) => v.toLowerCase());
  const clearFailcountAfter = await configNumber(rt, 'failcounter_clear_timeout', 0);
  const checkPresented = presentedTokenCheck(rt, prependPin, noCounter);
  return {
    rt,
    o,
    now,
    candidates,
    tokens,
    noCounter,
    prependPin,
    challengeTypes,
    clearFailcountAfter,
    checkPresented,
  };
}

/** The token keys of a detail: serial, type and otplen. */
export function tokenDetail(t: LoadedToken): Detail {
  return { serial: t.row.serial, type: t.type.type, otplen: t.row.otplen };
}
