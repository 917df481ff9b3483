// Writes the outcome of the request as privacyIDEA answers it: a failure as the error envelope
// with the error's own HTTP status, a reply as the success envelope (signed when response signing
// is on), a download, or a bare status; an unknown path as privacyIDEA's bare 404 body. A caller
// who is not an administrator is not shown the server's file paths in an error (see errors.ts).
// Answering never throws: an outcome that cannot be rendered (a value that cannot be serialised, a
// signer that fails) becomes an internal failure of the request, answered signed while the signer
// works and unsigned otherwise, so that the audit row that follows records it (write-audit-row.ts).
import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';
import { pythonJsonDumps, type Signer } from '../../crypto/index.ts';
import { type AuthsrvError, InternalError, namesServerPath } from '../../errors.ts';
import { errorEnvelope, type Reply, serialise, successEnvelope } from '../envelope.ts';
import { type FileReply, type RequestState, requestState } from '../state.ts';

/** Writes the request's outcome (koa.state) into the response; never throws. */
export type Answer = (koa: Koa.Context) => Promise<void>;

export function answerer(rt: Pick<Runtime, 'clock' | 'log'>, signer: Signer | undefined): Answer {
  return async (koa) => {
    const state = requestState(koa);
    try {
      await render(koa, state, { now: rt.clock(), signer, log: rt.log });
    } catch (e) {
      // The handler's effect, if any, stands; the client is told that the request failed.
      rt.log.error({ err: e, path: koa.path }, 'the answer could not be rendered');
      const now = new Date();
      const failure = new InternalError(e);
      state.failure = failure;
      try {
        await sendFailure(koa, state, failure, { now, signer, log: rt.log });
      } catch {
        // The signer (or the nonce it would echo) is what failed: the answer goes unsigned.
        await sendFailure(koa, state, failure, { now, signer: undefined, log: rt.log });
      }
    }
  };
}

/** The step: answers once the later steps have left their outcome. */
export function renderAnswer(answer: Answer): Koa.Middleware {
  return async (koa, next) => {
    await next();
    await answer(koa);
  };
}

/**
 * The last resort of a failure outside every other step (see startRequest): the generic internal
 * error envelope, unsigned, so that no request is ever answered with Koa's plain-text 500.
 */
export function answerUnexpected(koa: Koa.Context): void {
  if (koa.headerSent) return;
  koa.status = 500;
  sendJson(koa, pythonJsonDumps(errorEnvelope(new InternalError(undefined), new Date())));
}

interface RenderOptions {
  now: Date;
  signer: Signer | undefined;
  log: Runtime['log'];
}

async function render(koa: Koa.Context, state: RequestState, options: RenderOptions) {
  const { reply } = state;
  const { now, signer } = options;
  if (state.failure) await sendFailure(koa, state, state.failure, options);
  else if (reply && 'empty' in reply) sendEmpty(koa, state.status ?? 204);
  else if (reply && 'file' in reply) sendFile(koa, reply);
  else if (reply) await sendReply(koa, state, reply, now, signer);
  else if (koa.status === 404 && koa.body === undefined) {
    // privacyIDEA answers unknown paths with a bare body, no envelope (reference 0.2).
    koa.status = 404;
    koa.body = { error: 'Not found' };
  }
}

/** privacyIDEA echoes the nonce parameter as it came, whatever its JSON type. */
function nonceOf(state: RequestState): unknown {
  return state.params.values.nonce;
}

/** The error envelope; a caller who is not an administrator (or not authenticated) is an outsider. */
async function sendFailure(
  koa: Koa.Context,
  state: RequestState,
  failure: AuthsrvError,
  { now, signer, log }: RenderOptions,
): Promise<void> {
  const outsider = state.route?.caller?.role !== 'admin';
  if (outsider && failure.expose && namesServerPath(failure.message))
    log.warn({ err: failure, path: koa.path }, 'an error naming a server path was shown generically');
  koa.status = failure.httpStatus;
  // A throttled attempt (HTTP 429) says when to come back, in the header as in the detail.
  const retryAfter = failure.details?.retry_after;
  if (typeof retryAfter === 'number') koa.set('Retry-After', String(retryAfter));
  sendJson(koa, await serialise(errorEnvelope(failure, now, outsider), signer, nonceOf(state)));
}

async function sendReply(
  koa: Koa.Context,
  state: RequestState,
  reply: Reply,
  now: Date,
  signer: Signer | undefined,
): Promise<void> {
  const text = await serialise(successEnvelope(reply, now), signer, nonceOf(state));
  koa.status = state.status ?? 200;
  sendJson(koa, text);
}

function sendEmpty(koa: Koa.Context, status: number): void {
  koa.status = status;
  koa.body = '';
}

function sendJson(koa: Koa.Context, text: string): void {
  koa.type = 'application/json';
  koa.body = text;
}

function sendFile(koa: Koa.Context, reply: FileReply): void {
  const { name, contentType, body } = reply.file;
  koa.status = 200;
  koa.set('Content-Disposition', `attachment; filename=${name.replace(/[^\w.-]/g, '_')}`);
  koa.type = contentType;
  koa.body = typeof body === 'string' ? body : Readable.from(body);
}
