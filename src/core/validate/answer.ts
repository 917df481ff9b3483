// The answer to a challenge (reference 4.2.2, the challenge-response list): the pass answers one
// of the live challenges of the transaction, by the token's own check, out of band (the pass empty,
// the challenge already marked answered), or by presenting further tokens to a 4eyes token. The
// first token whose challenge the pass answers decides; with none, every token that waited for an
// interactive answer counts a failure.
import type { OtpMatch } from '../../tokens/index.ts';
import { configFlag } from '../system/index.ts';
import { consumeOtp, incFailcount, type LoadedToken, tokenState } from '../token/index.ts';
import {
  type ChallengeRow,
  challengesOf,
  deleteChallenge,
  deleteTransaction,
  isValid,
} from './challenge-store.ts';
import { challengeDetail, createChallenges } from './challenges.ts';
import { succeeded } from './counting.ts';
import { passwordsOf, presentEyes } from './four-eyes.ts';
import { autoResync } from './pass.ts';
import { type ListResult, type Round, tokenDetail } from './round.ts';
import { forwards, upstreamCheck } from './upstream.ts';
import { unusable } from './usable.ts';

/** How the pass answered a token's challenges: the value consumed or not, or a further round. */
type Answer = { ok: boolean; info?: Record<string, string> | undefined } | { next: ListResult };

export async function answerChallenge(round: Round, tokens: readonly LoadedToken[]): Promise<ListResult> {
  const { rt, now } = round;
  // DefaultResetFailCount: every counter step also clears the fail counter, even of an unfit token.
  const resetOnStep = await configFlag(rt, 'DefaultResetFailCount', false);
  for (const t of tokens) {
    const live = (await challengesOf(rt, round.o.transactionId!, t.row.serial)).filter((c) =>
      isValid(c, now),
    );
    if (live.length === 0) continue;
    const unfit = unusable(t, now);
    const answer = await answerOf(round, t, live, !unfit || resetOnStep);
    if ('next' in answer) return answer.next;
    if (answer.ok) return answered(round, t, unfit, answer.info);
  }
  return unanswered(round, tokens);
}

async function answerOf(
  round: Round,
  t: LoadedToken,
  live: readonly ChallengeRow[],
  resetFailcount: boolean,
): Promise<Answer> {
  if (round.o.pass === '' && live.some((c) => Number(c.otp_valid) === 1)) return { ok: true };
  if (t.type.checksOtherTokens) return presentToFourEyes(round, t, live, resetFailcount);
  if (forwards(t)) return forwardedResponse(round, t, live, resetFailcount);
  return responseOf(round, t, live, resetFailcount);
}

/**
 * The check of a challenge answer (the type's checkResponse, by default its checkOtp), against what
 * each live challenge of the token asked; a type with AutoResync may resynchronise.
 */
async function responseOf(
  round: Round,
  t: LoadedToken,
  live: readonly ChallengeRow[],
  resetFailcount: boolean,
): Promise<Answer> {
  const { rt, o, now } = round;
  const state = tokenState(rt, t);
  let match: OtpMatch | null = null;
  for (const c of live) {
    match = t.type.checkResponse(state, o.pass, c.data, now);
    if (match) break;
  }
  match ??= await autoResync(rt, t, o.pass, now);
  const ok = match !== null && (await consumeOtp(rt, t, match.newCount, match.newKey, resetFailcount));
  return { ok, info: match?.info ?? undefined };
}

/**
 * A forwarding token (radius): the answer goes to the upstream server with what the challenge kept
 * (its State); a further Access-Challenge is the next round of the same transaction.
 */
async function forwardedResponse(
  round: Round,
  t: LoadedToken,
  live: readonly ChallengeRow[],
  resetFailcount: boolean,
): Promise<Answer> {
  const { rt, o } = round;
  for (const c of live) {
    const r = await upstreamCheck(round, t, o.pass, c.data);
    if (r.kind === 'accept')
      return { ok: await consumeOtp(rt, t, Number(t.row.count) + 1, undefined, resetFailcount) };
    if (r.kind === 'challenge') {
      await deleteChallenge(rt, c.id);
      const next = { transactionId: o.transactionId, previous: '' };
      const asked = new Map([[t.row.serial, r.challenge]]);
      const made = await createChallenges(rt, [t], o.pol, { next, asked });
      return { next: { value: false, detail: challengeDetail(made), token: t } };
    }
  }
  return { ok: false };
}

/** 4eyes: the answer presents further tokens; short of the rule, the next round asks again. */
async function presentToFourEyes(
  round: Round,
  t: LoadedToken,
  live: readonly ChallengeRow[],
  resetFailcount: boolean,
): Promise<Answer> {
  const { rt, o } = round;
  for (const c of live) {
    const r = await presentEyes(rt, t, passwordsOf(rt, t, o.pass), c.data, round.checkPresented);
    if (r.met) return { ok: await consumeOtp(rt, t, Number(t.row.count), undefined, resetFailcount) };
    if (r.progressed) {
      await deleteChallenge(rt, c.id);
      const next = { transactionId: o.transactionId, previous: JSON.stringify(r.eyes) };
      const made = await createChallenges(rt, [t], o.pol, { next });
      return { next: { value: false, detail: challengeDetail(made), token: t } };
    }
  }
  return { ok: false };
}

/** A matching answer: authenticated, unless the token is unfit or a burst took its last count. */
async function answered(
  round: Round,
  t: LoadedToken,
  unfit: string | undefined,
  info: Record<string, string> | undefined,
): Promise<ListResult> {
  const notFit = unfit ?? (await succeeded(round.rt, t, info, round.noCounter));
  if (notFit) {
    const message = `Challenge matches, but token is not fit for challenge. ${notFit}`;
    return { value: false, detail: { message, ...tokenDetail(t) }, token: t };
  }
  await deleteTransaction(round.rt, round.o.transactionId!);
  return { value: true, detail: { message: 'Found matching challenge', ...tokenDetail(t) }, token: t };
}

/** No challenge answered: a failure for every token that waited for an answer typed in. */
async function unanswered(round: Round, tokens: readonly LoadedToken[]): Promise<ListResult> {
  for (const t of tokens) if (t.type.clientMode !== 'poll') await incFailcount(round.rt, t, round.now);
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
