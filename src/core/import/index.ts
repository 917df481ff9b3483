// Imports of other MFA servers' installations into authsrv: today privacyIDEA 3.x
// (`authsrv import privacyidea`, docs/migrating-from-privacyidea.md).
export {
  type ImportReport,
  importPrivacyidea,
  type PrivacyideaImportOptions,
  type SectionReport,
} from './privacyidea/run.ts';
