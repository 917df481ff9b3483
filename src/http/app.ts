// The Koa application: a short pipeline of named steps (src/http/middleware/) around the router.
// The outer steps run last on the way back: the answer is rendered (serialised and signed) before
// the audit row is written, and sent only after it.
import Router from '@koa/router';
import Koa from 'koa';
import type { Runtime } from '../core/context.ts';
import { serveMetrics } from './metrics.ts';
import {
  answerer,
  catchFailure,
  observeLatency,
  readParameters,
  renderAnswer,
  setSecurityHeaders,
  startRequest,
  writeAuditRow,
} from './middleware/index.ts';
import { routeTable } from './route.ts';
import {
  auditRoutes,
  authRoutes,
  caconnectorRoutes,
  clientRoutes,
  eventRoutes,
  healthRoutes,
  machineRoutes,
  machineresolverRoutes,
  monitoringRoutes,
  periodictaskRoutes,
  policyRoutes,
  radiusclientRoutes,
  radiusserverRoutes,
  realmRoutes,
  resolverRoutes,
  serviceidRoutes,
  smsgatewayRoutes,
  smtpserverRoutes,
  systemRoutes,
  tokengroupRoutes,
  tokenLoadRoutes,
  tokenRoutes,
  userRoutes,
  validateRoutes,
} from './routes/index.ts';
import { serveSelfservice } from './selfservice/serve.ts';

/** The router of the REST API: every route of src/http/routes/ (tests enumerate its `stack`). */
export function apiRouter(rt: Runtime): Router {
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
    serviceidRoutes,
    smsgatewayRoutes,
    radiusserverRoutes,
    radiusclientRoutes,
    caconnectorRoutes,
    periodictaskRoutes,
    monitoringRoutes,
    machineresolverRoutes,
    machineRoutes,
    smtpserverRoutes,
    eventRoutes,
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
  app.use(setSecurityHeaders(rt));
  if (rt.metrics.enabled) {
    // Scrapes are answered before the latency is measured: they would only measure themselves.
    if (!rt.config.metrics.listen) app.use(serveMetrics(rt));
    app.use(observeLatency(rt));
  }
  const answer = answerer(rt, signer);
  // Koa reports here what fails after the answer started (a download cut short): logged, not printed.
  app.on('error', (err: unknown) => rt.log.error({ err }, 'the response failed after it started'));
  // The self-service page's static files: no audit row, no envelope, its own CSP.
  if (rt.config.http.selfservice) app.use(serveSelfservice());
  app.use(startRequest(rt));
  app.use(writeAuditRow(rt, answer));
  app.use(renderAnswer(answer));
  app.use(catchFailure(rt));
  app.use(readParameters(rt.config.http.maxBodyBytes));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
