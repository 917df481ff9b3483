// /auth: checks credentials, issues the HS256 JWT privacyIDEA clients expect, and verifies it on
// every protected request (with the session it stands for: sessions.ts).
import { errors as joseErrors, SignJWT } from 'jose';
import { verifiedClaims } from '../../crypto/index.ts';
import { AuthError, AuthsrvError, ERR, PolicyError } from '../../errors.ts';
import { menusFor } from '../../policy/index.ts';
import type { Caller, Role, Runtime } from '../context.ts';
import { findUser, type ResolvedUser, realmExists, splitLogin } from '../directory/index.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { accountOf, type ThrottleVerdict, throttled } from '../throttle/index.ts';
import { type CheckResult, check } from '../validate/index.ts';
import { verifyAdmin } from './admins.ts';
import { hidingLoginFailures, spendAsForARealm, spendAsForAUser } from './enumeration.ts';
import { rightsOf } from './rights.ts';
import { checkSession } from './sessions.ts';
import { jwtValidity, loginMode, subjectOf, webuiSettings } from './webui.ts';

export interface LoginRequest {
  username: string | undefined;
  password: string | undefined;
  realm: string | undefined;
  client: string;
  /** login_mode=privacyIDEA: the second leg answers the challenges of this transaction. */
  transactionId?: string | undefined;
}

export interface LoginResult {
  caller: Caller;
  token: string;
  rights: string[];
  menus: string[];
  /** The web UI settings of the answer (webui policies applied). */
  settings: Record<string, unknown>;
  /** The detail of the answer (login_mode=privacyIDEA: `loginmode`). */
  detail?: Record<string, unknown>;
}

/** login_mode=privacyIDEA: the password started challenges; the client answers with their OTP. */
export interface LoginChallenge {
  challenge: Record<string, unknown>;
}

const PI_LOGIN = { loginmode: 'privacyIDEA' } as const;

export const WRONG_CREDENTIALS = 'Authentication failure. Wrong credentials';

/** A login; under hide_specific_error_message its refusals look alike (enumeration.ts). */
export function login(rt: Runtime, req: LoginRequest): Promise<LoginResult | LoginChallenge> {
  return hidingLoginFailures(
    rt,
    () => triedBy(rt, req),
    () => loginNow(rt, req),
  );
}

/** Whom a login tried: the name and realm of `user@realm` or the realm parameter, else as sent. */
async function triedBy(
  rt: Runtime,
  req: LoginRequest,
): Promise<{ login: string; realm: string; client: string }> {
  const tried = await splitLogin(rt, req.username ?? '', req.realm).catch(() => undefined);
  return {
    login: tried?.login ?? req.username ?? '',
    realm: tried?.realm ?? req.realm ?? '',
    client: req.client,
  };
}

async function loginNow(rt: Runtime, req: LoginRequest): Promise<LoginResult | LoginChallenge> {
  // Refused before anything is looked up: no hash or user store sees an overlong password.
  checkLength('password', req.password, LIMITS.password);
  // Then the brute-force throttling: a throttled login is refused before any password is checked.
  const attempt = req.username
    ? { account: accountOf(req.username, req.realm), address: req.client }
    : undefined;
  return throttled(rt, attempt, () => checkedLogin(rt, req), loginVerdict);
}

/** A login that asked for challenges is not yet one; a refusal is thrown (and counted by the throttling). */
function loginVerdict(result: LoginResult | LoginChallenge): ThrottleVerdict {
  return 'challenge' in result ? 'neither' : 'success';
}

