// The password of a check (reference 4.5): its PIN and OTP parts, the PIN check under the otppin
// policy, and AutoResync for an OTP that missed the window (for the types that have it).
import type { OtpMatch } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { configFlag, configNumber } from '../system/index.ts';
import {
  deleteTokenInfo,
  type LoadedToken,
  pinMatches,
  setTokenInfoRacing,
  tokenState,
} from '../token/index.ts';
import type { RequestPolicies } from './policies.ts';

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

/** The PIN check under the otppin policy (reference 4.5). */
export async function pinOk(
  rt: Runtime,
  t: LoadedToken,
  pin: string,
  request: { pol: RequestPolicies; user: ResolvedUser | undefined },
): Promise<boolean> {
  const mode = request.pol.value('authentication', 'otppin') ?? 'tokenpin';
  if (mode === 'none') return pin === '';
  if (mode === 'userstore') {
    const u = request.user;
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
 * AutoResync of a token whose OTP missed the window (reference 4.5): off unless configured, and
 * only for a type that has the step (HOTP).
 */
export async function autoResync(
  rt: Runtime,
  t: LoadedToken,
  otp: string,
  now: Date,
): Promise<OtpMatch | null> {
  if (!t.type.autoResync) return null;
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
