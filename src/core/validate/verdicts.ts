// The answer of each rung of the precedence (precedence.ts) with its side effects (reference
// 4.2.2, the decision table): the result of the check when that rung decides it.
import { configFlag } from '../system/index.ts';
import { incFailcount, resetFailcounts, tokenState } from '../token/index.ts';
import { answerChallenge } from './answer.ts';
import { challengeDetail, createChallenges } from './challenges.ts';
import { countFailure } from './counting.ts';
import type { Detail } from './policies.ts';
import type { Group, Verdict } from './precedence.ts';
import { type ListResult, type Round, tokenDetail } from './round.ts';

type Decide<K extends Verdict> = (group: Group<K>, round: Round) => Promise<ListResult>;

/** The answer of a check decided by each rung. */
export const VERDICTS: { readonly [K in Verdict]: Decide<K> } = {
  accepted: authenticated,
  answering: answerChallenges,
  continuing: nextRound,
  requesting: askChallenges,
  pinMatching: wrongOtp,
  invalid: wrongPin,
  unusable: notUsable,
};

/** Decides a check by the rung `kind`, with its group of outcomes. */
export function decide<K extends Verdict>(kind: K, group: Group<K>, round: Round): Promise<ListResult> {
  return VERDICTS[kind](group, round);
}

/**
 * Success: reset_all_user_tokens clears the fail counters of all the candidates; the detail names
 * the token when one authenticated, and the type 'undetermined' when several of several types did.
 */
async function authenticated(group: Group<'accepted'>, round: Round): Promise<ListResult> {
  const { rt, o } = round;
  const accepted = group.map((x) => x.token);
  if (o.user && o.pol.isSet('authentication', 'reset_all_user_tokens')) {
    const ids = round.candidates.map((t) => t.row.id);
    await resetFailcounts(rt.store.db, ids);
  }
  const detail: Detail = { message: `matching ${accepted.length} tokens` };
  if (accepted.length === 1) Object.assign(detail, tokenDetail(accepted[0]!));
  else if (new Set(accepted.map((t) => t.type.type)).size > 1) detail.type = 'undetermined';
  return { value: true, detail, token: accepted.length === 1 ? accepted[0] : undefined };
}

/** The answer to the challenges of the transaction (answer.ts). */
function answerChallenges(group: Group<'answering'>, round: Round): Promise<ListResult> {
  return answerChallenge(
    round,
    group.map((x) => x.token),
  );
}

/** The next round of the first 4eyes token that got part of what it needs. */
async function nextRound(group: Group<'continuing'>, round: Round): Promise<ListResult> {
  const { token, next } = group[0]!;
  const made = await createChallenges(round.rt, [token], round.o.pol, { next });
  return { value: false, detail: challengeDetail(made), token };
}

/** Challenges for every requesting token, after a failure each under increase_failcounter_on_challenge. */
async function askChallenges(group: Group<'requesting'>, round: Round): Promise<ListResult> {
  const { rt, o } = round;
  const tokens = group.map((x) => x.token);
  if (o.pol.isSet('authentication', 'increase_failcounter_on_challenge')) {
    for (const t of tokens) await incFailcount(rt, t, round.now);
  }
  const asked = new Map(
    group.flatMap((x) => (x.challenge ? [[x.token.row.serial, x.challenge] as const] : [])),
  );
  const made = await createChallenges(rt, tokens, o.pol, { exception: o.exception, asked });
  return { value: false, detail: challengeDetail(made), token: tokens.at(-1) };
}

/**
 * A failure for each token whose PIN matched; one token tells whether its previous OTP was reused.
 * A value the token already spent (a replay, maybe by a stranger who sniffed it) does not raise
 * its fail counter: replays must not lock the token (the throttling counts them per address).
 */
async function wrongOtp(group: Group<'pinMatching'>, round: Round): Promise<ListResult> {
  const { rt, now } = round;
  for (const { token, otp, spent } of group) {
    const replay = spent === true || (otp !== '' && token.type.usedOtp(tokenState(rt, token), otp, now));
    if (!replay) await incFailcount(rt, token, now);
    await countFailure(rt, token, round.noCounter);
  }
  if (group.length > 1) return { value: false, detail: { message: 'wrong otp value' } };
  const { token, otp, extra } = group[0]!;
  const previous = otp !== '' && token.type.previousOtp(tokenState(rt, token), now) === otp;
  const message = previous ? 'wrong otp value. previous otp used again' : 'wrong otp value';
  return { value: false, detail: { message, ...tokenDetail(token), ...extra }, token };
}

/** A failure for every token under IncFailCountOnFalsePin (default true). */
async function wrongPin(group: Group<'invalid'>, round: Round): Promise<ListResult> {
  const { rt, now } = round;
  if (await configFlag(rt, 'IncFailCountOnFalsePin', true)) {
    for (const { token } of group) {
      await incFailcount(rt, token, now);
      await countFailure(rt, token, round.noCounter);
    }
  }
  const token = group.length === 1 ? group[0]!.token : undefined;
  return { value: false, detail: { message: 'wrong otp pin' }, token };
}

/** check_all's reasons, each once, in the order they came. */
async function notUsable(group: Group<'unusable'>, round: Round): Promise<ListResult> {
  const token = round.tokens.length === 1 ? round.tokens[0] : undefined;
  const message = [...new Set(group.map((x) => x.reason))].join(', ');
  return { value: false, detail: { message }, token };
}
