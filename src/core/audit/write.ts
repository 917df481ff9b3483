// Writing the audit log: the entry a request or CLI command fills, and its row — computed columns
// filled, text made storable — handed to the store's batch writer (writer.ts), which reserves the
// id, signs and inserts it.
import { signBatch } from '../../crypto/index.ts';
import type { Store } from '../../store/index.ts';
import type { Runtime } from '../context.ts';
import { type AuditEntry, ENTRY_TEXT, type RowFacts, WRITTEN } from './columns.ts';
import { signedText } from './signature.ts';
import { AuditWriter, type UnsignedAuditRow } from './writer.ts';

/** The text columns of an entry, all empty: built once, copied for every request. */
const EMPTY_TEXT = Object.freeze(
  Object.fromEntries(ENTRY_TEXT.map((c) => [c, ''])) as Record<(typeof ENTRY_TEXT)[number], string>,
);

export function newAuditEntry(action: string, startedAt: Date, client = ''): AuditEntry {
  return { ...EMPTY_TEXT, action, client, startedAt, success: false, policies: [] };
}

/** Writes the entry's row; resolves with its id once it is committed. */
export async function writeAudit(rt: Runtime, e: AuditEntry): Promise<number> {
  const facts: RowFacts = {
    startedAt: e.startedAt,
    end: rt.clock(),
    success: e.success,
    policies: e.policies,
    node: rt.node,
  };
  // The id is part of what is signed: the writer reserves it, signs and inserts the row signed.
  return auditWriter(rt).write(storedRow(e, facts));
}

/** The row of an entry: each column's value, text cut to its stored length. */
function storedRow(e: AuditEntry, facts: RowFacts): UnsignedAuditRow {
  const entry = e as unknown as Readonly<Record<string, unknown>>;
  const row: Record<string, unknown> = {};
  for (const c of WRITTEN) {
    const v = c.write ? c.write(facts) : entry[c.column];
    row[c.column] = typeof v === 'string' ? storable(v, c.length) : v;
  }
  return row as unknown as UnsignedAuditRow;
}

/**
 * Text every database stores unchanged: no NUL (PostgreSQL refuses it), no lone surrogate (it
 * would come back as U+FFFD and break the signature), and at most `max` characters — counted in
 * code points as the databases count them, so an emoji at the limit is kept or dropped whole.
 */
export function storable(v: string, max: number | undefined): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what must go
  let out = v.toWellFormed().replace(/\u0000/g, '\uFFFD');
  if (max !== undefined && out.length > max) {
    const chars = [...out];
    if (chars.length > max) out = chars.slice(0, max).join('');
  }
  return out;
}

const writers = new WeakMap<Store, AuditWriter>();

/** The batching writer of a runtime's store (one per store, flushed when the store closes). */
function auditWriter(rt: Runtime): AuditWriter {
  let writer = writers.get(rt.store);
  if (!writer) {
    const signer = rt.keys.signer;
    writer = new AuditWriter(
      rt.store,
      (rows) =>
        signBatch(
          signer,
          rows.map(({ id, row }) => signedText(id, row)),
        ),
      rt.log,
    );
    writers.set(rt.store, writer);
  }
  return writer;
}
