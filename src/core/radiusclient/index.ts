// RADIUS clients (issue 22, /radiusclient/): the NAS devices allowed to ask authsrv's own RADIUS
// server, by name, address or CIDR subnet, sealed shared secret and whether Message-Authenticator
// is required; and the lookup of the client a datagram comes from.
export { parseClientAddress } from './address.ts';
export {
  deleteRadiusClient,
  listRadiusClients,
  type RadiusClient,
  type RadiusClientInput,
  type RadiusClientView,
  radiusClientFor,
  setRadiusClient,
} from './definitions.ts';
