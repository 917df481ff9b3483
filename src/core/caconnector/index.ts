// CA connectors (/caconnector/, reference 8.5): definitions with their passwords sealed, their
// names for enrollment (/system/names/caconnector), the certificates they issue and revoke for
// certificate tokens, and the refresh of their CRLs.
export {
  certificateAuthoritiesOf,
  refreshCrls,
  writeCaConnectorCrl,
} from './certificates.ts';
export {
  type CaConnectorName,
  type CaConnectorView,
  caConnectorNames,
  caConnectorSpecific,
  caTypeNames,
  deleteCaConnector,
  listCaConnectors,
  setCaConnector,
} from './definitions.ts';
