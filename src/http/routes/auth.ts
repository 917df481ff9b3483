// /auth (reference 2, spec "Authentication endpoint and audit"): logging in for a JWT, and the
// token types the caller may enroll.
import type { AuditEntry } from '../../core/audit/index.ts';
import { enrollableTypes, type LoginResult, login } from '../../core/auth/index.ts';
import type { Caller } from '../../core/context.ts';
import { anyRoleRoute, type Handler, type RouteTable } from '../route.ts';

export function authRoutes(r: RouteTable): void {
  r.add('post', '/auth', {}, logIn);
  r.add('get', '/auth/rights', anyRoleRoute(null), rights);
}

const logIn: Handler = async ({ rt, params, audit, client }) => {
  audit.user = params.str('username') ?? '';
  const result = await login(rt, {
    username: params.str('username'),
    password: params.str('password'),
    realm: params.str('realm'),
    client,
    transactionId: params.str('transaction_id'),
  }).catch((e) => {
    audit.authentication = 'REJECT';
    throw e;
  });
  if ('challenge' in result) {
    audit.authentication = 'CHALLENGE';
    return { rid: 2, value: false, detail: result.challenge };
  }
  noteCaller(audit, result.caller);
  return { rid: 2, value: loggedIn(result), ...(result.detail ? { detail: result.detail } : {}) };
};

/** An administrator is the row's administrator (and no user); a realm user its user. */
function noteCaller(audit: AuditEntry, caller: Caller): void {
  if (caller.role === 'admin') {
    audit.administrator = caller.username;
    audit.user = '';
  } else {
    audit.user = caller.username;
  }
  audit.realm = caller.realm;
}

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
