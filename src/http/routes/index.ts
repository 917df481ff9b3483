// The routes of the REST API, one file per resource; src/http/app.ts mounts them. Every file reads
// the same way: `<resource>Routes(r)` is the resource's route table, one `r.add(method, path,
// right, handler)` line per endpoint in the order they are matched (fixed paths before `:name`);
// below it the named handlers, each reading its parameters, calling one service and returning the
// reply (routes of one kind share a handler factory, e.g. `onSelected(revokeTokens)`).
export { auditRoutes } from './audit.ts';
export { authRoutes } from './auth.ts';
export { caconnectorRoutes } from './caconnector.ts';
export { clientRoutes } from './client.ts';
export { eventRoutes } from './event.ts';
export { healthRoutes } from './healthz.ts';
export { machineRoutes } from './machine.ts';
export { machineresolverRoutes } from './machineresolver.ts';
export { monitoringRoutes } from './monitoring.ts';
export { periodictaskRoutes } from './periodictask.ts';
export { policyRoutes } from './policy.ts';
export { radiusclientRoutes } from './radiusclient.ts';
export { radiusserverRoutes } from './radiusserver.ts';
export { realmRoutes } from './realm.ts';
export { resolverRoutes } from './resolver.ts';
export { serviceidRoutes } from './serviceid.ts';
export { smsgatewayRoutes } from './smsgateway.ts';
export { smtpserverRoutes } from './smtpserver.ts';
export { systemRoutes } from './system.ts';
export { tokenRoutes } from './token.ts';
export { tokenLoadRoutes } from './token-load.ts';
export { tokengroupRoutes } from './tokengroup.ts';
export { userRoutes } from './user.ts';
export { validateRoutes } from './validate.ts';
