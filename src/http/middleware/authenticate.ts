// A protected route's caller: the JWT of PI-Authorization (or Authorization) verified for the roles
// the route admits (AuthError, HTTP 401, otherwise), and named in the audit entry.
import type Koa from 'koa';
import { callerColumns } from '../../core/audit/index.ts';
import { verifyJwt } from '../../core/auth/index.ts';
import type { Role, Runtime } from '../../core/context.ts';
import { requestState, routeCall } from '../state.ts';

export function authenticate(rt: Runtime, roles: readonly Role[]): Koa.Middleware {
  return async (koa, next) => {
    const call = routeCall(koa);
    const token = koa.get('PI-Authorization') || koa.get('Authorization') || undefined;
    call.caller = await verifyJwt(rt, token, roles, requestState(koa).client);
    Object.assign(call.audit, callerColumns(call.caller));
    await next();
  };
}
