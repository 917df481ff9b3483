// POST /token/init (reference 3.3): enrollment with its pre-policies (token limits,
// require_description, PIN rules, label/issuer, the type's parameter defaults, verify_enrollment);
// the type makes the secret and the enrollment detail, this file stores the token. What differs
// between types the type declares (TokenType: parameterDefaults, enrollmentActions,
// twoStepEnrollment, verifiableEnrollment); nothing here knows a type by its name.
import type { Transaction } from 'kysely';
import { ERR, ParameterError, PolicyError, TokenAdminError } from '../../errors.ts';
import { isTrue } from '../../is-true.ts';
import type { Database } from '../../store/index.ts';
import { runTransaction } from '../../store/index.ts';
import {
  defaultTokenType,
  type Enrollment,
  findTokenType,
  planTwoStep,
  type TokenType,
  type TypeSettings,
} from '../../tokens/index.ts';
import { actionValue, actionValues, allow, isAllowed, type Target, unrestricted } from '../access/index.ts';
import { certificateAuthoritiesOf } from '../caconnector/index.ts';
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
import { creationInfo, newTokenRow } from './new-token.ts';
import { ownerOf, ownerRecord, targetOfOwner } from './owner.ts';
import { checkPinPolicy, nextPinChange, randomPinFor } from './pin-policy.ts';
import { tokenLockedError } from './select.ts';
import { checkSerial, generateSerial } from './serial.ts';
import { intSetting, typeSettings } from './settings.ts';
import {
  addTokenInfo,
  consumeOtp,
  findToken,
  insertToken,
  type LoadedToken,
  loadRows,
  pinHash,
  reenrollToken,
  requireToken,
  sealKey,
  setRolloutState,
  setTokenInfo,
  setTokenOwner,
  setTokenRealms,
  type TokenOwner,
  type TokenRow,
  tokenState,
} from './store/index.ts';
import { validityDate } from './tokeninfo-dates.ts';

export interface InitResult {
  serial: string;
  /** The type of the token, as the registry names it (the audit row's token_type). */
  type: string;
  detail: Record<string, unknown>;
}

/** One enrollment request as its steps share it; the pre-policies fill in `params`. */
interface Enrolling {
  params: Record<string, string>;
  type: TokenType;
  owner: ResolvedUser | undefined;
  /** Whom the enrollment policies are matched for. */
  subject: EnrollmentSubject;
  /** Whom the admin/user-scope policies are checked for. */
  target: Target;
}

const VERIFY_MESSAGE = 'Please enter a valid OTP value of the new token.';
const NOT_ALLOWED = 'User actions are defined, but the action enroll is not allowed!';

/** POST /token/init: creates a token, or re-keys an existing one of the same type. */
export async function initToken(ctx: Context, given: Readonly<Record<string, string>>): Promise<InitResult> {
  const e = await readRequest(ctx, given);
  await checkEnrollment(ctx, e);
  if (e.params.verify) return verifyEnrollment(ctx, e.params.serial, e.params.verify, e.owner);
  await applyLabelPolicies(ctx, e);
  await applyPinPolicies(ctx, e);
  await applyParameterDefaults(ctx, e);
  await checkParameterChoices(ctx, e);
  if (e.params.realm && !e.owner && !(await realmExists(ctx, e.params.realm))) {
    throw new ParameterError(`The realm '${e.params.realm}' does not exist.`);
  }
  const validity = validityOf(e.params);
  const policyValues = await typePolicyValues(ctx, e);
  const serial =
    e.params.serial || (await generateSerial(ctx, e.type.type, e.params.prefix || e.type.prefix));
  checkSerial(serial);
  const settings = await typeSettings(ctx);
  const now = ctx.clock();
  const enrollment = await e.type.enroll({
    serial,
    params: e.params,
    settings,
    user: e.owner ? { login: e.owner.login, realm: e.owner.realm } : undefined,
    now,
    twoStep: await twoStepOf(ctx, e, serial),
    policy: (action) => policyValues.get(action),
    random: ctx.random,
    ca: certificateAuthoritiesOf(ctx),
  });
  const encrypt = isTrue(e.params.encryptpin) || (await enrollmentIsSet(ctx, e.subject, 'encrypt_pin'));
  const pin = await pinHash(e.params.pin, encrypt ? ctx : undefined);
  const pinChange = await nextPinChange(ctx, e.subject);
  await requireVerification(ctx, e, enrollment);
  const info = {
    ...enrollment.info,
    ...validity,
    ...(pinChange !== undefined ? { next_pin_change: pinChange } : {}),
  };
  await storeToken(ctx, e, { serial, enrollment, settings, pin, info, now });
  const detail = { serial, rollout_state: enrollment.rolloutState ?? '', ...enrollment.detail };
  return { serial, type: e.type.type, detail };
}

/**
 * The token type an enrollment request names as it names it (the default type when it names none):
 * what the audit row records of a request that fails before the type is known.
 */
export function requestedTokenType(given: Readonly<Record<string, string>>): string {
  return given.type || defaultTokenType().type;
}

