// The steps of the HTTP pipeline, one small named Koa middleware each (node-oidc-provider style).
// Every request: setSecurityHeaders → observeLatency (when metrics are on) → startRequest →
// writeAuditRow → renderAnswer → catchFailure → readParameters → the router; every matched route: openRoute → authenticate → checkRight →
// fireEvents → runHandler (authenticate and checkRight only for routes that admit roles, fireEvents
// only for routes that name an event). They talk through koa.state (src/http/state.ts).
export { authenticate } from './authenticate.ts';
export { catchFailure } from './catch-failure.ts';
export { checkRight, type RouteAction, type RouteTarget } from './check-right.ts';
export { fireEvents } from './fire-events.ts';
export { observeLatency } from './observe-latency.ts';
export { auditAction, openRoute } from './open-route.ts';
export { readParameters } from './read-parameters.ts';
export { type Answer, answerer, renderAnswer } from './render-answer.ts';
export { type ApiCall, type Handler, runHandler } from './run-handler.ts';
export { securityHeaders, servesTls, setSecurityHeaders } from './set-security-headers.ts';
export { startRequest } from './start-request.ts';
export { writeAuditRow } from './write-audit-row.ts';
