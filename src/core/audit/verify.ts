// Verifying the audit log (`authsrv audit verify`): every row's signature, and the continuity of
// the ids (a deleted row leaves a gap).
import type { Runtime } from '../context.ts';
import { rowsInBatches } from './records.ts';
import { signatureOk } from './signature.ts';

export interface VerifyResult {
  checked: number;
  badSignatures: number[];
  /** Ids after which rows are missing (gaps in the sequence). */
  gapsAfter: number[];
}

/**
 * Whether the log verified is whole: every signature right and no row missing. Rotation only
 * removes the oldest rows, so a gap inside the log means rows were deleted.
 */
export function auditIntact(r: VerifyResult): boolean {
  return r.badSignatures.length === 0 && r.gapsAfter.length === 0;
}

/** Checks every row's signature and the continuity of ids; `onProgress` after each batch. */
export async function verifyAudit(rt: Runtime, onProgress?: (done: number) => void): Promise<VerifyResult> {
  const result: VerifyResult = { checked: 0, badSignatures: [], gapsAfter: [] };
  let previous: number | undefined;
  for await (const rows of rowsInBatches(rt.store.db.selectFrom('audit'))) {
    for (const r of rows) {
      if (!signatureOk(rt, r)) result.badSignatures.push(r.id);
      if (previous !== undefined && r.id !== previous + 1) result.gapsAfter.push(previous);
      previous = r.id;
      result.checked++;
    }
    onProgress?.(result.checked);
  }
  return result;
}
