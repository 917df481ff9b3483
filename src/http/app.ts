// The Koa application: one outer middleware reads the parameters, runs the route, turns the reply
// or the error into privacyIDEA's envelope, signs it and writes the audit row.
import { Readable } from 'node:stream';
import Router from '@koa/router';
import Koa from 'koa';
import { writeAudit } from '../core/audit/index.ts';
import type { Runtime } from '../core/context.ts';
import { valueRefusedByDatabase } from '../core/limits.ts';
import { AuthError, AuthsrvError, RequestBodyError } from '../errors.ts';
import { ClientAddress } from './client-ip.ts';
import { errorEnvelope, type Reply, serialise, successEnvelope } from './envelope.ts';
import { Params, parseParams, type RawRequest, readBody } from './params.ts';
import { type FileReply, type RequestState, routeTable } from './route.ts';
import {
  auditRoutes,
  authRoutes,
  clientRoutes,
  healthRoutes,
  policyRoutes,
  realmRoutes,
  resolverRoutes,
  systemRoutes,
  tokengroupRoutes,
  tokenLoadRoutes,
  tokenRoutes,
  userRoutes,
  validateRoutes,
} from './routes/index.ts';

export function createApp(rt: Runtime): Koa {
  const app = new Koa();
  const addresses = new ClientAddress(rt.config.http.trustedProxies);
  const router = new Router();
  const table = routeTable(router, rt);
  for (const mount of [
    authRoutes,
    auditRoutes,
    systemRoutes,
    healthRoutes,
    resolverRoutes,
    realmRoutes,
    userRoutes,
    policyRoutes,
    tokenLoadRoutes,
    tokengroupRoutes,
    tokenRoutes,
    validateRoutes,
    clientRoutes,
  ])
    mount(table);
  const signer = rt.config.security.signResponses ? rt.keys.signer : undefined;

  app.use(async (koa, next) => {
    const state = koa.state as RequestState;
    state.startedAt = rt.clock();
    state.client = addresses.resolve(koa.req.socket.remoteAddress, koa.get('X-Forwarded-For') || undefined);
    state.userAgent = koa.get('User-Agent') || undefined;
    state.params = new Params({});
    let failure: unknown;
    const request: RawRequest = {
      search: koa.querystring,
      contentType: koa.get('Content-Type') || undefined,
      userAgent: state.userAgent,
      body: Buffer.alloc(0),
    };
    try {
      request.body = await readBody(koa.req, rt.config.http.maxBodyBytes);
      state.params = await parseParams(request);
      await next();
    } catch (e) {
      // A value the database refused as too long (or as unstorable text) is bad input, not a
      // server fault: its transaction has rolled back, so the answer is a ParameterError (905).
      failure = valueRefusedByDatabase(e) ?? e;
      // A refused body still leaves the query string, whose nonce the error answer echoes.
      if (e instanceof RequestBodyError)
        state.params = await parseParams({ ...request, body: Buffer.alloc(0) });
    }
    const now = rt.clock();
    // privacyIDEA echoes the nonce parameter as it came, whatever its JSON type.
    const nonce = state.params.values.nonce;
    if (failure !== undefined) {
      if (!(failure instanceof AuthsrvError))
        rt.log.error({ err: failure, path: koa.path }, 'unexpected error');
      koa.status =
        failure instanceof AuthError
          ? 401
          : failure instanceof RequestBodyError
            ? failure.httpStatus
            : failure instanceof AuthsrvError
              ? 200
              : 500;
      sendJson(koa, await serialise(errorEnvelope(failure, now), signer, nonce));
      if (state.audit)
        state.audit.info ||= failure instanceof AuthsrvError ? failure.message : 'internal error';
    } else if (state.reply && 'empty' in state.reply) {
      koa.status = state.status ?? 204;
      koa.body = '';
      if (state.audit) state.audit.success = true;
    } else if (state.reply && 'file' in state.reply) {
      sendFile(koa, state.reply);
      if (state.audit) state.audit.success = true;
    } else if (state.reply) {
      koa.status = state.status ?? 200;
      const envelope = successEnvelope(state.reply, now);
      sendJson(koa, await serialise(envelope, signer, nonce));
      if (state.audit) {
        state.audit.success = true;
        if (state.reply.rid === 2) {
          state.audit.authentication = String((envelope.result as { authentication: string }).authentication);
        }
      }
    } else if (koa.status === 404 && koa.body === undefined) {
      // privacyIDEA answers unknown paths with a bare body, no envelope (reference 0.2).
      koa.status = 404;
      koa.body = { error: 'Not found' };
    }
    if (state.audit) {
      try {
        await writeAudit(rt, state.audit);
      } catch (e) {
        rt.log.error({ err: e }, 'audit row could not be written');
      }
    }
  });
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
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

export type { Reply };
