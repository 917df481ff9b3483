// A route's own work: its handler gets the call (parameters, audit entry, caller, service context)
// and returns the reply that the answer step renders.
import type Koa from 'koa';
import type { AuditEntry } from '../../core/audit/index.ts';
import { type Caller, type Context, type Runtime, withCaller } from '../../core/context.ts';
import type { Params } from '../params.ts';
import { type AnyReply, requestState, routeCall } from '../state.ts';

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

export type Handler = (call: ApiCall) => Promise<AnyReply> | AnyReply;

export function runHandler(rt: Runtime, handler: Handler): Koa.Middleware {
  return async (koa) => {
    const state = requestState(koa);
    const { params, audit, caller } = routeCall(koa);
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
  };
}
