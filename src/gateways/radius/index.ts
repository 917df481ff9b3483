// The RADIUS client of the gateways family (RADIUS server definitions, radius tokens, passthru to
// RADIUS): one Access-Request with Message-Authenticator, its answer verified.
export { type AccessRequest, type RadiusAnswer, type RadiusTarget, sendAccessRequest } from './client.ts';
