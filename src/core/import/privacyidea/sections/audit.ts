// privacyIDEA's audit trail (table pidea_audit; --with-audit only): every row into authsrv's audit
// log with its original dates, marked as imported from privacyIDEA with its number there and the
// result of checking privacyIDEA's signature (RSA-PSS, SHA-256, maximum salt, over the text
// STORAGE.md §9 describes) with PI_AUDIT_KEY_PUBLIC: verified, failed, not checked (no key given)
// or old-format (a signature of before 3.x, not checked). The rows are read in batches by id, once
// to check them (plan) and once to write them.
import { constants, type KeyObject, verify } from 'node:crypto';
import { type ImportedAuditRow, type ImportedCheck, writeImportedAudit } from '../../../audit/index.ts';
import type { Context } from '../../../context.ts';
import type { ImportSection } from '../section.ts';
import type { PiSource } from '../source.ts';
import {
  piDateTime,
  piDurationMicros,
  piInt,
  piIsoDate,
  piText,
  pythonDateTime,
  pythonTimedelta,
} from '../values.ts';

const SOURCE = 'privacyidea';
const READ_BATCH = 1000;
const PSS_PREFIX = 'rsa_sha256_pss:';
/** Rows whose signature failed named in the notes at most. */
const NAMED_MAX = 20;

type PiAuditRow = Record<string, unknown>;

export const auditSection: ImportSection = {
  name: 'audit',
  optional: 'audit',
  async plan({ source, auditPublicKey }, ctx) {
    const checks = new Map<number, ImportedCheck>();
    for await (const rows of auditBatches(source))
      for (const r of rows) checks.set(Number(r.id), checkSignature(r, auditPublicKey));
    const numbers = [...checks.keys()];
    return {
      objects: numbers.map((n) => `#${n}`),
      skipped: [],
      conflicts: await importedBefore(ctx, new Set(numbers)),
      notes: checkNotes(checks),
      async write(inner, progress) {
        let written = 0;
        for await (const rows of auditBatches(source)) {
          const imported = rows.map((r) => importedRow(r, checks.get(Number(r.id)) ?? 'not checked'));
          await writeImportedAudit(inner, imported, (n) => progress(written + n));
          written += rows.length;
        }
      },
    };
  },
};

/** pidea_audit's rows, oldest first, READ_BATCH at a time. */
async function* auditBatches(source: PiSource): AsyncGenerator<PiAuditRow[]> {
  let after = -1;
  for (;;) {
    const rows: PiAuditRow[] = await source.db
      .selectFrom('pidea_audit')
      .selectAll()
      .where('id', '>', after)
      .orderBy('id')
      .limit(READ_BATCH)
      .execute();
    if (rows.length === 0) return;
    yield rows;
    after = Number(rows.at(-1)!.id);
  }
}

/** The privacyIDEA row numbers authsrv already holds as imported rows. */
async function importedBefore(ctx: Context, numbers: ReadonlySet<number>): Promise<string[]> {
  const rows = await ctx.store.db
    .selectFrom('audit')
    .select('imported_number')
    .where('imported_from', '=', SOURCE)
    .execute();
  return rows
    .map((r) => Number(r.imported_number))
    .filter((n) => numbers.has(n))
    .sort((a, b) => a - b)
    .map((n) => `#${n}`);
}

/** The check's results counted, and the rows whose signature failed named. */
function checkNotes(checks: ReadonlyMap<number, ImportedCheck>): string[] {
  const counts = new Map<ImportedCheck, number>();
  const failed: number[] = [];
  for (const [n, check] of checks) {
    counts.set(check, (counts.get(check) ?? 0) + 1);
    if (check === 'failed') failed.push(n);
  }
  const notes = [...counts].map(([check, n]) => `privacyIDEA signature ${check}: ${n} rows`);
  if (failed.length > 0) {
    const named = failed.slice(0, NAMED_MAX).map((n) => `#${n}`);
    if (failed.length > NAMED_MAX) named.push(`and ${failed.length - NAMED_MAX} more`);
    notes.push(`privacyIDEA signature failed (changed since privacyIDEA wrote them): ${named.join(', ')}`);
  }
  return notes;
}

function checkSignature(r: PiAuditRow, key: KeyObject | undefined): ImportedCheck {
  const signature = piText(r.signature);
  if (signature === '') return 'failed';
  if (!signature.startsWith(PSS_PREFIX)) return 'old-format';
  if (!key) return 'not checked';
  const hex = signature.slice(PSS_PREFIX.length);
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) return 'failed';
  const ok = verify(
    'sha256',
    Buffer.from(signedMessage(r), 'utf8'),
    { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO },
    Buffer.from(hex, 'hex'),
  );
  return ok ? 'verified' : 'failed';
}

/** The text privacyIDEA signed: its values as Python prints them (NULL is None). */
export function signedMessage(r: PiAuditRow): string {
  const py = (v: unknown) => (v === null || v === undefined ? 'None' : String(v));
  const date = piDateTime(r.date);
  const parts = [
    `id=${py(r.id)}`,
    `date=${date ? pythonDateTime(date) : 'None'}`,
    `action=${py(r.action)}`,
    `succ=${py(r.success)}`,
    `serial=${py(r.serial)}`,
    `t=${py(r.token_type)}`,
    `u=${py(r.user)}`,
    `r=${py(r.realm)}`,
    `adm=${py(r.administrator)}`,
    `ad=${py(r.action_detail)}`,
    `i=${py(r.info)}`,
    `ps=${py(r.privacyidea_server)}`,
    `c=${py(r.client)}`,
    `l=${py(r.loglevel)}`,
    `cl=${py(r.clearance_level)}`,
  ];
  // Appended only when set (Python's truth: an empty text or a zero duration is not).
  const start = piDateTime(r.startdate);
  if (start) parts.push(pythonDateTime(start));
  const duration = piDurationMicros(r.duration);
  if (duration) parts.push(pythonTimedelta(duration));
  if (piText(r.container_serial)) parts.push(`c_serial=${piText(r.container_serial)}`);
  if (piText(r.container_type)) parts.push(`ct=${piText(r.container_type)}`);
  return parts.join(',');
}

/** A privacyIDEA row as a row of authsrv's log: dates in ISO 8601 (UTC), the duration in seconds. */
function importedRow(r: PiAuditRow, check: ImportedCheck): ImportedAuditRow {
  return {
    date: piIsoDate(r.date) ?? '',
    startdate: piIsoDate(r.startdate) ?? '',
    duration: (piDurationMicros(r.duration) ?? 0) / 1_000_000,
    action: piText(r.action),
    success: piInt(r.success) ?? 0,
    authentication: piText(r.authentication),
    serial: piText(r.serial),
    token_type: piText(r.token_type),
    container_serial: piText(r.container_serial),
    container_type: piText(r.container_type),
    user: piText(r.user),
    realm: piText(r.realm),
    resolver: piText(r.resolver),
    administrator: piText(r.administrator),
    action_detail: piText(r.action_detail),
    info: piText(r.info),
    node: piText(r.privacyidea_server),
    policies: piText(r.policies),
    client: piText(r.client),
    user_agent: piText(r.user_agent),
    user_agent_version: piText(r.user_agent_version),
    log_level: piText(r.loglevel),
    clearance_level: piText(r.clearance_level),
    thread_id: piText(r.thread_id),
    imported_from: SOURCE,
    imported_number: String(r.id),
    imported_check: check,
  };
}
