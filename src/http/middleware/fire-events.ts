// Around the handler of a route that names a privacyIDEA event: the event fires pre (after the
// right was checked) and post (with the answer, or the failure). Core runs the definitions; a
// failing one never changes the request's outcome.
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';
import { type EventResult, fireEvent } from '../../core/event/index.ts';
import { answerOf } from '../../core/validate/index.ts';
import { asAuthsrvError } from '../../errors.ts';
import type { Reply } from '../envelope.ts';
import { type AnyReply, requestState, routeCall } from '../state.ts';

function isReply(reply: AnyReply | undefined): reply is Reply {
  return reply !== undefined && 'value' in reply;
}

function resultOf(reply: AnyReply | undefined): EventResult {
  if (!isReply(reply)) return { status: true, value: undefined };
  const detail = reply.detail ?? {};
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    status: true,
    value: reply.value,
    authentication: reply.rid === 2 ? answerOf(reply) : undefined,
    message: text(detail.message),
    serial: text(detail.serial),
  };
}

export function fireEvents(rt: Runtime, event: string): Koa.Middleware {
  return async (koa, next) => {
    const state = requestState(koa);
    const { params, caller } = routeCall(koa);
    const request = { event, caller, client: state.client, params: params.texts() };
    await fireEvent(rt, request, 'pre');
    try {
      await next();
    } catch (e) {
      const error = asAuthsrvError(e);
      const message = error.expose ? error.message : 'internal error';
      await fireEvent(rt, request, 'post', { status: false, value: undefined, error: message });
      throw e;
    }
    await fireEvent(rt, request, 'post', resultOf(state.reply));
  };
}
