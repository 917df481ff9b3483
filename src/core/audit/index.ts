// The audit log: one row per request or state-changing CLI command, its columns declared once
// (columns.ts), written in signed batches, searched with privacyIDEA's filters, exported as CSV,
// verified, and rotated (also hourly by a running server).

export { callerColumns } from './caller.ts';
export { auditedCliAction, type CliAction, type CliActionFields, recordCliAction } from './cli-action.ts';
export type { AuditEntry } from './columns.ts';
export { auditCsvLines, countAudit, startAuditExport } from './csv.ts';
export { type ImportedAuditRow, type ImportedCheck, writeImportedAudit } from './import.ts';
export type { AuditQuery } from './query.ts';
export { rotateAudit, rotateAuditNow, startAuditRotation } from './rotation.ts';
export { type AuditPage, searchAudit } from './search.ts';
export { auditIntact, type VerifyResult, verifyAudit } from './verify.ts';
export { newAuditEntry, writeAudit } from './write.ts';