async function checkedLogin(rt: Runtime, req: LoginRequest): Promise<LoginResult | LoginChallenge> {
  if (req.realm && !(await realmExists(rt, req.realm))) {
    await spendAsForARealm(req.password ?? '');
    throw new AuthError(`Authentication failure. Unknown realm: ${req.realm}.`, ERR.WrongCredentials);
  }
  if (!req.username) {
    throw new AuthError('Authentication failure. Missing Username', ERR.MissingUsername);
  }
  const password = req.password ?? '';
  // A local administrator is matched by the name exactly as sent (admin@realm is never one).
  let caller: Caller | undefined;
  let user: ResolvedUser | undefined;
  let detail: Record<string, unknown> | undefined;
  if (!req.transactionId && (await verifyAdmin(rt, req.username, password))) {
    caller = { role: 'admin', username: req.username, realm: '', authtype: 'password', client: req.client };
  } else {
    const outcome = await loginRealmUser(rt, req, password);
    if (outcome && 'challenge' in outcome) return outcome;
    ({ caller, user, detail } = outcome ?? {});
  }
  if (!caller) throw new AuthError(WRONG_CREDENTIALS, ERR.WrongCredentials);
  const subject = subjectOf(caller, user);
  const rights = await rightsOf(rt, caller, user);
  const token = await issueJwt(rt, caller, rights, await jwtValidity(rt, subject), user?.resolver);
  const settings = await webuiSettings(rt, subject);
  return { caller, token, rights, menus: menusFor(rights), settings, ...(detail ? { detail } : {}) };
}

/** A user-store call during /auth: a store that fails rejects the login; the reason goes to the log, not to the client. */
async function storeCall<T>(
  rt: Runtime,
  login: string,
  realm: string,
  call: () => Promise<T>,
): Promise<T | undefined> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof AuthsrvError)) throw e;
    rt.log.warn({ err: e, login, realm }, 'user store failed during /auth; login rejected');
    return undefined;
  }
}

/**
 * login_mode=privacyIDEA: the password is checked as /validate/check does (PIN+OTP, or the PIN
 * starting challenges, or the OTP answering them); undefined when the check refused the request.
 */
async function tokenLogin(
  rt: Runtime,
  user: ResolvedUser,
  pass: string,
  req: LoginRequest,
): Promise<CheckResult | undefined> {
  try {
    return await check(rt, {
      user: user.login,
      realm: user.realm,
      pass,
      client: req.client,
      ...(req.transactionId ? { transactionId: req.transactionId } : {}),
    });
  } catch (e) {
    if (e instanceof AuthsrvError) return undefined;
    throw e;
  }
}

function startedChallenges(detail: Record<string, unknown> | undefined): boolean {
  return Array.isArray(detail?.multi_challenge) && detail.multi_challenge.length > 0;
}

/**
 * A realm user whose login the webui policy login_mode permits and whose password is right, or
 * undefined. A store that fails (unreachable, or one that cannot check passwords at all, like SCIM)
 * rejects the login as privacyIDEA's resolvers do by answering false.
 */
async function loginRealmUser(
  rt: Runtime,
  req: LoginRequest,
  password: string,
): Promise<
  { caller: Caller; user: ResolvedUser; detail?: Record<string, unknown> } | LoginChallenge | undefined
> {
  const { login: name, realm } = await splitLogin(rt, req.username!, req.realm);
  if (!realm) return undefined;
  const user = await storeCall(rt, name, realm, () => findUser(rt, name, realm));
  if (!user) {
    await spendAsForAUser(rt, realm, password);
    return undefined;
  }
  const mode = await loginMode(rt, { username: user.login, realm: user.realm, client: req.client, user });
  if (mode === 'disable') throw new PolicyError('The login for this user is disabled.');
  // login_mode=privacyIDEA checks the password as /validate/check does: PIN+OTP logs in, a PIN
  // that starts challenges answers with them (the client repeats /auth with the OTP and the
  // transaction_id), a failure carries the check's detail.
  let detail: Record<string, unknown> | undefined;
  if (mode === 'privacyIDEA') {
    const res = await tokenLogin(rt, user, password, req);
    if (!res) return undefined;
    if (!res.value) {
      if (startedChallenges(res.detail)) return { challenge: { ...res.detail, ...PI_LOGIN } };
      throw new AuthError(WRONG_CREDENTIALS, ERR.WrongCredentials, res.detail);
    }
    detail = { ...PI_LOGIN };
  } else if (req.transactionId) {
    // Only a token login has a second leg.
    return undefined;
  } else if (!(await storeCall(rt, name, realm, () => user.store.checkPassword(user.info, password))))
    return undefined;
  const role = rt.config.security.superuserRealms.includes(user.realm) ? 'admin' : 'user';
  return {
    caller: { role, username: user.login, realm: user.realm, authtype: 'password', client: req.client },
    user,
    ...(detail ? { detail } : {}),
  };
}

