// Last step: once the answer is built, completes the request's audit row with the outcome and
// writes it. A row that cannot be written is logged; the answer stands.
import type Koa from 'koa';
import { type AuditEntry, writeAudit } from '../../core/audit/index.ts';
import type { Runtime } from '../../core/context.ts';
import { answerOf } from '../../core/validate/index.ts';
import { type RequestState, requestState } from '../state.ts';

export function writeAuditRow(rt: Runtime): Koa.Middleware {
  return async (koa, next) => {
    await next();
    const state = requestState(koa);
    if (!state.audit) return;
    recordOutcome(state.audit, state);
    try {
      await writeAudit(rt, state.audit);
    } catch (e) {
      rt.log.error({ err: e }, 'audit row could not be written');
    }
  };
}

/** Success, or the failure's message (a hidden one as 'internal error'); /validate and /auth verdicts. */
function recordOutcome(audit: AuditEntry, { failure, reply }: RequestState): void {
  if (failure) {
    audit.info ||= failure.expose ? failure.message : 'internal error';
    return;
  }
  if (!reply) return;
  audit.success = true;
  if ('rid' in reply && reply.rid === 2) audit.authentication = answerOf(reply);
}
