// check_token_list (reference 4.2.2): which of the candidate tokens a pass authenticates, asks a
// challenge of, or answers a challenge of, with the side effects on counters and the exact
// messages. The OTP itself is checked by the token type: search for `checkOtp`.

import { TokenAdminError } from '../../errors.ts';
import { HotpType, type OtpMatch } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { configFlag, configNumber } from '../system/index.ts';
import {
  bumpInfoCounterBelow,
  bumpInfoCounters,
  consumeOtp,
  counterValue,
  deleteTokenInfo,
  deleteTokenRows,
  incFailcount,
  type LoadedToken,
  pinMatches,
  setTokenInfoRacing,
  tokenState,
} from '../token/index.ts';
import { challengesOf, deleteChallenge, deleteTransaction, isValid } from './challenge-store.ts';
import { challengeDetail, createChallenges, type NextRound } from './challenges.ts';
import { type EyesOutcome, type PasswordCheck, passwordsOf, presentEyes } from './four-eyes.ts';
import type { Detail, RequestPolicies } from './policies.ts';

export interface ListOptions {
  pass: string;
  transactionId: string | undefined;
  otponly: boolean;
  user: ResolvedUser | undefined;
  pol: RequestPolicies;
  /** force_challenge_response: PIN+OTP in one step never authenticates. */
  forceChallenge?: boolean;
}

export interface ListResult {
  value: boolean;
  detail: Detail;
  /** The token that decided the result, for the audit and the authorization post-checks. */
  token?: LoadedToken;
}

const STORED_MINUTE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(?:([+-]\d{2}):?(\d{2}))?$/;

/**
 * A stored date `YYYY-MM-DDThh:mm+oooo` (validity, failcounter_exceeded) in ms, also with seconds
 * or `+hh:mm`; NaN when unreadable. A value without an offset is read as UTC or as unreadable.
 */
function storedMinuteTime(text: string | undefined, withoutOffset: 'utc' | 'unreadable'): number {
  const m = text ? STORED_MINUTE.exec(text) : null;
  if (!m || (m[4] === undefined && withoutOffset === 'unreadable')) return Number.NaN;
  const zone = m[4] === undefined ? 'Z' : `${m[4]}:${m[5]}`;
  return Date.parse(`${m[1]}T${m[2]}${m[3] ?? ':00'}${zone}`);
}

/** Whether `now` is outside the token's validity_period_start … validity_period_end. */
function outsideValidity(t: LoadedToken, now: Date): boolean {
  const start = storedMinuteTime(t.info.validity_period_start, 'unreadable');
  const end = storedMinuteTime(t.info.validity_period_end, 'unreadable');
  // An unreadable date that is set counts as outside: a token never gets more validity than meant.
  if (
    (t.info.validity_period_start && Number.isNaN(start)) ||
    (t.info.validity_period_end && Number.isNaN(end))
  )
    return true;
  return now.getTime() < start || now.getTime() > end;
}

const COUNTER_EXCEEDED = 'Authentication counter exceeded';

/** A counting tokeninfo value, or a limit, as the checks read it (leading integer, else 0). */
const infoNumber = (t: LoadedToken, key: string) => counterValue(t.info[key]);

/** The counters a success adds to, with their limits (count_auth_max …; 0 = no limit). */
function successCounters(t: LoadedToken): { key: string; max: number }[] {
  return [
    { key: 'count_auth', max: infoNumber(t, 'count_auth_max') },
    { key: 'count_auth_success', max: infoNumber(t, 'count_auth_success_max') },
  ];
}

/** Why a token cannot be used now, or undefined (check_all). */
export function unusable(t: LoadedToken, now: Date): string | undefined {
  if (successCounters(t).some(({ key, max }) => max > 0 && infoNumber(t, key) >= max))
    return COUNTER_EXCEEDED;
  if (Number(t.row.active) !== 1) return 'Token is disabled';
  if (t.row.failcount >= t.row.maxfail) return 'Failcounter exceeded';
  if (outsideValidity(t, now)) return 'Outside validity period';
  if (t.row.rollout_state === 'clientwait' || t.row.rollout_state === 'verify')
    return 'Token is not yet enrolled';
  return undefined;
}

