// What the steps of one request hand on to each other in `koa.state`: the request-wide facts the
// first steps establish, the route's call once a route matched, and the outcome (a reply or a
// failure) that the last steps render and audit.
import type Koa from 'koa';
import type { AuditEntry } from '../core/audit/index.ts';
import type { Caller } from '../core/context.ts';
import type { AuthsrvError } from '../errors.ts';
import type { Reply } from './envelope.ts';
import type { Params } from './params.ts';

/** A non-JSON answer (CSV, reStructuredText, …), sent as a download. */
export interface FileReply {
  file: { name: string; contentType: string; body: string | AsyncIterable<string> };
}

/** An answer without body: only the HTTP status (setStatus, default 204), as /validate/radiuscheck gives. */
export interface EmptyReply {
  empty: true;
}

export type AnyReply = Reply | FileReply | EmptyReply;

/** The call of a matched route: its parameters, its audit entry and, when it admits roles, its caller. */
export interface RouteCall {
  /** The request's parameters with the path variables merged in. */
  params: Params;
  /** The entry the handler fills; written only when it is also the request's `audit`. */
  audit: AuditEntry;
  caller?: Caller;
}

export interface RequestState {
  startedAt: Date;
  client: string;
  userAgent: string | undefined;
  /** The request's parameters; the error answer echoes their nonce. */
  params: Params;
  /** The audit row to write; absent for unaudited endpoints (health probes) and unknown paths. */
  audit?: AuditEntry;
  route?: RouteCall;
  reply?: AnyReply;
  /** HTTP status for a successful reply other than 200 (e.g. 503 from readiness). */
  status?: number;
  failure?: AuthsrvError;
}

export function requestState(koa: Koa.Context): RequestState {
  return koa.state as RequestState;
}

/** The state inside a route, after its first step opened the call. */
export function routeCall(koa: Koa.Context): RouteCall {
  const call = requestState(koa).route;
  if (!call) throw new Error('a route step ran before the route was opened');
  return call;
}