/** The type, the owner and the policy subjects of a request; the lengths of serial and otpkey. */
async function readRequest(ctx: Context, given: Readonly<Record<string, string>>): Promise<Enrolling> {
  const params: Record<string, string> = { ...given };
  const typeName = requestedTokenType(params);
  const type = findTokenType(typeName);
  if (!type)
    throw new TokenAdminError(`init token failed. Unknown token type: ${typeName}`, ERR.UnknownTokenType);
  checkLength('serial', params.serial, LIMITS.serial);
  checkLength('otpkey', params.otpkey, LIMITS.otpkey);
  const owner = await ownerOf(ctx, params);
  return {
    params,
    type,
    owner,
    subject: { owner, realm: params.realm },
    target: targetOfOwner(owner, params.realm),
  };
}

/** The token limits, require_description and the caller's `enroll<TYPE>` right. */
async function checkEnrollment(ctx: Context, e: Enrolling): Promise<void> {
  const serial = e.params.serial || undefined;
  await checkTokenLimits(ctx, e.owner, e.params.realm, e.type.type, serial);
  await checkDescription(ctx, e.subject, e.type.type, e.params.description, serial);
  await allow(ctx, e.type.enrollAction, e.target);
}

/** Whether a stored token belongs to the owner of the request. */
function ownedBy(tokenOwner: TokenOwner | undefined, owner: ResolvedUser | undefined): boolean {
  return !!owner && tokenOwner?.userId === owner.userid && tokenOwner.resolver === owner.resolver;
}

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
  const t = await requireToken(ctx, serial);
  if (ctx.caller.role === 'user' && !ownedBy(t.owner, owner)) throw new PolicyError(NOT_ALLOWED);
  if (t.row.locked === 1) throw tokenLockedError();
  if (t.row.rollout_state !== 'verify')
    throw new ParameterError(`The token ${serial} is not waiting for the verification of its enrollment.`);
  const match = t.type.checkOtp(tokenState(ctx, t), otp, ctx.clock());
  if (!match || !(await consumeOtp(ctx, t, match.newCount)))
    throw new ParameterError('Verification of the new token failed.');
  await runTransaction(ctx.store, async (trx) => {
    await setRolloutState(trx, t.row.id, 'enrolled');
    if (match.info) await setTokenInfo(ctx, trx, t.row.id, match.info);
  });
  return { serial, type: t.type.type, detail: { serial, rollout_state: 'enrolled' } };
}

/** `{givenname}` / `{surname}` of a label or issuer from the owner's attributes. */
function withNames(text: string, owner: ResolvedUser | undefined): string {
  const attr = (k: string) => {
    const v = owner?.info[k];
    return typeof v === 'string' ? v : '';
  };
  return text.replace(/\{givenname\}/g, attr('givenname')).replace(/\{surname\}/g, attr('surname'));
}

/** The enrollment policies tokenlabel and tokenissuer win over the request; names filled in. */
async function applyLabelPolicies(ctx: Context, e: Enrolling): Promise<void> {
  for (const k of ['tokenlabel', 'tokenissuer']) {
    const v = await enrollmentValue(ctx, e.subject, k, true);
    if (v !== undefined) e.params[k] = v;
    if (e.params[k] !== undefined) e.params[k] = withNames(e.params[k], e.owner);
  }
}

/** The `enrollpin` right, a random PIN of otp_pin_random, and the PIN rules of the type. */
async function applyPinPolicies(ctx: Context, e: Enrolling): Promise<void> {
  const { params, target, type } = e;
  if (params.pin && !(await isAllowed(ctx, 'enrollpin', target))) {
    throw new PolicyError("Setting a PIN is not allowed due to missing 'enrollpin' right.");
  }
  const randomLength = Number.parseInt((await enrollmentValue(ctx, e.subject, 'otp_pin_random')) ?? '', 10);
  if (Number.isInteger(randomLength) && randomLength > 0)
    params.pin = await randomPinFor(ctx, randomLength, target, type.type);
  // privacyIDEA checks `otppin`, else `pin`, and not at all on a rollover (verify returned before).
  const checkedPin = params.otppin || params.pin;
  if (checkedPin && !params.rollover) await checkPinPolicy(ctx, checkedPin, target, type.type);
}

/** The caller's policies give the parameters the request leaves out (hotp_hashlib, …). */
async function applyParameterDefaults(ctx: Context, e: Enrolling): Promise<void> {
  for (const [param, action] of Object.entries(e.type.parameterDefaults)) {
    if (e.params[param]) continue;
    const v = await actionValue(ctx, action, e.target);
    if (v !== undefined) e.params[param] = v;
  }
}

/**
 * A parameter the type lets a restricted caller choose only among the values of a policy of theirs
 * (sms.identifier among `sms_gateways`): any other value refuses the enrollment, as privacyIDEA's
 * prepolicy does.
 */
async function checkParameterChoices(ctx: Context, e: Enrolling): Promise<void> {
  for (const [param, action] of Object.entries(e.type.parameterChoices)) {
    const chosen = e.params[param]?.trim();
    if (!chosen || (await unrestricted(ctx))) continue;
    const allowed = await actionValues(ctx, action, e.target);
    if (!allowed.has(chosen)) throw new PolicyError(`The requested ${param} is not allowed to be used.`);
  }
}