/** The PIN check under the otppin policy (reference 4.5). */
async function pinOk(rt: Runtime, t: LoadedToken, pin: string, o: ListOptions): Promise<boolean> {
  const mode = o.pol.value('authentication', 'otppin') ?? 'tokenpin';
  if (mode === 'none') return pin === '';
  if (mode === 'userstore') {
    const u = o.user;
    if (!u) return false;
    try {
      return await u.store.checkPassword(u.info, pin);
    } catch {
      return false;
    }
  }
  return pinMatches(t, pin, rt);
}

/**
 * How a 4eyes token checks the password of a token presented to it: the token's own PIN and OTP
 * in one step (no challenge, no policies of the request), consuming the value.
 */
function presentedTokenCheck(rt: Runtime, prependPin: boolean, noCounter: boolean): PasswordCheck {
  return async (t, pass) => {
    if (Number(t.row.revoked) === 1 || unusable(t, rt.clock()) || t.type.checksOtherTokens) return false;
    const parts = splitPass(t, pass, prependPin);
    if (!parts || !(await pinMatches(t, parts.pin, rt))) return false;
    const match = t.type.checkOtp(tokenState(rt, t), parts.otp, rt.clock());
    if (!match || !(await consumeOtp(rt, t, match.newCount, match.newKey))) return false;
    return (await succeeded(rt, t, match.info, noCounter)) === undefined;
  };
}

/** PIN and OTP parts of a password (PrependPin: PIN first); undefined when too short. */
export function splitPass(
  t: LoadedToken,
  pass: string,
  prependPin: boolean,
): { pin: string; otp: string } | undefined {
  if (!t.type.hasOtp) return { pin: pass, otp: '' };
  const n = t.row.otplen;
  if (pass.length < n) return undefined;
  return prependPin || t.type.pinAlwaysFirst
    ? { pin: pass.slice(0, pass.length - n), otp: pass.slice(pass.length - n) }
    : { pin: pass.slice(n), otp: pass.slice(0, n) };
}

function tokenDetail(t: LoadedToken): Detail {
  return { serial: t.row.serial, type: t.type.type, otplen: t.row.otplen };
}

async function countFailure(rt: Runtime, t: LoadedToken, noCounter: boolean): Promise<void> {
  if (!noCounter) await bumpInfoCounters(rt, t, ['count_auth']);
}

/**
 * Counts a success in count_auth and count_auth_success (one UPDATE for both when neither has a
 * limit). A counter with a limit is counted only below it, by the database, so that of a burst of
 * requests that all loaded the token below its limit only as many pass as the limit leaves; the
 * others get COUNTER_EXCEEDED, as one more request after them would from unusable().
 */
async function countSuccess(rt: Runtime, t: LoadedToken, noCounter: boolean): Promise<string | undefined> {
  if (noCounter) return undefined;
  const counters = successCounters(t);
  if (counters.every((c) => c.max <= 0)) {
    await bumpInfoCounters(
      rt,
      t,
      counters.map((c) => c.key),
    );
    return undefined;
  }
  // In order: a success refused at count_auth_max counts nowhere, one refused at
  // count_auth_success_max counts as an attempt only.
  for (const { key, max } of counters) {
    if (max <= 0) await bumpInfoCounters(rt, t, [key]);
    else if (!(await bumpInfoCounterBelow(rt, t, key, max))) return COUNTER_EXCEEDED;
  }
  return undefined;
}

/**
 * The bookkeeping of a token that authenticated (the counter was already consumed); the reason
 * when a burst of concurrent requests took the last counts under its limit (the success is void).
 */
