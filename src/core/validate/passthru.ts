// passthru to a RADIUS server (reference 4.2.1 #6): a user without tokens whose `passthru` policy
// names a RADIUS server definition is accepted when that server accepts the user's login and
// pass. Then `passthru_assign` may give the user a token: the pass split into PIN and OTP (the
// policy says which comes first and how long the OTP is), the first unassigned token of the
// user's realm whose value within the look-ahead window is that OTP is assigned, with that PIN.
import { ParameterError } from '../../errors.ts';
import { runTransaction } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { radiusAuthenticate } from '../radiusserver/index.ts';
import {
  consumeOtp,
  ownerRecord,
  pinHash,
  resetFailcount,
  setTokenOwner,
  tokenState,
} from '../token/index.ts';
import { unassignedInRealm } from './autoassign.ts';
import type { RequestPolicies } from './policies.ts';
import type { ListResult } from './round.ts';
import { unusable } from './usable.ts';

/** privacyIDEA's look-ahead window of passthru_assign when the policy gives none. */
const DEFAULT_WINDOW = 100;

/** The PIN and OTP of a pass as passthru_assign splits it: `pin:<otplen>[:<window>]` or `<otplen>:pin[:<window>]`. */
export function splitForAssign(
  setting: string,
  pass: string,
): { pin: string; otp: string; window: number } | undefined {
  const parts = setting.split(':');
  const pinFirst = parts[0] === 'pin';
  const lengthText = pinFirst ? parts[1] : parts[0];
  if (parts.length < 2 || (!pinFirst && parts[1] !== 'pin') || !/^\d+$/.test(lengthText ?? ''))
    throw new ParameterError(
      `Invalid passthru_assign '${setting}': use pin:<otp length>[:<window>] or <otp length>:pin[:<window>]`,
    );
  const otplen = Number(lengthText);
  const window = parts[2] !== undefined && /^\d+$/.test(parts[2]) ? Number(parts[2]) : DEFAULT_WINDOW;
  if (pass.length < otplen) return undefined;
  return pinFirst
    ? { pin: pass.slice(0, pass.length - otplen), otp: pass.slice(pass.length - otplen), window }
    : { pin: pass.slice(otplen), otp: pass.slice(0, otplen), window };
}

/** passthru_assign after a successful passthru: the serial assigned, or undefined. */
async function assignByOtp(
  rt: Runtime,
  user: ResolvedUser,
  setting: string,
  pass: string,
): Promise<string | undefined> {
  const split = splitForAssign(setting, pass);
  if (!split) return undefined;
  const now = rt.clock();
  for (const t of await unassignedInRealm(rt, user.realm)) {
    if (!t.type.otpSearchable || unusable(t, now) || t.row.locked === 1) continue;
    const match = t.type.searchOtp(tokenState(rt, t), split.otp, split.window, now);
    if (!match || !(await consumeOtp(rt, t, match.newCount, match.newKey))) continue;
    const pin = await pinHash(split.pin);
    await runTransaction(rt.store, async (trx) => {
      await setTokenOwner(trx, t.row.id, ownerRecord(user));
      await resetFailcount(trx, t.row.id, pin);
    });
    return t.row.serial;
  }
  return undefined;
}

/**
 * passthru=<RADIUS server identifier>: the answer when the server accepts the user's login and
 * pass; undefined when it does not (or cannot be reached), so that the check goes on.
 */
export async function passthruToRadius(
  rt: Runtime,
  pol: RequestPolicies,
  user: ResolvedUser,
  pass: string,
  identifier: string,
  policy: string,
): Promise<ListResult | undefined> {
  const answer = await radiusAuthenticate(rt, { identifier, user: user.login, password: pass });
  if (answer.kind !== 'accept') return undefined;
  const messages: string[] = [];
  const assign = pol.value('authentication', 'passthru_assign');
  if (assign) {
    // A malformed policy value must not turn an accepted login into an error: it is logged.
    const serial = await assignByOtp(rt, user, assign, pass).catch((e: Error) => {
      rt.log.warn({ policy }, e.message);
      return undefined;
    });
    if (serial) messages.push(`auto-assigned ${serial}`);
  }
  messages.push(`against RADIUS server ${identifier} due to '${policy}'`);
  return { value: true, detail: { message: messages.join(',') } };
}
