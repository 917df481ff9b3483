// Last step: once the answer is built (serialised and signed), completes the request's audit row
// with the outcome and writes it. Audit and effect are never separated: a row that cannot be
// written (its preparation included) makes the request fail with the internal error envelope, and
// the log keeps the entry the row would have held. The answer is sent only after this step, so a
// client never sees a success whose row is missing.
import type Koa from 'koa';
import { type AuditEntry, writeAudit } from '../../core/audit/index.ts';
import type { Runtime } from '../../core/context.ts';
import { InternalError } from '../../errors.ts';
import { type RequestState, requestState } from '../state.ts';
import type { Answer } from './render-answer.ts';

export function writeAuditRow(rt: Runtime, answer: Answer): Koa.Middleware {
  return async (koa, next) => {
    const state = requestState(koa);
    try {
      await next();
    } catch (e) {
      // The answer step answers every outcome; should anything still escape it, the request has
      // failed all the same, and its row says so.
      rt.log.error({ err: e, path: koa.path }, 'unexpected error after the answer');
      state.failure = new InternalError(e);
      await answer(koa);
    }
    if (!state.audit) return;
    try {
      recordOutcome(state.audit, state);
      await writeAudit(rt, state.audit);
    } catch (e) {
      rt.log.error(
        { err: e, path: koa.path, audit: state.audit },
        'audit row could not be written: the request is answered with an error',
      );
      state.failure = new InternalError(e);
      await answer(koa);
    }
  };
}

/**
 * What the row records: the handler's outcome once it finished (its effect happened, even when the
 * answer then failed), and the failure's message (a hidden one as 'internal error'); a failure of
 * the answer comes after what the handler recorded. An authentication's row (/validate, /auth: its
 * handler filled the authentication column from core, which gives its success beside it) keeps that
 * success: a rejected check or login answered, yet failed.
 */
function recordOutcome(audit: AuditEntry, { failure, reply }: RequestState): void {
  if (reply && audit.authentication === '') audit.success = true;
  if (!failure) return;
  const message = failure.expose ? failure.message : 'internal error';
  if (!reply) audit.info ||= message;
  else audit.info = [audit.info, `the answer failed: ${message}`].filter(Boolean).join('; ');
}