async function succeeded(
  rt: Runtime,
  t: LoadedToken,
  info: Record<string, string> | undefined,
  noCounter: boolean,
): Promise<string | undefined> {
  if (t.type.singleUse) {
    await deleteTokenRows(rt.store.db, t);
    return undefined;
  }
  if (info && Object.keys(info).length > 0) await setTokenInfoRacing(rt, t.row.id, info);
  return countSuccess(rt, t, noCounter);
}

/**
 * check_reset_failcount (reference 4.2.2): a token at maxfail whose failcounter_exceeded is older
 * than failcounter_clear_timeout minutes (0 = off) gets its fail counter back to 0.
 */
async function clearTimedOutFailcount(rt: Runtime, t: LoadedToken, timeoutMinutes: number, now: Date) {
  if (timeoutMinutes <= 0 || t.row.failcount < t.row.maxfail) return;
  // With its offset (a token from privacyIDEA may carry the server's zone); without one, UTC.
  const at = storedMinuteTime(t.info.failcounter_exceeded, 'utc');
  if (!Number.isFinite(at) || now.getTime() <= at + timeoutMinutes * 60_000) return;
  await rt.store.db.updateTable('token').set({ failcount: 0 }).where('id', '=', t.row.id).execute();
  await deleteTokenInfo(rt.store.db, t.row.id, 'failcounter_exceeded');
  t.row.failcount = 0;
  delete t.info.failcounter_exceeded;
}

/** AutoResync of a HOTP token whose OTP missed the window (reference 4.5); off unless configured. */
async function autoResync(rt: Runtime, t: LoadedToken, otp: string, now: Date): Promise<OtpMatch | null> {
  if (!(t.type instanceof HotpType) || t.type.type !== 'hotp') return null;
  if (!(await configFlag(rt, 'AutoResync', false))) return null;
  const timeout = await configNumber(rt, 'AutoResyncTimeout', 300);
  const step = t.type.autoResync(tokenState(rt, t), otp, now, timeout);
  if (step.forget) {
    await deleteTokenInfo(rt.store.db, t.row.id, 'otp1c');
    await deleteTokenInfo(rt.store.db, t.row.id, 'dueDate');
  }
  if (step.remember) await setTokenInfoRacing(rt, t.row.id, step.remember);
  return step.match;
}

function weight(t: LoadedToken): number {
  return t.type.type === 'push' ? 1000 : t.type.type.charCodeAt(0);
}

