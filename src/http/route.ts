// The shape every endpoint follows: merged parameters, authentication for the roles it admits, the
// service call, and a reply that the app turns into the envelope. Route files stay declarative.
import type Router from '@koa/router';
import { allow, type Target, targetOf } from '../core/access/index.ts';
import { type AuditEntry, newAuditEntry } from '../core/audit/index.ts';
import { verifyJwt } from '../core/auth/index.ts';
import { type Caller, type Context, type Role, type Runtime, withCaller } from '../core/context.ts';
import type { Reply } from './envelope.ts';
import { type Params, withPathParams } from './params.ts';

/** A non-JSON answer (CSV, reStructuredText, …), sent as a download. */
export interface FileReply {
  file: { name: string; contentType: string; body: string | AsyncIterable<string> };
}

/** An answer without body: only the HTTP status (setStatus, default 204), as /validate/radiuscheck gives. */
export interface EmptyReply {
  empty: true;
}

export interface RequestState {
  startedAt: Date;
  client: string;
  userAgent: string | undefined;
  params: Params;
  audit?: AuditEntry;
  reply?: Reply | FileReply | EmptyReply;
  /** HTTP status for a successful reply other than 200 (e.g. 503 from readiness). */
  status?: number;
}

export interface ApiCall {
  rt: Runtime;
  params: Params;
  audit: AuditEntry;
  client: string;
  /** Request headers, names in lower case. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  caller: Caller | undefined;
  /** The service context of the authenticated caller. */
  context(): Context;
  setStatus(status: number): void;
}

/**
 * The right a protected endpoint checks before its handler runs, for the target its `user`,
 * `realm` and `resolver` parameters name: one action for both roles, or one per role (a role
 * without an entry is not checked). null: the endpoint checks no right, or checks it in its
 * service because the answer depends on a value (custom attributes, audit realms).
 */
export type RouteAction = string | Partial<Record<Role, string>> | null;

interface PublicRoute {
  roles?: undefined;
  action?: undefined;
  target?: undefined;
  /** Health probes are not audited, so that monitoring does not flood the log. */
  audit?: boolean;
}

interface ProtectedRoute {
  /** Roles admitted. */
  roles: readonly Role[];
  /** Required so that no endpoint forgets its policy check. */
  action: RouteAction;
  /** The target of the check when the endpoint names it otherwise than by user/realm/resolver. */
  target?: (params: Readonly<Record<string, string>>) => Target;
  audit?: boolean;
}

export type RouteOptions = PublicRoute | ProtectedRoute;

/** An endpoint for administrators that checks the given admin right. */
export function adminRoute(action: string | null): ProtectedRoute {
  return { roles: ['admin'], action };
}

/** An endpoint for administrators and users, checking the right of the caller's scope. */
export function anyRoleRoute(action: RouteAction): ProtectedRoute {
  return { roles: ['admin', 'user'], action };
}

function actionFor(action: RouteAction | undefined, role: Role): string | undefined {
  if (action === null || action === undefined) return undefined;
  return typeof action === 'string' ? action : action[role];
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Handler = (
  call: ApiCall,
) => Promise<Reply | FileReply | EmptyReply> | Reply | FileReply | EmptyReply;

export interface RouteTable {
  add(method: Method | Method[], path: string | string[], options: RouteOptions, handler: Handler): void;
}

/** privacyIDEA names audit actions by Flask's URL rule: `GET /system/<key>`. */
function auditAction(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/:(\w+)/g, '<$1>')}`;
}

export function routeTable(router: Router, rt: Runtime): RouteTable {
  return {
    add(methods, paths, options, handler) {
      for (const method of Array.isArray(methods) ? methods : [methods]) {
        for (const path of Array.isArray(paths) ? paths : [paths]) {
          // Declared the way privacyIDEA declares it (`/system/`), matched with and without the
          // final slash: the router treats a trailing slash as optional only when it is not declared.
          const pattern = path.length > 1 ? path.replace(/\/$/, '') : path;
          router[method](pattern, async (koa) => {
            const state = koa.state as RequestState;
            const ua = state.userAgent;
            const audit = newAuditEntry(auditAction(method, path), state.startedAt, state.client);
            [audit.user_agent = '', audit.user_agent_version = ''] = (ua ?? '').split(' ')[0]!.split('/');
            if (options.audit !== false) state.audit = audit;
            const params = withPathParams(state.params, koa.params as Record<string, string>, ua);
            const caller = options.roles
              ? await verifyJwt(
                  rt,
                  koa.get('PI-Authorization') || koa.get('Authorization') || undefined,
                  options.roles,
                  state.client,
                )
              : undefined;
            if (caller?.role === 'admin') audit.administrator = caller.username;
            else if (caller) {
              audit.user = caller.username;
              audit.realm = caller.realm;
            }
            const action = caller && actionFor(options.action, caller.role);
            if (caller && action) {
              const data = params.texts();
              const target = options.target ? options.target(data) : targetOf(data);
              await allow(withCaller(rt, caller), action, target, {
                headers: koa.headers as Record<string, string>,
                data,
                method: koa.method,
                path: koa.path,
              });
            }
            state.reply = await handler({
              rt,
              params,
              audit,
              client: state.client,
              headers: koa.headers,
              caller,
              context: () => {
                if (!caller) throw new Error('route without roles asked for a caller context');
                return withCaller(rt, caller);
              },
              setStatus: (s) => {
                state.status = s;
              },
            });
          });
        }
      }
    },
  };
}
