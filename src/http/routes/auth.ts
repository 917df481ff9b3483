// /auth (reference 2, spec "Authentication endpoint and audit"): logging in for a JWT, and the
// token types the caller may enroll.
import {
  enrollableTypes,
  failedLoginColumns,
  type LoginResult,
  login,
  loginColumns,
} from '../../core/auth/index.ts';
import { anyRoleRoute, firing, type Handler, type RouteTable } from '../route.ts';

export function authRoutes(r: RouteTable): void {
  r.add('post', '/auth', firing('auth', {}), logIn);
  r.add('get', '/auth/rights', anyRoleRoute(null), rights);
}

const logIn: Handler = async ({ rt, params, audit, client }) => {
  audit.user = params.str('username') ?? '';
  const attempt = { username: params.str('username'), realm: params.str('realm') };
  const result = await login(rt, {
    ...attempt,
    password: params.str('password'),
    client,
    transactionId: params.str('transaction_id'),
  }).catch(async (e) => {
    Object.assign(audit, await failedLoginColumns(rt, attempt, e));
    throw e;
  });
  Object.assign(audit, await loginColumns(rt, attempt, result));
  if ('challenge' in result) return { rid: 2, value: false, detail: result.challenge };
  return { rid: 2, value: loggedIn(result), ...(result.detail ? { detail: result.detail } : {}) };
};

/** The value of a login: the web UI settings, the JWT, and whom it is for with their rights. */
function loggedIn(result: LoginResult): Record<string, unknown> {
  const { caller } = result;
  return {
    ...result.settings,
    token: result.token,
    role: caller.role,
    username: caller.username,
    realm: caller.realm,
    rights: result.rights,
    menus: result.menus,
    auth: true,
  };
}

const rights: Handler = async ({ context }) => ({ value: await enrollableTypes(context()) });
