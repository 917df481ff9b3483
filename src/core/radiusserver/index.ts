// RADIUS server definitions (/radiusserver/, reference 8.4): identifier, server, port, a sealed
// secret, description, timeout and retries; their names (/system/names/radius); the test request;
// and the Access-Requests the radius token type and passthru to RADIUS send through them.
export {
  deleteRadiusServer,
  findRadiusServer,
  listRadiusServers,
  type RadiusServer,
  type RadiusServerInput,
  type RadiusServerView,
  radiusServerNames,
  setRadiusServer,
} from './definitions.ts';
export {
  type RadiusAnswer,
  radiusAuthenticate,
  type TestRequestInput,
  type TestRequestResult,
  testRadiusRequest,
  type UpstreamRequest,
} from './requests.ts';
