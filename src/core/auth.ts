// /auth: checks credentials, issues the HS256 JWT privacyIDEA clients expect, and verifies it on
// every protected request.
import { randomBytes } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import { ADMIN_ACTIONS, menusFor, USER_ACTIONS } from '../policy/admin-actions.ts';
import { verifyAdmin } from './admin.ts';
import type { Caller, Role, Runtime } from './context.ts';
import { AuthCode, AuthError, AuthsrvError } from './errors.ts';
import { realmExists } from './realm.ts';
import { findUser, splitLogin } from './user.ts';

export interface LoginRequest {
  username: string | undefined;
  password: string | undefined;
  realm: string | undefined;
  client: string;
}

export interface LoginResult {
  caller: Caller;
  token: string;
  rights: string[];
  menus: string[];
}

export const WRONG_CREDENTIALS = 'Authentication failure. Wrong credentials';

/** Settings the privacyIDEA web UI reads from the /auth answer; defaults until webui policies exist. */
export const WEBUI_DEFAULTS = {
  log_level: 30,
  logout_time: 120,
  timeout_action: 'lockscreen',
  audit_page_size: 10,
  token_page_size: 15,
  user_page_size: 15,
  policy_template_url: '/static/policy-templates/',
  default_tokentype: 'hotp',
  default_container_type: 'generic',
  user_details: false,
  token_wizard: false,
  token_wizard_2nd: false,
  admin_dashboard: false,
  dialog_no_token: false,
  search_on_enter: false,
  hide_welcome: false,
  hide_buttons: false,
  deletion_confirmation: false,
  show_seed: false,
  show_node: '',
  token_rollover: {},
  subscription_status: 0,
  subscription_status_push: 0,
  qr_image_android: null,
  qr_image_ios: null,
  qr_image_custom: null,
  logout_redirect_url: '',
  require_description: [],
  rss_age: 0,
  container_wizard: { enabled: false },
} as const;

export async function login(rt: Runtime, req: LoginRequest): Promise<LoginResult> {
  if (req.realm && !(await realmExists(rt, req.realm))) {
    throw new AuthError(`Authentication failure. Unknown realm: ${req.realm}.`, AuthCode.WrongCredentials);
  }
  if (!req.username) {
    throw new AuthError('Authentication failure. Missing Username', AuthCode.MissingUsername);
  }
  const password = req.password ?? '';
  // A local administrator is matched by the name exactly as sent (admin@realm is never one).
  let caller: Caller | undefined;
  if (await verifyAdmin(rt, req.username, password)) {
    caller = { role: 'admin', username: req.username, realm: '', authtype: 'password', client: req.client };
  } else {
    caller = await loginRealmUser(rt, req, password);
  }
  if (!caller) throw new AuthError(WRONG_CREDENTIALS, AuthCode.WrongCredentials);
  const rights = [...(caller.role === 'admin' ? ADMIN_ACTIONS : USER_ACTIONS)];
  const token = await issueJwt(rt, caller, rights);
  return { caller, token, rights, menus: menusFor(rights) };
}

/**
 * A realm user whose store accepts the password, or undefined. A store that fails (unreachable, or
 * one that cannot check passwords at all, like SCIM) rejects the login as privacyIDEA's resolvers do
 * by answering false; the reason goes to the log, not to the client.
 */
async function loginRealmUser(rt: Runtime, req: LoginRequest, password: string): Promise<Caller | undefined> {
  const { login: name, realm } = await splitLogin(rt, req.username!, req.realm);
  if (!realm) return undefined;
  try {
    const user = await findUser(rt, name, realm);
    if (!user || !(await user.store.checkPassword(user.info, password))) return undefined;
    const role = rt.config.security.superuserRealms.includes(user.realm) ? 'admin' : 'user';
    return { role, username: user.login, realm: user.realm, authtype: 'password', client: req.client };
  } catch (e) {
    if (!(e instanceof AuthsrvError)) throw e;
    rt.log.warn({ err: e, login: name, realm }, 'user store failed during /auth; login rejected');
    return undefined;
  }
}

export async function issueJwt(rt: Runtime, caller: Caller, rights: string[]): Promise<string> {
  const now = Math.floor(rt.clock().getTime() / 1000);
  return new SignJWT({
    username: caller.username,
    realm: caller.realm,
    nonce: randomBytes(20).toString('hex'),
    role: caller.role,
    authtype: caller.authtype,
    rights,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt(now)
    .setExpirationTime(now + rt.config.security.jwtValidity)
    .sign(rt.keys.jwtSecret);
}

/** Verifies the raw JWT of a protected request and checks the caller's role. */
export async function verifyJwt(
  rt: Runtime,
  token: string | undefined,
  roles: readonly Role[],
  client: string,
): Promise<Caller> {
  if (!token)
    throw new AuthError('Authentication failure. Missing Authorization header.', AuthCode.MissingAuthHeader);
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(token, rt.keys.jwtSecret, {
      algorithms: ['HS256'],
      currentDate: rt.clock(),
      requiredClaims: ['exp'],
    }));
  } catch (e) {
    if (e instanceof joseErrors.JWTExpired) {
      throw new AuthError(
        'Authentication failure. Your token has expired: Signature has expired',
        AuthCode.TokenExpired,
      );
    }
    const reason = e instanceof Error ? e.message : String(e);
    throw new AuthError(
      `Authentication failure. Error decoding the Authorization token: ${reason}`,
      AuthCode.DecodingError,
    );
  }
  // privacyIDEA checks the role first: any other role (an API key's "validate", …) is a missing right.
  const role = claims.role;
  if (!roles.includes(role as Role)) {
    throw new AuthError(
      `Authentication failure. You do not have the necessary role ([${roles.map((r) => `'${r}'`).join(', ')}]) to access this resource!`,
      AuthCode.MissingRight,
    );
  }
  if (typeof claims.username !== 'string') {
    throw new AuthError(
      'Authentication failure. Error decoding the Authorization token: invalid claims',
      AuthCode.DecodingError,
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
