// The audit columns of POST /auth: who logged in, or the answer of a login that did not (yet).
import { type AuditEntry, callerColumns } from '../audit/index.ts';
import type { LoginChallenge, LoginResult } from './auth.ts';

type LoginColumns = Partial<Pick<AuditEntry, 'administrator' | 'user' | 'realm' | 'authentication'>>;

/** A login that failed (its message is the failure's, as for every request). */
export const FAILED_LOGIN_COLUMNS: LoginColumns = Object.freeze({ authentication: 'REJECT' });

/**
 * A login that asked for challenges, or whoever logged in: an administrator is no user (the user
 * the request named is cleared) and keeps the realm it logged in with (a superuser realm).
 */
export function loginColumns(result: LoginResult | LoginChallenge): LoginColumns {
  if ('challenge' in result) return { authentication: 'CHALLENGE' };
  const { caller } = result;
  return { user: '', realm: caller.realm, ...callerColumns(caller) };
}
