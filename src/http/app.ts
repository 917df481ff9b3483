// The Koa application: a short pipeline of named steps (src/http/middleware/) around the router.
// The outer steps run last on the way back: the answer is rendered before the audit row is written.
import Router from '@koa/router';
import Koa from 'koa';
import type { Runtime } from '../core/context.ts';
import {
  catchFailure,
  readParameters,
  renderAnswer,
  startRequest,
  writeAuditRow,
} from './middleware/index.ts';
import { routeTable } from './route.ts';
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

function apiRouter(rt: Runtime): Router {
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
  return router;
}

export function createApp(rt: Runtime): Koa {
  const app = new Koa();
  const router = apiRouter(rt);
  const signer = rt.config.security.signResponses ? rt.keys.signer : undefined;
  app.use(startRequest(rt));
  app.use(writeAuditRow(rt));
  app.use(renderAnswer(rt, signer));
  app.use(catchFailure(rt));
  app.use(readParameters(rt.config.http.maxBodyBytes));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
