// The shape every endpoint follows: merged parameters, authentication for the roles it admits, the
// right it checks, the service call, and a reply that the app turns into the envelope. Route files
// stay declarative; the steps themselves are in src/http/middleware/.
import type Router from '@koa/router';
import type Koa from 'koa';
import type { Role, Runtime } from '../core/context.ts';
import {
  auditAction,
  authenticate,
  checkRight,
  fireEvents,
  type Handler,
  openRoute,
  type RouteAction,
  type RouteTarget,
  runHandler,
} from './middleware/index.ts';

export type { ApiCall, Handler, RouteAction } from './middleware/index.ts';

interface PublicRoute {
  roles?: undefined;
  action?: undefined;
  target?: undefined;
  /** Health probes are not audited, so that monitoring does not flood the log. */
  audit?: boolean;
  /** The privacyIDEA event the endpoint fires (reference 7.1 "Event names"). */
  event?: string;
}

interface ProtectedRoute {
  /** Roles admitted. */
  roles: readonly Role[];
  /** Required so that no endpoint forgets its policy check. */
  action: RouteAction;
  /** The target of the check when the endpoint names it otherwise than by user/realm/resolver. */
  target?: RouteTarget;
  audit?: boolean;
  /** The privacyIDEA event the endpoint fires pre and post around its handler (reference 7.1). */
  event?: string;
}

export type RouteOptions = PublicRoute | ProtectedRoute;

/** The options of a route with the privacyIDEA event it fires. */
export function firing<T extends RouteOptions>(event: string, options: T): T {
  return { ...options, event };
}

const EVENT_NAMES = new Set<string>();

/** GET /event/available: the events the endpoints of the route table fire, sorted. */
export function availableEvents(): string[] {
  return [...EVENT_NAMES].sort();
}

/** An endpoint for administrators that checks the given admin right. */
export function adminRoute(action: string | null): ProtectedRoute {
  return { roles: ['admin'], action };
}

/** An endpoint for administrators and users, checking the right of the caller's scope. */
export function anyRoleRoute(action: RouteAction): ProtectedRoute {
  return { roles: ['admin', 'user'], action };
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteTable {
  add(method: Method | Method[], path: string | string[], options: RouteOptions, handler: Handler): void;
}

/** The steps of one route, in order; a public route has no caller and so no right to check. */
function routeSteps(
  rt: Runtime,
  method: Method,
  path: string,
  options: RouteOptions,
  handler: Handler,
): Koa.Middleware[] {
  const open = openRoute(auditAction(method, path), options.audit !== false);
  const guard = options.roles
    ? [authenticate(rt, options.roles), checkRight(rt, options.action, options.target)]
    : [];
  const events = options.event ? [fireEvents(rt, options.event)] : [];
  if (options.event) EVENT_NAMES.add(options.event);
  return [open, ...guard, ...events, runHandler(rt, handler)];
}

export function routeTable(router: Router, rt: Runtime): RouteTable {
  return {
    add(methods, paths, options, handler) {
      for (const method of Array.isArray(methods) ? methods : [methods]) {
        for (const path of Array.isArray(paths) ? paths : [paths]) {
          // Declared the way privacyIDEA declares it (`/system/`), matched with and without the
          // final slash: the router treats a trailing slash as optional only when it is not declared.
          const pattern = path.length > 1 ? path.replace(/\/$/, '') : path;
          router[method](pattern, ...routeSteps(rt, method, path, options, handler));
        }
      }
    },
  };
}
