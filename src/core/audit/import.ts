// Audit rows imported from another server (`authsrv import privacyidea --with-audit`): written
// into authsrv's own log with their original dates and values, marked with where they came from,
// their number there and whether the source's signature verified. authsrv signs them with its own
// key like its own rows, the mark included (docs/audit.md): from the import on, `audit verify`
// and sig_check show whether they changed; the source's signature was checked once, at the import.
import type { Insertable } from 'kysely';
import { signBatch } from '../../crypto/index.ts';
import { type AuditTable, chunked, insertRows, reserveAuditIds } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import { COLUMNS } from './columns.ts';
import { signedText } from './signature.ts';
import { storable } from './write.ts';

/** The result of checking an imported row's signature with the source's public key. */
export type ImportedCheck = 'verified' | 'failed' | 'not checked' | 'old-format';

/** An imported row: every column but the id (authsrv's, reserved here) and the signature. */
export type ImportedAuditRow = Omit<
  Insertable<AuditTable>,
  'id' | 'signature' | 'imported_from' | 'imported_number' | 'imported_check'
> & { imported_from: string; imported_number: string; imported_check: ImportedCheck };

/** Rows reserved, signed and inserted at a time. */
const BATCH = 500;

/**
 * Writes imported rows in their order under new ids of authsrv's log (after every row it holds),
 * signed, in bulk INSERTs. `rt.store.db` may be a transaction: the rows join it.
 */
export async function writeImportedAudit(
  rt: Runtime,
  rows: readonly ImportedAuditRow[],
  progress?: (written: number) => void,
): Promise<void> {
  let written = 0;
  for (const part of chunked(rows, BATCH)) {
    const stored = part.map(storableRow);
    const ids = await reserveAuditIds(rt.store, stored.length);
    const signatures = await signBatch(
      rt.keys.signer,
      stored.map((row, i) => signedText(ids[i]!, row)),
    );
    await insertRows(
      rt.store.db,
      rt.store.dialect,
      'audit',
      stored.map((row, i) => ({ ...row, id: ids[i]!, signature: signatures[i]! })),
    );
    written += part.length;
    progress?.(written);
  }
}

/** Text cut to the columns' lengths, as authsrv's own rows are (the signature covers what is stored). */
function storableRow(row: ImportedAuditRow): ImportedAuditRow {
  const out: Record<string, unknown> = { ...row };
  for (const c of COLUMNS) {
    const v = out[c.column];
    if (c.kind === 'text') out[c.column] = storable(typeof v === 'string' ? v : String(v ?? ''), c.length);
  }
  return out as ImportedAuditRow;
}
