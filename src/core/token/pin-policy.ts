// The OTP PIN rules of the admin and user scopes (reference 3.3, 3.5, 5.5): otp_pin_minlength,
// otp_pin_maxlength and otp_pin_contents checked wherever a PIN is set, and random PINs
// (otp_pin_random on enrollment, otp_pin_set_random for /token/setrandompin). Each rule is looked
// up first as the per-type action `<type>_otp_pin_…` (declared for every token type in
// src/policy/definitions.ts), then as the generic one, as privacyIDEA does.

import { PolicyError } from '../../errors.ts';
import { parseDuration, pinContentsError, randomPin } from '../../policy/index.ts';
import { actionValue, type Target } from '../access/index.ts';
import type { Context } from '../context.ts';
import { type EnrollmentSubject, enrollmentIsSet, enrollmentValue } from './enrollment-policy.ts';
import { formatMinute } from './tokeninfo-dates.ts';

const PIN_ACTIONS = ['otp_pin_minlength', 'otp_pin_maxlength', 'otp_pin_contents'] as const;

type PinAction = (typeof PIN_ACTIONS)[number];

function intValue(v: string | undefined): number | undefined {
  if (v === undefined) return undefined;
  const n = Number.parseInt(v, 10);
  return Number.isInteger(n) ? n : undefined;
}

/** A PIN rule of the caller's scope: the per-type action `<type>_<action>` first, else the generic one. */
export async function pinPolicyValue(
  ctx: Context,
  action: PinAction,
  target: Target,
  tokentype: string,
): Promise<string | undefined> {
  return (
    (await actionValue(ctx, `${tokentype.toLowerCase()}_${action}`, target)) ??
    (await actionValue(ctx, action, target))
  );
}

/**
 * Checks a PIN against the caller's PIN policies for the target (a token owner) and token type:
 * minimum length, maximum length, contents, in this order; PolicyError 303.
 */
export async function checkPinPolicy(
  ctx: Context,
  pin: string,
  target: Target,
  tokentype: string,
): Promise<void> {
  const length = [...pin].length;
  const min = intValue(await pinPolicyValue(ctx, 'otp_pin_minlength', target, tokentype));
  if (min !== undefined && length < min) throw new PolicyError(`The minimum OTP PIN length is ${min}`);
  const max = intValue(await pinPolicyValue(ctx, 'otp_pin_maxlength', target, tokentype));
  if (max !== undefined && length > max) throw new PolicyError(`The maximum OTP PIN length is ${max}`);
  const contents = await pinPolicyValue(ctx, 'otp_pin_contents', target, tokentype);
  if (contents) {
    const error = pinContentsError(pin, contents);
    if (error) throw new PolicyError(error);
  }
}

/** A random PIN of the given length for the caller's contents policy of the target and token type. */
export async function randomPinFor(
  ctx: Context,
  length: number,
  target: Target,
  tokentype: string,
): Promise<string> {
  const contents = (await pinPolicyValue(ctx, 'otp_pin_contents', target, tokentype)) ?? '';
  return randomPin(length, contents, (max) => ctx.random.int(max));
}

/** `next_pin_change` after a PIN was set: now (change_pin_on_first_use, admins) or now + change_pin_every. */
export async function nextPinChange(ctx: Context, subject: EnrollmentSubject): Promise<string | undefined> {
  const now = ctx.clock();
  if (ctx.caller.role === 'admin' && (await enrollmentIsSet(ctx, subject, 'change_pin_on_first_use')))
    return formatMinute(now);
  const every = await enrollmentValue(ctx, subject, 'change_pin_every');
  if (every === undefined) return undefined;
  const ms = parseDuration(every);
  if (ms === null) {
    ctx.log.warn({ value: every }, 'change_pin_every is not a duration like 90d; ignored');
    return undefined;
  }
  return formatMinute(new Date(now.getTime() + ms));
}
