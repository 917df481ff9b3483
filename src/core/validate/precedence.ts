// check_token_list's decision (reference 4.2.2, "first non-empty list wins"): every token a check
// tries gets one outcome, and the outcome of the highest rung any token reached decides the answer
// for the whole check. The outcomes are privacyIDEA's lists; the order is the table below.
import type { ChallengeSpec, OtpMatch } from '../../tokens/index.ts';
import type { LoadedToken } from '../token/index.ts';
import type { NextRound } from './challenges.ts';
import type { Detail } from './policies.ts';

/** What one token made of a check. */
export type Outcome =
  /** check_all refused the token (privacyIDEA's reasons). */
  | { kind: 'unusable'; token: LoadedToken; reason: string }
  /** The request answers a challenge of this token in its transaction (challenge-response list). */
  | { kind: 'answering'; token: LoadedToken }
  /** PIN and OTP right (a 4eyes token: its rule met), the value not yet consumed (valid list). */
  | { kind: 'valid'; token: LoadedToken; use: Pick<OtpMatch, 'newCount' | 'newKey' | 'info'> }
  /** Valid, and this request consumed the value: authenticated. */
  | { kind: 'accepted'; token: LoadedToken }
  /** A 4eyes token given some but not all of the tokens it needs: its next round asks the rest. */
  | { kind: 'continuing'; token: LoadedToken; next: NextRound }
  /**
   * The pass is the PIN alone: the token asks a challenge (challenge-request list); or an upstream
   * server asked one (`challenge`, what it asked).
   */
  | { kind: 'requesting'; token: LoadedToken; challenge?: ChallengeSpec }
  /**
   * PIN right, OTP wrong, or its value taken by a concurrent request (pin-matching list); `spent`
   * when the value was right but another request spent it first (a replay, which the fail
   * counter does not count).
   */
  | { kind: 'pinMatching'; token: LoadedToken; otp: string; extra?: Detail; spent?: boolean }
  /** PIN wrong, pass too short, PIN+OTP under force_challenge_response, or no challenge (invalid list). */
  | { kind: 'invalid'; token: LoadedToken };

/** An outcome after the valid tokens' values were consumed: what the decision sees. */
export type Settled = Exclude<Outcome, { kind: 'valid' }>;
export type Verdict = Settled['kind'];

/** The settled outcomes of one kind. */
export type Group<K extends Verdict> = Extract<Settled, { kind: K }>[];

/** The rungs from the highest down: the first one any token reached decides. */
export const PRECEDENCE = [
  // A token proved the user: no other token's failure or challenge matters any more (privacyIDEA's
  // valid list wins; only tokens whose value this request consumed count).
  'accepted',
  // The request answers a challenge of the transaction it names. Only requests with a
  // transaction_id get here, and those accept nothing in one step, so this is their first rung.
  'answering',
  // A 4eyes token got some of the tokens it needs in one step: the two-man rule is under way, so
  // the next round of that transaction comes before any new challenge.
  'continuing',
  // The pass was the PIN that starts a challenge: it was never meant to carry an OTP, so asking
  // comes before calling it a wrong OTP of some other token.
  'requesting',
  // The PIN matched and only the OTP was wrong: the most specific failure, with privacyIDEA's
  // "previous otp used again" when one token says so.
  'pinMatching',
  // Nothing matched the PIN: the generic failure, after anything that got further.
  'invalid',
  // No token could be used at all: only then are check_all's reasons the answer, since a usable
  // token's answer says more.
  'unusable',
] as const satisfies readonly Verdict[];

/** The rung that decides among `outcomes`; undefined when there are none. */
export function decidingVerdict(outcomes: readonly Settled[]): Verdict | undefined {
  return PRECEDENCE.find((kind) => outcomes.some((x) => x.kind === kind));
}

/** The outcomes of one kind, in their order. */
export function groupOf<K extends Verdict>(outcomes: readonly Settled[], kind: K): Group<K> {
  return outcomes.filter((x): x is Extract<Settled, { kind: K }> => x.kind === kind);
}
