// The audit columns of POST /auth: who logged in, or the answer of a login that did not (yet) and
// whom it tried. A row's success is the login's: only a login that issued a token succeeded (a
// challenge is not yet a login, a refusal none), as privacyIDEA records it and failed-login
// reports count it; a row that did not log in names the user and realm tried, so that
// auth_max_fail counts it with the user's checks.
import { type AuditEntry, callerColumns } from '../audit/index.ts';
import type { Runtime } from '../context.ts';
import { splitLogin } from '../directory/index.ts';
import type { LoginChallenge, LoginResult } from './auth.ts';
import { HiddenLoginError } from './enumeration.ts';

type LoginColumns = Partial<
  Pick<AuditEntry, 'administrator' | 'user' | 'realm' | 'authentication' | 'success' | 'info'>
>;

/** What a login request gave: the name (maybe `user@realm`) and the realm parameter. */
export interface LoginAttempt {
  username: string | undefined;
  realm: string | undefined;
}

/** The login name and realm tried; where the realms cannot be read, none (the route names the login as given). */
async function triedColumns(rt: Runtime, attempt: LoginAttempt): Promise<LoginColumns> {
  if (!attempt.username) return {};
  const tried = await splitLogin(rt, attempt.username, attempt.realm).catch(() => undefined);
  return tried ? { user: tried.login, realm: tried.realm } : {};
}

/**
 * A login that failed: whom it tried. Its info is the failure's message, as for every request; of
 * a failure answered generically (hide_specific_error_message), the real reason.
 */
export async function failedLoginColumns(
  rt: Runtime,
  attempt: LoginAttempt,
  failure?: unknown,
): Promise<LoginColumns> {
  const reason = failure instanceof HiddenLoginError ? { info: failure.reason } : {};
  return { ...(await triedColumns(rt, attempt)), ...reason, authentication: 'REJECT', success: false };
}

/**
 * A login that asked for challenges (whom it tried), or whoever logged in: an administrator is no
 * user (the user the request named is cleared) and keeps the realm it logged in with (a superuser
 * realm).
 */
export async function loginColumns(
  rt: Runtime,
  attempt: LoginAttempt,
  result: LoginResult | LoginChallenge,
): Promise<LoginColumns> {
  if ('challenge' in result)
    return { ...(await triedColumns(rt, attempt)), authentication: 'CHALLENGE', success: false };
  const { caller } = result;
  return { user: '', realm: caller.realm, ...callerColumns(caller), authentication: 'ACCEPT', success: true };
}
