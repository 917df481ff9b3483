// First step of every request: when it started, who sent it (the client address, resolved behind
// trusted proxies) and with which User-Agent, and empty parameters until the body has been read.
import type Koa from 'koa';
import type { Runtime } from '../../core/context.ts';
import { ClientAddress } from '../client-ip.ts';
import { Params } from '../params.ts';
import { requestState } from '../state.ts';

export function startRequest(rt: Pick<Runtime, 'clock' | 'config'>): Koa.Middleware {
  const addresses = new ClientAddress(rt.config.http.trustedProxies);
  return async (koa, next) => {
    const state = requestState(koa);
    state.startedAt = rt.clock();
    state.client = addresses.resolve(koa.req.socket.remoteAddress, koa.get('X-Forwarded-For') || undefined);
    state.userAgent = koa.get('User-Agent') || undefined;
    state.params = new Params({});
    await next();
  };
}
