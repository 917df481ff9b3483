// First step of every request: when it started, who sent it (the client address, resolved behind
// trusted proxies) and with which User-Agent, and empty parameters until the body has been read.
// It is also the last guard: every later step answers its own failures, so whatever still escapes
// to here (its own preparation included) is answered with the internal error envelope, never with
// Koa's plain-text 500.
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';
import { ClientAddress } from '../client-ip.ts';
import { Params } from '../params.ts';
import { requestState } from '../state.ts';
import { answerUnexpected } from './render-answer.ts';

export function startRequest(rt: Pick<Runtime, 'clock' | 'config' | 'log'>): Koa.Middleware {
  const addresses = new ClientAddress(rt.config.http.trustedProxies);
  return async (koa, next) => {
    try {
      const state = requestState(koa);
      state.startedAt = rt.clock();
      state.client = addresses.resolve(koa.req.socket.remoteAddress, koa.get('X-Forwarded-For') || undefined);
      state.userAgent = koa.get('User-Agent') || undefined;
      state.params = new Params({});
      await next();
    } catch (e) {
      rt.log.error({ err: e, path: koa.path }, 'unexpected error outside the request steps');
      answerUnexpected(koa);
    }
  };
}
