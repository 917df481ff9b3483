// First step of a matched route: its audit entry, named like privacyIDEA's (`GET /system/<key>`)
// and audited unless the route opts out, and its parameters with the path variables merged in.
import type Koa from 'koa';
import { newAuditEntry } from '../../core/audit/index.ts';
import { withPathParams } from '../params.ts';
import { requestState } from '../state.ts';

/** privacyIDEA names audit actions by Flask's URL rule: `GET /system/<key>`. */
export function auditAction(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/:(\w+)/g, '<$1>')}`;
}

export function openRoute(action: string, audited: boolean): Koa.Middleware {
  return async (koa, next) => {
    const state = requestState(koa);
    const ua = state.userAgent;
    const audit = newAuditEntry(action, state.startedAt, state.client);
    [audit.user_agent = '', audit.user_agent_version = ''] = (ua ?? '').split(' ')[0]!.split('/');
    if (audited) state.audit = audit;
    const path = (koa.params ?? {}) as Record<string, string>;
    state.route = { params: withPathParams(state.params, path, ua), audit };
    await next();
  };
}
