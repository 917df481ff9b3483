// CA types (reference 8.5): the plug-in family behind /caconnector/.
export type {
  CaFiles,
  CaOptionSpec,
  CaType,
  Crl,
  IssuedCertificate,
  IssueRequest,
  OpenedCa,
  RevokedEntry,
  TemplateView,
} from './ca-type.ts';
export { crlNextUpdate } from './crl.ts';
export { toPkcs12 } from './pkcs12.ts';
export { caType, caTypeNames } from './registry.ts';
export { parseTemplates } from './templates.ts';
