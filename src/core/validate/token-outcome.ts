// What one token makes of a check (reference 4.2.2, steps 1–5): after a timed-out fail counter is
// cleared and check_all has had its say, the token answers a challenge, asks one, counts what a
// 4eyes token was shown, or checks PIN and OTP in one step. Nothing is consumed here: a valid
// token's value is consumed once all tokens are judged (check-token-list.ts).
import type { LoadedToken } from '../token/index.ts';
import { tokenState } from '../token/index.ts';
import { challengesOf } from './challenge-store.ts';
import { passwordsOf, presentEyes } from './four-eyes.ts';
import { autoResync, pinOk, splitPass } from './pass.ts';
import type { Outcome } from './precedence.ts';
import type { Round } from './round.ts';
import { forwards, upstreamCheck } from './upstream.ts';
import { clearTimedOutFailcount, unusable } from './usable.ts';

export async function outcomeOf(round: Round, t: LoadedToken): Promise<Outcome> {
  await clearTimedOutFailcount(round.rt, t, round.clearFailcountAfter, round.now);
  const why = unusable(t, round.now);
  if (round.o.transactionId) return transactionOutcome(round, t, round.o.transactionId, why);
  if (why) return { kind: 'unusable', token: t, reason: why };
  if (await startsChallenge(round, t)) return { kind: 'requesting', token: t };
  if (t.type.checksOtherTokens) return presentedOutcome(round, t);
  if (forwards(t)) return forwardedOutcome(round, t);
  return oneStepOutcome(round, t);
}

/**
 * A token of a request naming a transaction. An unfit token still answers, to be told why it
 * cannot be used (privacyIDEA's message), except one at maxfail: the answer to a locked token must
 * not tell whether it was right.
 */
async function transactionOutcome(
  round: Round,
  t: LoadedToken,
  transactionId: string,
  why: string | undefined,
): Promise<Outcome> {
  const locked = t.row.failcount >= t.row.maxfail;
  if (!locked && (await challengesOf(round.rt, transactionId, t.row.serial)).length > 0)
    return { kind: 'answering', token: t };
  return why ? { kind: 'unusable', token: t, reason: why } : { kind: 'invalid', token: t };
}

/** Whether the pass is the PIN that starts a challenge of the token (is_challenge_request). */
async function startsChallenge(round: Round, t: LoadedToken): Promise<boolean> {
  const { o } = round;
  const canRequest =
    !o.otponly &&
    t.type.pinCheckedLocally(tokenState(round.rt, t)) &&
    t.type.challengeCapable &&
    (t.type.challengeAlways || round.challengeTypes.includes(t.type.type));
  return canRequest && (await pinOk(round.rt, t, o.pass, o));
}

/** A 4eyes token in one step: the pass is only the presented tokens' passwords (privacyIDEA's rule). */
async function presentedOutcome(round: Round, t: LoadedToken): Promise<Outcome> {
  const { rt, o } = round;
  const r = await presentEyes(rt, t, passwordsOf(rt, t, o.pass), {}, round.checkPresented);
  if (r.met && !o.forceChallenge) return { kind: 'valid', token: t, use: { newCount: Number(t.row.count) } };
  if (r.progressed) return { kind: 'continuing', token: t, next: { previous: JSON.stringify(r.eyes) } };
  return { kind: 'pinMatching', token: t, otp: '', extra: { foureyes: r.shortfall } };
}

/** PIN and OTP in one step (the OTP checked by the type's checkOtp, then AutoResync). */
async function oneStepOutcome(round: Round, t: LoadedToken): Promise<Outcome> {
  const { rt, o, now } = round;
  const parts = o.otponly ? { pin: '', otp: o.pass } : splitPass(t, o.pass, round.prependPin);
  if (!parts || o.forceChallenge || !(o.otponly || (await pinOk(rt, t, parts.pin, o))))
    return { kind: 'invalid', token: t };
  const match =
    t.type.checkOtp(tokenState(rt, t), parts.otp, now) ?? (await autoResync(rt, t, parts.otp, now));
  return match ? { kind: 'valid', token: t, use: match } : { kind: 'pinMatching', token: t, otp: parts.otp };
}

/**
 * A forwarding token (radius): the PIN checked here if the token says so, the rest of the pass (or
 * all of it) checked by the upstream server, whose Access-Challenge becomes this token's challenge.
 * A refusal after a local PIN is a wrong OTP; without a local PIN, a wrong PIN (privacyIDEA's).
 */
async function forwardedOutcome(round: Round, t: LoadedToken): Promise<Outcome> {
  const { rt, o } = round;
  const localPin = !o.otponly && t.type.pinCheckedLocally(tokenState(rt, t));
  let password = o.pass;
  if (localPin) {
    const parts = splitPass(t, o.pass, round.prependPin);
    if (!parts || o.forceChallenge || !(await pinOk(rt, t, parts.pin, o)))
      return { kind: 'invalid', token: t };
    password = parts.otp;
  }
  const r = await upstreamCheck(round, t, password);
  if (r.kind === 'challenge') return { kind: 'requesting', token: t, challenge: r.challenge };
  // The counter counts the accepted values: its compare-and-set lets one request of several win.
  if (r.kind === 'accept' && !o.forceChallenge)
    return { kind: 'valid', token: t, use: { newCount: Number(t.row.count) + 1 } };
  return localPin ? { kind: 'pinMatching', token: t, otp: password } : { kind: 'invalid', token: t };
}
