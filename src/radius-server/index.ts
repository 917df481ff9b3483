// authsrv's own RADIUS server (issue 22, docs/radius.md): a front end like src/http, listening on
// UDP at radius.listen. It reads RFC 2865 Access-Requests (PAP) and RFC 5997 Status-Server from
// the RADIUS clients of src/core/radiusclient and hands each check to core's validate service.
export type { DropReason, RadiusCounters } from './counters.ts';
export { type RadiusServer, startRadiusServer } from './server.ts';
