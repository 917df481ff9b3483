// What a check request names (reference 4.1, 4.2.1): its input and what the audit records of it,
// the parameter rules, the user after the realm rewrites and mangle, a token's owner as a user,
// and the token types a request may restrict itself to.
import { ParameterError } from '../../errors.ts';
import type { PolicySet } from '../../policy/index.ts';
import type { Runtime } from '../context.ts';
import { type ResolvedUser, splitLogin, userStore } from '../directory/index.ts';
import { checkLength, LIMITS } from '../limits.ts';
import type { LoadedToken } from '../token/index.ts';
import { type Detail, mangle, RequestPolicies, rewrittenRealm, type Who } from './policies.ts';

export interface CheckInput {
  user?: string | undefined;
  realm?: string | undefined;
  serial?: string | undefined;
  pass?: string | undefined;
  transactionId?: string | undefined;
  type?: string | undefined;
  otponly?: boolean | undefined;
  /** `exception=1`: a challenge message (e-mail, SMS) that cannot be sent answers HTTP 500. */
  exception?: boolean | undefined;
  client: string;
  /**
   * Set by the /validate endpoints, which api_key_required guards, with the raw JWT of the request
   * (PI-Authorization or Authorization). Other callers (/auth with login_mode=privacyIDEA, the
   * CLI) leave it out: the policy is about the endpoint, not the check.
   */
  apiKey?: { authorization: string | undefined } | undefined;
  /**
   * Set by /validate/check, the one answer that carries `auth_items`: only then do applications
   * hand out items (offline values, which advance the token's counter) on success.
   */
  wantsAuthItems?: boolean | undefined;
}

/** What the audit row records about a check. */
export interface CheckAudit {
  user: string;
  realm: string;
  resolver: string;
  serial: string;
  tokenType: string;
  info: string;
}

export interface CheckResult {
  value: boolean;
  detail: Record<string, unknown> | undefined;
  user: ResolvedUser | undefined;
  audit: CheckAudit;
  /** Top-level `auth_items` of the answer: what applications issue on success (offline). */
  authItems?: Record<string, Record<string, unknown>[]> | undefined;
}

/** check_user_serial_or_cred_id_in_request, and a pass no longer than any password. */
export function checkRequestParams(p: {
  user?: string | undefined;
  serial?: string | undefined;
  pass?: string | undefined;
}): void {
  checkLength('pass', p.pass, LIMITS.password);
  if (!p.user && !p.serial) throw new ParameterError('You need to specify a serial, user or credential_id.');
  if (p.serial?.includes('*')) throw new ParameterError('Invalid serial number.');
  if (p.user?.includes('%')) throw new ParameterError('Invalid user.');
}

/** The audit of a check: the user found (else the one named), the deciding token, the message. */
export function checkAudit(
  who: Who,
  user: ResolvedUser | undefined,
  token: LoadedToken | undefined,
  detail: Detail,
): CheckAudit {
  return {
    user: user?.login ?? who.login,
    realm: user?.realm ?? who.realm,
    resolver: user?.resolver ?? '',
    serial: token?.row.serial ?? '',
    tokenType: token?.type.type ?? '',
    info: typeof detail.message === 'string' ? detail.message : '',
  };
}

/** The owner of a token as a resolved user, or undefined (unassigned, or gone from its store). */
export async function ownerUser(rt: Runtime, t: LoadedToken): Promise<ResolvedUser | undefined> {
  if (!t.owner) return undefined;
  try {
    const { store } = await userStore(rt, t.owner.resolver);
    const info = await store.findById(t.owner.userId);
    if (!info) return undefined;
    return {
      login: info.username,
      realm: t.owner.realm,
      resolver: t.owner.resolver,
      userid: info.userid,
      info,
      store,
    };
  } catch {
    return undefined;
  }
}

/** The token type a request may restrict itself to (`type` needs application_tokentype). */
export function typeFilter(pol: RequestPolicies, type: string | undefined): string | undefined {
  return type && pol.isSet('authorization', 'application_tokentype') ? type.toLowerCase() : undefined;
}

/**
 * The user a request names, after the realm rewrites (set_realm, setrealm) and mangle, which
 * match the user as the request gave it (reference 4.1). Mangle may also rewrite the pass.
 */
export async function requestedUser(
  rt: Runtime,
  set: PolicySet,
  input: CheckInput,
): Promise<{ who: Who; pass: string | undefined }> {
  const given = await splitLogin(rt, input.user!, input.realm);
  const pre = new RequestPolicies(set, rt, given, input.client);
  const realm = rewrittenRealm(pre, given.realm);
  const m = mangle(pre, { login: given.login, realm, pass: input.pass ?? '' });
  const pass = input.pass === undefined && m.pass === '' ? undefined : m.pass;
  return { who: { login: m.login, realm: m.realm }, pass };
}
