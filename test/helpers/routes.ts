// Every route of the REST API, read from the router the app mounts (src/http/app.ts, apiRouter), so
// that a test covering "every route" (the fuzz test, the secrets test) also covers routes added later.
import type { Runtime } from '../../src/core/context.ts';
import { apiRouter } from '../../src/http/app.ts';

export interface ApiRoute {
  /** GET, POST, PUT, PATCH or DELETE (HEAD, which Koa adds to every GET, is left out). */
  method: string;
  /** The path as declared, e.g. `/token/info/:serial/:key`. */
  path: string;
  /** The names of its path parameters, in order. */
  params: string[];
}

export function apiRoutes(rt: Runtime): ApiRoute[] {
  const out: ApiRoute[] = [];
  for (const layer of apiRouter(rt).stack) {
    for (const method of layer.methods) {
      if (method === 'HEAD') continue;
      out.push({
        method,
        path: String(layer.path),
        params: layer.paramNames.map((p) => String(p.name)),
      });
    }
  }
  return out;
}

/** The route's path with its parameters replaced by `value(name)`, each URL-encoded. */
export function fillPath(route: ApiRoute, value: (name: string) => string, encode = true): string {
  let path = route.path;
  for (const name of route.params) {
    const v = value(name);
    path = path.replace(`:${name}`, encode ? encodeURIComponent(v) : v);
  }
  return path;
}
