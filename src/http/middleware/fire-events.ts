// Around the handler of a route that names a privacyIDEA event: the event fires pre (after the
// right was checked) and post (with the answer, or the failure). Core runs the definitions; a
// failing one never changes the request's outcome, unless it aborts the request (Script with
// raise_error). The RequestMangler changes the parameters the handler then reads; the
// ResponseMangler changes a successful JSON answer (the edits are applied when it is rendered).
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';
import {
  type EventResult,
  fireEvent,
  type RequestParameters,
  type ResponseBody,
} from '../../core/event/index.ts';
import { answerOf } from '../../core/validate/index.ts';
import { asAuthsrvError } from '../../errors.ts';
import type { Reply } from '../envelope.ts';
import type { Params } from '../params.ts';
import { type ResponseEdit, responseBody } from '../response-edits.ts';
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

/** The request's parameters for the handlers: a change reaches both the handler's and the events' view. */
function parameters(params: Params, texts: Record<string, string>): RequestParameters {
  return {
    get: (name) => (Object.hasOwn(texts, name) ? texts[name] : undefined),
    set: (name, value) => {
      params.values[name] = value;
      texts[name] = value;
    },
    delete: (name) => {
      delete params.values[name];
      delete texts[name];
    },
  };
}

export function fireEvents(rt: Runtime, event: string): Koa.Middleware {
  return async (koa, next) => {
    const state = requestState(koa);
    const { params, caller } = routeCall(koa);
    const texts = params.texts();
    const request = { event, caller, client: state.client, params: texts };
    const edits = { parameters: parameters(params, texts) };
    await fireEvent(rt, request, 'pre', undefined, edits);
    try {
      await next();
    } catch (e) {
      const error = asAuthsrvError(e);
      const message = error.expose ? error.message : 'internal error';
      await fireEvent(rt, request, 'post', { status: false, value: undefined, error: message }, edits);
      throw e;
    }
    let response: ResponseBody | undefined;
    if (isReply(state.reply)) {
      const reply = state.reply;
      let changes: ResponseEdit[] | undefined;
      response = responseBody((edit) => {
        // A copy on the first change: a handler may answer with a reply object it shares.
        if (!changes) {
          changes = [...(reply.edits ?? [])];
          state.reply = { ...reply, edits: changes };
        }
        changes.push(edit);
      });
    }
    await fireEvent(rt, request, 'post', resultOf(state.reply), { ...edits, response });
  };
}
