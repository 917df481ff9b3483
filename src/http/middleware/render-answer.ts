// Writes the outcome of the request as privacyIDEA answers it: a failure as the error envelope
// with the error's own HTTP status, a reply as the success envelope (signed when response signing
// is on), a download, or a bare status; an unknown path as privacyIDEA's bare 404 body.
import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';
import type { Signer } from '../../crypto/index.ts';
import type { AuthsrvError } from '../../errors.ts';
import { errorEnvelope, type Reply, serialise, successEnvelope } from '../envelope.ts';
import { type FileReply, type RequestState, requestState } from '../state.ts';

export function renderAnswer(rt: Pick<Runtime, 'clock'>, signer: Signer | undefined): Koa.Middleware {
  return async (koa, next) => {
    await next();
    const state = requestState(koa);
    const now = rt.clock();
    const { reply } = state;
    if (state.failure) await sendFailure(koa, state, state.failure, now, signer);
    else if (reply && 'empty' in reply) sendEmpty(koa, state.status ?? 204);
    else if (reply && 'file' in reply) sendFile(koa, reply);
    else if (reply) await sendReply(koa, state, reply, now, signer);
    else if (koa.status === 404 && koa.body === undefined) {
      // privacyIDEA answers unknown paths with a bare body, no envelope (reference 0.2).
      koa.status = 404;
      koa.body = { error: 'Not found' };
    }
  };
}

/** privacyIDEA echoes the nonce parameter as it came, whatever its JSON type. */
function nonceOf(state: RequestState): unknown {
  return state.params.values.nonce;
}

async function sendFailure(
  koa: Koa.Context,
  state: RequestState,
  failure: AuthsrvError,
  now: Date,
  signer: Signer | undefined,
): Promise<void> {
  koa.status = failure.httpStatus;
  sendJson(koa, await serialise(errorEnvelope(failure, now), signer, nonceOf(state)));
}

async function sendReply(
  koa: Koa.Context,
  state: RequestState,
  reply: Reply,
  now: Date,
  signer: Signer | undefined,
): Promise<void> {
  koa.status = state.status ?? 200;
  sendJson(koa, await serialise(successEnvelope(reply, now), signer, nonceOf(state)));
}

function sendEmpty(koa: Koa.Context, status: number): void {
  koa.status = status;
  koa.body = '';
}

function sendJson(koa: Koa.Context, text: string): void {
  koa.set('Cache-Control', 'no-cache');
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
