// The audit log: one row per request or state-changing CLI command, written in signed batches,
// searched with privacyIDEA's filters, exported as CSV, verified and rotated.
export {
  type AuditEntry,
  auditCsvLines,
  countAudit,
  newAuditEntry,
  rotateAudit,
  searchAudit,
  verifyAudit,
  writeAudit,
} from './audit.ts';
export type { AuditQuery } from './query.ts';
