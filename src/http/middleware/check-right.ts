// A protected route's right: the policy check of the route's action for the caller's role, on the
// target its parameters name, before the handler runs.
import type Koa from 'koa';
import { allow, type Target, targetOf } from '../../core/access/index.ts';
import { type Role, type Runtime, withCaller } from '../../core/context.ts';
import { routeCall } from '../state.ts';

/**
 * The right a protected endpoint checks before its handler runs, for the target its `user`,
 * `realm` and `resolver` parameters name: one action for both roles, or one per role (a role
 * without an entry is not checked). null: the endpoint checks no right, or checks it in its
 * service because the answer depends on a value (custom attributes, audit realms).
 */
export type RouteAction = string | Partial<Record<Role, string>> | null;

/** The target of the check when the endpoint names it otherwise than by user/realm/resolver. */
export type RouteTarget = (params: Readonly<Record<string, string>>) => Target;

function actionFor(action: RouteAction, role: Role): string | undefined {
  if (action === null) return undefined;
  return typeof action === 'string' ? action : action[role];
}

export function checkRight(rt: Runtime, action: RouteAction, target: RouteTarget = targetOf): Koa.Middleware {
  return async (koa, next) => {
    const { caller, params } = routeCall(koa);
    const right = caller && actionFor(action, caller.role);
    if (caller && right) {
      const data = params.texts();
      await allow(withCaller(rt, caller), right, target(data), {
        headers: koa.headers as Record<string, string>,
        data,
        method: koa.method,
        path: koa.path,
      });
    }
    await next();
  };
}