export async function checkTokenList(
  rt: Runtime,
  candidates: readonly LoadedToken[],
  o: ListOptions,
): Promise<ListResult> {
  const live = candidates.filter((t) => Number(t.row.revoked) !== 1);
  if (live.length === 0)
    throw new TokenAdminError('This action is not possible, since the token is locked', 1007);
  const disabled = o.pol.values('authentication', 'disabled_token_types').map((v) => v.toLowerCase());
  const tokens = live.filter((t) => !disabled.includes(t.type.type)).sort((a, b) => weight(a) - weight(b));
  const now = rt.clock();
  const noCounter = await configFlag(rt, 'no_auth_counter', false);
  const prependPin = await configFlag(rt, 'PrependPin', true);
  const crTypes = o.pol.values('authentication', 'challenge_response').map((v) => v.toLowerCase());

  const reasons: string[] = [];
  const valid: {
    t: LoadedToken;
    newCount: number;
    newKey?: Buffer | undefined;
    info?: Record<string, string> | undefined;
  }[] = [];
  const pinMatching: { t: LoadedToken; otp: string; extra?: Detail }[] = [];
  /** 4eyes tokens given some but not all of the tokens they need: the next round asks for the rest. */
  const continuing: { t: LoadedToken; next: NextRound }[] = [];
  const checkPresented = presentedTokenCheck(rt, prependPin, noCounter);
  const invalid: LoadedToken[] = [];
  const answering: LoadedToken[] = [];
  const requesting: LoadedToken[] = [];
  const clearTimeout = await configNumber(rt, 'failcounter_clear_timeout', 0);
  for (const t of tokens) {
    await clearTimedOutFailcount(rt, t, clearTimeout, now);
    const why = unusable(t, now);
    if (o.transactionId) {
      // An unfit token still answers, to be told why it cannot be used (privacyIDEA's message),
      // except one at maxfail: the answer to a locked token must not tell whether it was right.
      const locked = t.row.failcount >= t.row.maxfail;
      if (!locked && (await challengesOf(rt, o.transactionId, t.row.serial)).length > 0) answering.push(t);
      else if (why) reasons.push(why);
      else invalid.push(t);
      continue;
    }
    if (why) {
      reasons.push(why);
      continue;
    }
    const canRequest =
      !o.otponly && t.type.challengeCapable && (t.type.challengeAlways || crTypes.includes(t.type.type));
    if (canRequest && (await pinOk(rt, t, o.pass, o))) {
      requesting.push(t);
      continue;
    }
    if (t.type.checksOtherTokens) {
      // In one step the pass is only the presented tokens' passwords (privacyIDEA's rule).
      const r = await presentEyes(rt, t, passwordsOf(rt, t, o.pass), {}, checkPresented);
      if (r.met && !o.forceChallenge) valid.push({ t, newCount: Number(t.row.count) });
      else if (r.progressed) continuing.push({ t, next: { previous: JSON.stringify(r.eyes) } });
      else pinMatching.push({ t, otp: '', extra: { foureyes: r.shortfall } });
      continue;
    }
    const parts = o.otponly ? { pin: '', otp: o.pass } : splitPass(t, o.pass, prependPin);
    if (!parts || o.forceChallenge || !(o.otponly || (await pinOk(rt, t, parts.pin, o)))) {
      invalid.push(t);
      continue;
    }
    // The OTP check of PIN+OTP in one step (the type's checkOtp).
    const match =
      t.type.checkOtp(tokenState(rt, t), parts.otp, now) ?? (await autoResync(rt, t, parts.otp, now));
    if (match) valid.push({ t, newCount: match.newCount, newKey: match.newKey, info: match.info });
    else pinMatching.push({ t, otp: parts.otp });
  }

  // The compare-and-set decides which of concurrent requests carrying one OTP is the one.
  const accepted: LoadedToken[] = [];
  for (const v of valid) {
    if (await consumeOtp(rt, v.t, v.newCount, v.newKey)) {
      const refused = await succeeded(rt, v.t, v.info, noCounter);
      if (refused) reasons.push(refused);
      else accepted.push(v.t);
    } else pinMatching.push({ t: v.t, otp: '' });
  }
  if (accepted.length > 0) {
    if (o.user && o.pol.isSet('authentication', 'reset_all_user_tokens')) {
      await rt.store.db
        .updateTable('token')
        .set({ failcount: 0 })
        .where(
          'id',
          'in',
          candidates.map((t) => t.row.id),
        )
        .execute();
    }
    const detail: Detail = { message: `matching ${accepted.length} tokens` };
    if (accepted.length === 1) Object.assign(detail, tokenDetail(accepted[0]!));
    else if (new Set(accepted.map((t) => t.type.type)).size > 1) detail.type = 'undetermined';
    return { value: true, detail, token: accepted.length === 1 ? accepted[0] : undefined };
  }

  if (answering.length > 0) return answerChallenge(rt, answering, o, noCounter, checkPresented);

  if (continuing.length > 0) {
    const { t, next } = continuing[0]!;
    const entries = await createChallenges(rt, [t], o.pol, next);
    return { value: false, detail: challengeDetail(entries), token: t };
  }

  if (requesting.length > 0) {
    if (o.pol.isSet('authentication', 'increase_failcounter_on_challenge')) {
      for (const t of requesting) await incFailcount(rt, t, now);
    }
    const entries = await createChallenges(rt, requesting, o.pol);
    return { value: false, detail: challengeDetail(entries), token: requesting.at(-1) };
  }

  if (pinMatching.length > 0) {
    for (const { t } of pinMatching) {
      await incFailcount(rt, t, now);
      await countFailure(rt, t, noCounter);
    }
    if (pinMatching.length === 1) {
      const { t, otp, extra } = pinMatching[0]!;
      const previous = otp !== '' && t.type.previousOtp(tokenState(rt, t), now) === otp;
      const message = previous ? 'wrong otp value. previous otp used again' : 'wrong otp value';
      return { value: false, detail: { message, ...tokenDetail(t), ...extra }, token: t };
    }
    return { value: false, detail: { message: 'wrong otp value' } };
  }

  if (invalid.length > 0) {
    if (await configFlag(rt, 'IncFailCountOnFalsePin', true)) {
      for (const t of invalid) {
        await incFailcount(rt, t, now);
        await countFailure(rt, t, noCounter);
      }
    }
    return {
      value: false,
      detail: { message: 'wrong otp pin' },
      token: invalid.length === 1 ? invalid[0] : undefined,
    };
  }

  if (reasons.length > 0) {
    const token = tokens.length === 1 ? tokens[0] : undefined;
    return { value: false, detail: { message: [...new Set(reasons)].join(', ') }, token };
  }
  return { value: false, detail: { message: 'No suitable token found for authentication.' } };
}

