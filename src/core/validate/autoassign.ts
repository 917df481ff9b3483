// autoassignment (reference 4.2.3 #1): a failed /validate/check of an existing user without tokens
// tries every unassigned token of the user's realm with the pass split into PIN and OTP; the first
// token whose OTP matches is assigned to the user, with the PIN part as its PIN.

import { runTransaction } from '../../store/index.ts';
import { type Runtime, withCaller } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { configFlag } from '../system/index.ts';
import {
  checkTokenLimits,
  consumeOtp,
  enrollmentValue,
  type LoadedToken,
  loadRows,
  ownerRecord,
  pinHash,
  resetFailcount,
  setTokenOwner,
  tokenState,
  tokensOfOwner,
} from '../token/index.ts';
import { splitPass } from './pass.ts';
import type { ListResult } from './round.ts';
import { unusable } from './usable.ts';

export const AUTOASSIGNED = 'Token assigned to user via Autoassignment';

/** The tokens without owner that are in the realm (by serial, so the first match is stable). */
export async function unassignedInRealm(rt: Runtime, realm: string): Promise<LoadedToken[]> {
  const rows = await rt.store.db
    .selectFrom('token')
    .innerJoin('tokenrealm', 'tokenrealm.token_id', 'token.id')
    .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
    .selectAll('token')
    .where('realm.name', '=', realm.toLowerCase())
    .where((eb) =>
      eb.not(
        eb.exists(
          eb.selectFrom('tokenowner').select('token_id').whereRef('tokenowner.token_id', '=', 'token.id'),
        ),
      ),
    )
    .orderBy('token.serial')
    .execute();
  return loadRows(rt, rows);
}

/**
 * The post-processing step: `res` unchanged unless it failed, the user exists, has no tokens and
 * the enrollment policy `autoassignment` (any_pin | userstore) applies and a token matches.
 */
export async function autoassign(
  rt: Runtime,
  client: string,
  user: ResolvedUser | undefined,
  pass: string,
  res: ListResult,
): Promise<ListResult> {
  if (res.value || !user) return res;
  const ctx = withCaller(rt, {
    role: 'user',
    username: user.login,
    realm: user.realm,
    authtype: 'password',
    client,
  });
  const mode = await enrollmentValue(ctx, { owner: user }, 'autoassignment');
  if (mode !== 'any_pin' && mode !== 'userstore') return res;
  if ((await tokensOfOwner(rt, user.resolver, user.userid)).length > 0) return res;
  const prependPin = await configFlag(rt, 'PrependPin', true);
  for (const t of await unassignedInRealm(rt, user.realm)) {
    if (!t.type.hasOtp || unusable(t, rt.clock()) || t.row.locked === 1) continue;
    const parts = splitPass(t, pass, prependPin);
    if (!parts) continue;
    if (mode === 'userstore' && !(await user.store.checkPassword(user.info, parts.pin).catch(() => false)))
      continue;
    const match = t.type.checkOtp(tokenState(rt, t), parts.otp, rt.clock());
    if (!match) continue;
    // max_token_per_user / _per_realm refuse before the OTP is used up.
    await checkTokenLimits(ctx, user, user.realm, t.row.tokentype, undefined);
    if (!(await consumeOtp(rt, t, match.newCount, match.newKey))) continue;
    const pin = await pinHash(parts.pin);
    await runTransaction(rt.store, async (trx) => {
      await setTokenOwner(trx, t.row.id, ownerRecord(user));
      await resetFailcount(trx, t.row.id, pin);
    });
    return {
      value: true,
      detail: { serial: t.row.serial, otplen: t.row.otplen, type: t.type.type, message: AUTOASSIGNED },
      token: t,
    };
  }
  return res;
}
