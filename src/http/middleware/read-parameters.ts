// Reads the body (up to the configured size) and merges it with the query string into the
// request's parameters, as privacyIDEA does (src/http/params.ts has the rules), within the limits
// of src/http/request-limits.ts: a refused request never reaches a route.
import type Koa from 'koa';
import { parseParams, type RawRequest, readBody } from '../params.ts';
import { requestState } from '../state.ts';

export function readParameters(maxBodyBytes: number): Koa.Middleware {
  return async (koa, next) => {
    const state = requestState(koa);
    const request: RawRequest = {
      search: koa.querystring,
      contentType: koa.get('Content-Type') || undefined,
      userAgent: state.userAgent,
      body: Buffer.alloc(0),
    };
    try {
      request.body = await readBody(koa.req, maxBodyBytes);
      state.params = await parseParams(request);
    } catch (e) {
      // A refused body still leaves the query string, whose nonce the error answer echoes
      // (unless the query string is what was refused).
      state.params = await parseParams({ ...request, body: Buffer.alloc(0) }).catch(() => state.params);
      throw e;
    }
    await next();
  };
}
