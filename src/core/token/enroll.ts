// POST /token/init (reference 3.3): enrollment with its pre-policies (token limits,
// require_description, PIN rules, label/issuer, per-type defaults, verify_enrollment); the type
// makes the secret and the enrollment detail, this file stores the token.
import { ERR, ParameterError, PolicyError, ResourceNotFoundError, TokenAdminError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import { findTokenType, planTwoStep } from '../../tokens/index.ts';
import { actionValue, allow, isAllowed } from '../access/index.ts';
import type { Context } from '../context.ts';
import { type ResolvedUser, realmExists } from '../directory/index.ts';
import { checkLength, cutChars, LIMITS } from '../limits.ts';
import { checkDescription, checkTokenLimits } from './enrollment-limits.ts';
import {
  type EnrollmentSubject,
  enrollmentIsSet,
  enrollmentValue,
  enrollmentValues,
} from './enrollment-policy.ts';
import { ownerOf, ownerRecord, targetOfOwner } from './owner.ts';
import { checkPinPolicy, nextPinChange, randomPinFor } from './pin-policy.ts';
import { TOKEN_LOCKED } from './select.ts';
import { checkSerial, generateSerial } from './serial.ts';
import { intSetting, typeSettings } from './settings.ts';
import {
  consumeOtp,
  findToken,
  loadRows,
  pinHash,
  sealKey,
  setTokenInfo,
  setTokenOwner,
  setTokenRealms,
  tokenState,
  validityDate,
} from './store.ts';

/** `2025-01-31T10:00:00+00:00`: privacyIDEA's creation_date form. */
function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

export interface InitResult {
  serial: string;
  detail: Record<string, unknown>;
}

/** `{givenname}` / `{surname}` of a label or issuer from the owner's attributes. */
function withNames(text: string, owner: ResolvedUser | undefined): string {
  const attr = (k: string) => {
    const v = owner?.info[k];
    return typeof v === 'string' ? v : '';
  };
  return text.replace(/\{givenname\}/g, attr('givenname')).replace(/\{surname\}/g, attr('surname'));
}

/** The types whose enrollment can be verified with an OTP value (verify_enrollment). */
const VERIFIABLE = new Set(['hotp', 'totp']);
const VERIFY_MESSAGE = 'Please enter a valid OTP value of the new token.';

/**
 * The second step of a verified enrollment (`serial` + `verify=<OTP>`): a valid value of the new
 * token (consumed) ends the rollout state `verify`; the token is then `enrolled`.
 */
async function verifyEnrollment(
  ctx: Context,
  serial: string | undefined,
  otp: string,
  owner: ResolvedUser | undefined,
): Promise<InitResult> {
  if (!serial) throw ParameterError.missing('serial');
  const t = await findToken(ctx, serial);
  if (!t) throw new ResourceNotFoundError(`The requested token could not be found.`);
  if (
    ctx.caller.role === 'user' &&
    !(owner && t.owner?.userId === owner.userid && t.owner.resolver === owner.resolver)
  )
    throw new PolicyError('User actions are defined, but the action enroll is not allowed!');
  if (t.row.locked === 1) throw new TokenAdminError(TOKEN_LOCKED, ERR.TokenLocked);
  if (t.row.rollout_state !== 'verify')
    throw new ParameterError(`The token ${serial} is not waiting for the verification of its enrollment.`);
  const match = t.type.checkOtp(tokenState(ctx, t), otp, ctx.clock());
  if (!match || !(await consumeOtp(ctx, t, match.newCount)))
    throw new ParameterError('Verification of the new token failed.');
  await ctx.store.db.transaction().execute(async (trx) => {
    await trx.updateTable('token').set({ rollout_state: 'enrolled' }).where('id', '=', t.row.id).execute();
    if (match.info) await setTokenInfo(ctx, trx, t.row.id, match.info);
  });
  return { serial, detail: { serial, rollout_state: 'enrolled' } };
}

/** POST /token/init: creates a token, or re-keys an existing one of the same type. */
export async function initToken(ctx: Context, given: Readonly<Record<string, string>>): Promise<InitResult> {
  const params: Record<string, string> = { ...given };
  const typeName = params.type || 'hotp';
  const type = findTokenType(typeName);
  if (!type)
    throw new TokenAdminError(`init token failed. Unknown token type: ${typeName}`, ERR.UnknownTokenType);
  checkLength('serial', params.serial, LIMITS.serial);
  checkLength('otpkey', params.otpkey, LIMITS.otpkey);
  const owner = await ownerOf(ctx, params);
  const subject: EnrollmentSubject = { owner, realm: params.realm };
  const target = targetOfOwner(owner, params.realm);
  await checkTokenLimits(ctx, owner, params.realm, type.type, params.serial || undefined);
  await checkDescription(ctx, subject, type.type, params.description, params.serial || undefined);
  await allow(ctx, type.enrollAction, target);
  if (params.verify) return verifyEnrollment(ctx, params.serial, params.verify, owner);
  for (const k of ['tokenlabel', 'tokenissuer']) {
    const v = await enrollmentValue(ctx, subject, k, true);
    if (v !== undefined) params[k] = v;
    if (params[k] !== undefined) params[k] = withNames(params[k], owner);
  }
  if (params.pin && !(await isAllowed(ctx, 'enrollpin', target))) {
    throw new PolicyError("Setting a PIN is not allowed due to missing 'enrollpin' right.");
  }
  const randomLength = Number.parseInt((await enrollmentValue(ctx, subject, 'otp_pin_random')) ?? '', 10);
  if (Number.isInteger(randomLength) && randomLength > 0)
    params.pin = await randomPinFor(ctx, randomLength, target, type.type);
  // privacyIDEA checks `otppin`, else `pin`, and not at all on a rollover (verify returned above).
  const checkedPin = params.otppin || params.pin;
  if (checkedPin && !params.rollover) await checkPinPolicy(ctx, checkedPin, target, type.type);
  if (type.type === 'hotp' || type.type === 'totp') {
    const defaults: [string, string][] = [
      ['hashlib', `${type.type}_hashlib`],
      ['otplen', `${type.type}_otplen`],
      ...(type.type === 'totp' ? ([['timeStep', 'totp_timestep']] as [string, string][]) : []),
    ];
    for (const [param, action] of defaults) {
      if (params[param]) continue;
      const v = await actionValue(ctx, action, target);
      if (v !== undefined) params[param] = v;
    }
  }
  if (params.realm && !owner && !(await realmExists(ctx, params.realm))) {
    throw new ParameterError(`The realm '${params.realm}' does not exist.`);
  }
  // validity_period_start/end as /token/set takes them; a malformed date refuses the enrollment.
  const validity: Record<string, string> = {};
  for (const k of ['validity_period_start', 'validity_period_end'] as const) {
    const d = params[k] === undefined ? '' : validityDate(k, params[k]);
    if (d) validity[k] = d;
  }
  const policyValues = new Map<string, string>();
  for (const action of type.enrollmentActions) {
    const v = await enrollmentValue(ctx, subject, action);
    if (v !== undefined) policyValues.set(action, v);
  }
  const serial = params.serial || (await generateSerial(ctx, type.type, params.prefix || type.prefix));
  checkSerial(serial);
  const settings = await typeSettings(ctx);
  const now = ctx.clock();
  const prior = VERIFIABLE.has(type.type) && params.serial ? await findToken(ctx, serial) : undefined;
  const twoStep = VERIFIABLE.has(type.type)
    ? await planTwoStep(
        type.type,
        params,
        prior && {
          type: prior.row.tokentype,
          rolloutState: prior.row.rollout_state,
          info: prior.info,
          key: () => tokenState(ctx, prior).key(),
        },
        { mode: (a) => actionValue(ctx, a, target), size: (a) => enrollmentValue(ctx, subject, a) },
      )
    : undefined;
  const enrollment = await type.enroll({
    serial,
    params,
    settings,
    user: owner ? { login: owner.login, realm: owner.realm } : undefined,
    now,
    twoStep,
    policy: (action) => policyValues.get(action),
  });
  const encrypt = isTrue(params.encryptpin) || (await enrollmentIsSet(ctx, subject, 'encrypt_pin'));
  const pin = await pinHash(params.pin, encrypt ? ctx : undefined);
  const pinChange = await nextPinChange(ctx, subject);
  if (!enrollment.rolloutState && VERIFIABLE.has(type.type)) {
    const listed = await enrollmentValues(ctx, subject, 'verify_enrollment');
    if (listed.has(type.type)) {
      enrollment.rolloutState = 'verify';
      enrollment.detail = { ...enrollment.detail, verify: { message: VERIFY_MESSAGE } };
    }
  }
  await ctx.store.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('token')
      .selectAll()
      .where('serial', '=', serial)
      .executeTakeFirst();
    if (existing && existing.tokentype !== type.type) {
      throw new TokenAdminError(
        `init token failed: Token ${serial} already exists with type ${existing.tokentype}. Can not initialize token with new type ${type.type}`,
      );
    }
    if (existing && existing.locked === 1) throw new TokenAdminError(TOKEN_LOCKED, ERR.TokenLocked);
    if (existing && ctx.caller.role === 'user') {
      const [loaded] = await loadRows(ctx, [existing], trx);
      const mine =
        owner && loaded?.owner?.userId === owner.userid && loaded.owner.resolver === owner.resolver;
      if (!mine) throw new PolicyError('User actions are defined, but the action enroll is not allowed!');
    }
    const values = {
      tokentype: type.type,
      description: cutChars(params.description ?? enrollment.description ?? existing?.description ?? '', 80),
      otplen: enrollment.otplen ?? intSetting(settings, 'DefaultOtpLen', 6),
      key_enc: sealKey(ctx, enrollment.key),
      rollout_state: enrollment.rolloutState ?? '',
      ...(params.pin !== undefined || !existing ? { pin_hash: pin } : {}),
    };
    let id: number;
    if (existing) {
      await trx
        .updateTable('token')
        .set({ ...values, count: 0, failcount: 0 })
        .where('id', '=', existing.id)
        .execute();
      id = existing.id;
    } else {
      await trx
        .insertInto('token')
        .values({
          serial,
          ...values,
          pin_hash: pin,
          maxfail: intSetting(settings, 'DefaultMaxFailCount', 10),
          failcount: 0,
          count: 0,
          count_window: intSetting(settings, 'DefaultCountWindow', 10),
          sync_window: intSetting(settings, 'DefaultSyncWindow', 1000),
          active: 1,
          revoked: 0,
          locked: 0,
        })
        .execute();
      id = (await trx.selectFrom('token').select('id').where('serial', '=', serial).executeTakeFirstOrThrow())
        .id;
      await setTokenInfo(ctx, trx, id, { tokenkind: 'software', creation_date: isoSeconds(now) });
    }
    await setTokenInfo(ctx, trx, id, {
      ...enrollment.info,
      ...validity,
      ...(pinChange !== undefined ? { next_pin_change: pinChange } : {}),
    });
    if (owner) await setTokenOwner(trx, id, ownerRecord(owner));
    else if (params.realm) await setTokenRealms(trx, id, [params.realm]);
  });
  return { serial, detail: { serial, rollout_state: enrollment.rolloutState ?? '', ...enrollment.detail } };
}