/** validity_period_start/end as /token/set takes them; a malformed date refuses the enrollment. */
function validityOf(params: Readonly<Record<string, string>>): Record<string, string> {
  const validity: Record<string, string> = {};
  for (const k of ['validity_period_start', 'validity_period_end'] as const) {
    const d = params[k] === undefined ? '' : validityDate(k, params[k]);
    if (d) validity[k] = d;
  }
  return validity;
}

/** The values of the enrollment actions the type reads (EnrollRequest.policy). */
async function typePolicyValues(ctx: Context, e: Enrolling): Promise<Map<string, string>> {
  const values = new Map<string, string>();
  for (const action of e.type.enrollmentActions) {
    const v = await enrollmentValue(ctx, e.subject, action);
    if (v !== undefined) values.set(action, v);
  }
  return values;
}

/** Which step of a two-step enrollment this is, for types that have one (src/tokens/two-step.ts). */
async function twoStepOf(ctx: Context, e: Enrolling, serial: string) {
  if (!e.type.twoStepEnrollment) return undefined;
  const prior = e.params.serial ? await findToken(ctx, serial) : undefined;
  return planTwoStep(
    e.type.type,
    e.params,
    prior && {
      type: prior.row.tokentype,
      rolloutState: prior.row.rollout_state,
      info: prior.info,
      key: () => tokenState(ctx, prior).key(),
    },
    { mode: (a) => actionValue(ctx, a, e.target), size: (a) => enrollmentValue(ctx, e.subject, a) },
  );
}

/** verify_enrollment: a token of a type it lists waits for an OTP value (rollout state `verify`). */
async function requireVerification(ctx: Context, e: Enrolling, enrollment: Enrollment): Promise<void> {
  if (enrollment.rolloutState || !e.type.verifiableEnrollment) return;
  const listed = await enrollmentValues(ctx, e.subject, 'verify_enrollment');
  if (!listed.has(e.type.type)) return;
  enrollment.rolloutState = 'verify';
  enrollment.detail = { ...enrollment.detail, verify: { message: VERIFY_MESSAGE } };
}

/** A token re-enrolled under its serial: of the same type, not locked, and (for users) their own. */
async function checkRekey(ctx: Context, trx: Transaction<Database>, e: Enrolling, existing: TokenRow) {
  if (existing.tokentype !== e.type.type) {
    throw new TokenAdminError(
      `init token failed: Token ${existing.serial} already exists with type ${existing.tokentype}. Can not initialize token with new type ${e.type.type}`,
    );
  }
  if (existing.locked === 1) throw tokenLockedError();
  if (ctx.caller.role === 'user') {
    const [loaded]: (LoadedToken | undefined)[] = await loadRows(ctx, [existing], trx);
    if (!ownedBy(loaded?.owner, e.owner)) throw new PolicyError(NOT_ALLOWED);
  }
}

/** What enrollment stores: the type's enrollment, the PIN hash and the tokeninfo. */
interface Stored {
  serial: string;
  enrollment: Enrollment;
  settings: TypeSettings;
  pin: string;
  info: Record<string, string>;
  now: Date;
}

/** The token in one transaction: its row, tokeninfo, and owner or realm. */
async function storeToken(ctx: Context, e: Enrolling, w: Stored): Promise<void> {
  await runTransaction(ctx.store, async (trx) => {
    const existing = await trx
      .selectFrom('token')
      .selectAll()
      .where('serial', '=', w.serial)
      .executeTakeFirst();
    if (existing) await checkRekey(ctx, trx, e, existing);
    const id = await writeRow(ctx, trx, e, w, existing);
    if (existing) await setTokenInfo(ctx, trx, id, w.info);
    else await addTokenInfo(ctx, trx, id, { ...creationInfo('software', w.now), ...w.info });
    if (e.owner) await setTokenOwner(trx, id, ownerRecord(e.owner));
    else if (e.params.realm) await setTokenRealms(trx, id, [e.params.realm]);
  });
}

/** The token row: the existing one re-keyed (counters reset), or a new one; its id. */
async function writeRow(
  ctx: Context,
  trx: Transaction<Database>,
  e: Enrolling,
  w: Stored,
  existing: TokenRow | undefined,
): Promise<number> {
  const { enrollment } = w;
  const fields = {
    tokentype: e.type.type,
    description: cutChars(e.params.description ?? enrollment.description ?? existing?.description ?? '', 80),
    otplen: enrollment.otplen ?? intSetting(w.settings, 'DefaultOtpLen', 6),
    key_enc: sealKey(ctx, enrollment.key),
    rollout_state: enrollment.rolloutState ?? '',
  };
  if (!existing)
    return insertToken(trx, newTokenRow(w.settings, { serial: w.serial, ...fields, pin_hash: w.pin }));
  const pin = e.params.pin !== undefined ? { pin_hash: w.pin } : {};
  await reenrollToken(trx, existing.id, { ...fields, ...pin });
  return existing.id;
}