/** The challenge-response list: the pass is the answer to a challenge of the transaction. */
async function answerChallenge(
  rt: Runtime,
  tokens: readonly LoadedToken[],
  o: ListOptions,
  noCounter: boolean,
  checkPresented: PasswordCheck,
): Promise<ListResult> {
  const now = rt.clock();
  const tid = o.transactionId!;
  // DefaultResetFailCount: every counter step also clears the fail counter, even of an unfit token.
  const resetOnStep = await configFlag(rt, 'DefaultResetFailCount', false);
  for (const t of tokens) {
    const live = (await challengesOf(rt, tid, t.row.serial)).filter((c) => isValid(c, now));
    if (live.length === 0) continue;
    const answeredOutOfBand = o.pass === '' && live.some((c) => Number(c.otp_valid) === 1);
    let ok = answeredOutOfBand;
    let info: Record<string, string> | undefined;
    const unfit = unusable(t, now);
    if (!ok && t.type.checksOtherTokens) {
      // 4eyes: the answer presents further tokens; short of the rule, the next round asks again.
      for (const c of live) {
        const r: EyesOutcome = await presentEyes(rt, t, passwordsOf(rt, t, o.pass), c.data, checkPresented);
        if (r.met) {
          ok = await consumeOtp(rt, t, Number(t.row.count), undefined, !unfit || resetOnStep);
          break;
        }
        if (r.progressed) {
          await deleteChallenge(rt, c.id);
          const next = { transactionId: tid, previous: JSON.stringify(r.eyes) };
          const entries = await createChallenges(rt, [t], o.pol, next);
          return { value: false, detail: challengeDetail(entries), token: t };
        }
      }
    } else if (!ok) {
      // The check of a challenge answer (the type's checkResponse, by default its checkOtp),
      // against what each live challenge of the token asked; HOTP may resynchronise (AutoResync).
      const state = tokenState(rt, t);
      let match: OtpMatch | null = null;
      for (const c of live) {
        match = t.type.checkResponse(state, o.pass, c.data, now);
        if (match) break;
      }
      match ??= await autoResync(rt, t, o.pass, now);
      ok = match !== null && (await consumeOtp(rt, t, match.newCount, match.newKey, !unfit || resetOnStep));
      info = match?.info ?? undefined;
    }
    if (ok) {
      // An unfit token, or one whose last count a concurrent burst took, answered for nothing.
      const notFit = unfit ?? (await succeeded(rt, t, info, noCounter));
      if (notFit) {
        const message = `Challenge matches, but token is not fit for challenge. ${notFit}`;
        return { value: false, detail: { message, ...tokenDetail(t) }, token: t };
      }
      await deleteTransaction(rt, tid);
      return { value: true, detail: { message: 'Found matching challenge', ...tokenDetail(t) }, token: t };
    }
  }
  for (const t of tokens) if (t.type.clientMode !== 'poll') await incFailcount(rt, t, now);
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
