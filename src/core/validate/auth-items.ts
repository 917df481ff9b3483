// The authentication items a successful check hands to the client (reference 6.6, privacyIDEA's
// offline_info post-policy): a token attached for an application that issues items (offline)
// gives them, with the PIN and OTP of the password just used; and POST /validate/offlinerefill,
// which fetches new ones for those the client used up.
import { AuthError, ERR, ParameterError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { issueAuthItems, type PresentedPass, refillAuthItems } from '../machine/index.ts';
import { configFlag } from '../system/index.ts';
import { serialAccount, throttled } from '../throttle/index.ts';
import { findToken, type LoadedToken } from '../token/index.ts';
import { pinOk, splitPass } from './pass.ts';
import { RequestPolicies } from './policies.ts';
import { type CheckInput, ownerUser } from './request.ts';
import { unusable } from './usable.ts';

export type AuthItems = Record<string, Record<string, unknown>[]>;

async function presented(rt: Runtime, t: LoadedToken, pass: string, otponly: boolean) {
  const prependPin = await configFlag(rt, 'PrependPin', true);
  const parts = otponly ? { pin: '', otp: pass } : splitPass(t, pass, prependPin);
  return parts && { ...parts, prependPin };
}

/**
 * The items of the token that decided an accepted check, when the request has a client address
 * (privacyIDEA gives none without one); undefined for a token attached for no such application.
 */
export async function checkAuthItems(
  rt: Runtime,
  input: CheckInput,
  t: LoadedToken,
  username: string | undefined,
): Promise<AuthItems | undefined> {
  if (!input.client) return undefined;
  const pass = await presented(rt, t, input.pass ?? '', input.otponly === true);
  return pass ? issueAuthItems(rt, t, username, pass) : undefined;
}

export interface RefillInput {
  serial: string | undefined;
  refilltoken: string | undefined;
  pass: string | undefined;
  client: string;
}

type Refill = { serial: string; refilltoken: string; pass: string; client: string };

function required(input: RefillInput): Refill {
  for (const name of ['serial', 'refilltoken', 'pass'] as const) {
    if (!input[name]) throw ParameterError.missing(name);
  }
  checkLength('serial', input.serial, LIMITS.serial);
  checkLength('refilltoken', input.refilltoken, LIMITS.name);
  checkLength('pass', input.pass, LIMITS.password);
  return input as Refill;
}

/**
 * The refill under the brute-force throttling of the token's serial from the client's address: a
 * refused refill (a wrong refill token, PIN or OTP, an unknown serial) counts as a failed guess; a
 * request missing a parameter is refused before and counts for nothing.
 */
export async function clientOfflineRefill(rt: Runtime, input: RefillInput): Promise<AuthItems> {
  const req = required(input);
  const attempt = { account: serialAccount(req.serial), address: req.client };
  const r = await throttled(
    rt,
    attempt,
    () =>
      offlineRefill(rt, req).then(
        (items) => ({ items }),
        (error: unknown) => ({ error }),
      ),
    (res) => ('items' in res ? 'success' : 'failure'),
  );
  if ('error' in r) throw (await hidesRefillErrors(rt, req.client)) ? REFILL_FAILED() : r.error;
  return r.items;
}

/** privacyIDEA's answer to any failed refill under hide_specific_error_message_for_offline_refill. */
const REFILL_FAILED = () => new AuthError('Failed offline token refill', ERR.ValidateDenied);

/** The token-scope policy, matched for the client (no user or realm: the request names none). */
async function hidesRefillErrors(rt: Runtime, client: string): Promise<boolean> {
  const pol = await RequestPolicies.of(rt, { login: '', realm: '' }, client);
  return pol.isSet('token', 'hide_specific_error_message_for_offline_refill');
}

/**
 * POST /validate/offlinerefill (reference 6.6): the token must exist and be usable, the PIN of
 * `pass` right (under otppin as a check takes it), the refill token the stored one and the OTP one
 * of the values issued; the answer gives as many new values as were used, and a new refill token.
 */
async function offlineRefill(rt: Runtime, input: Refill): Promise<AuthItems> {
  const { serial, refilltoken, pass } = input;
  const t = serial.includes('*') ? undefined : await findToken(rt, serial);
  if (!t) throw new ParameterError('The token does not exist');
  if (t.row.revoked || unusable(t, rt.clock())) throw new ParameterError('The token is not valid.');
  const parts: PresentedPass | undefined = await presented(rt, t, pass, false);
  const user = await ownerUser(rt, t);
  const who = { login: user?.login ?? '', realm: user?.realm ?? t.realms[0] ?? '' };
  const pol = await RequestPolicies.of(rt, { ...who, ...(user ? { user } : {}) }, input.client);
  if (!parts || !(await pinOk(rt, t, parts.pin, { pol, user }))) {
    throw new ParameterError('You provided a wrong OTP value.', ERR.ValidateDenied);
  }
  return refillAuthItems(rt, 'offline', t, refilltoken, parts);
}