/**
 * A JWT of privacyIDEA's claims; a realm user's also names the resolver that found the user, so
 * that the session ends when that resolver leaves the realm.
 */
export async function issueJwt(
  rt: Runtime,
  caller: Caller,
  rights: string[],
  validitySeconds = rt.config.security.jwtValidity,
  resolver?: string,
): Promise<string> {
  const now = Math.floor(rt.clock().getTime() / 1000);
  return new SignJWT({
    username: caller.username,
    realm: caller.realm,
    ...(resolver === undefined ? {} : { resolver }),
    nonce: rt.random.bytes(20).toString('hex'),
    role: caller.role,
    authtype: caller.authtype,
    rights,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + validitySeconds)
    .sign(rt.keys.jwtSecret);
}

/**
 * Verifies the raw JWT of a protected request, checks the caller's role, and that the session it
 * stands for has not ended.
 */
export async function verifyJwt(
  rt: Runtime,
  token: string | undefined,
  roles: readonly Role[],
  client: string,
): Promise<Caller> {
  if (!token)
    throw new AuthError('Authentication failure. Missing Authorization header.', ERR.MissingAuthHeader);
  const claims = await claimsOf(rt, token);
  const caller = callerOf(claims, roles, client);
  await checkSession(rt, {
    caller,
    issuedAt: typeof claims.iat === 'number' ? claims.iat : 0,
    resolver: typeof claims.resolver === 'string' ? claims.resolver : undefined,
  });
  return caller;
}

/** The claims of a token this server signed and that has not expired; AuthError otherwise. */
async function claimsOf(rt: Runtime, token: string): Promise<Record<string, unknown>> {
  try {
    return await verifiedClaims(rt.keys.jwtSecret, token, rt.clock());
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) {
      throw new AuthError(
        'Authentication failure. Your token has expired: Signature has expired',
        ERR.JwtExpired,
      );
    }
    const reason = e instanceof Error ? e.message : String(e);
    throw new AuthError(
      `Authentication failure. Error decoding the Authorization token: ${reason}`,
      ERR.JwtInvalid,
    );
  }
}

/** The caller a token names, if its role is admitted here (privacyIDEA's order of checks). */
function callerOf(claims: Record<string, unknown>, roles: readonly Role[], client: string): Caller {
  // privacyIDEA checks the role first: any other role (an API key's "validate", …) is a missing right.
  const role = claims.role;
  if (!roles.includes(role as Role)) {
    throw new AuthError(
      `Authentication failure. You do not have the necessary role ([${roles.map((r) => `'${r}'`).join(', ')}]) to access this resource!`,
      ERR.MissingRight,
    );
  }
  if (typeof claims.username !== 'string') {
    throw new AuthError(
      'Authentication failure. Error decoding the Authorization token: invalid claims',
      ERR.JwtInvalid,
    );
  }
  return {
    role: role as Role,
    username: claims.username,
    realm: typeof claims.realm === 'string' ? claims.realm : '',
    authtype: TOKEN_AUTHTYPES.has(claims.authtype as string) ? (claims.authtype as Caller['authtype']) : 'pi',
    client,
  };
}

/** How a JWT holder may have logged in; 'local' is the CLI operator, who never holds a JWT. */
const TOKEN_AUTHTYPES = new Set(['password', 'pi', 'remote_user']);
