// POST /token/load (reference 3.5): parsed token files (decrypted first when PGP-encrypted to an
// imported GnuPG key) become hardware tokens. As in privacyIDEA, a
// file that cannot be read at all is an error; within a readable file each token is counted as
// imported or not imported, and the reason for each one not imported is logged and returned.
import { sql } from 'kysely';
import { ParameterError, PolicyError } from '../../../errors.ts';
import { chunked } from '../../../store/index.ts';
import type { TypeSettings } from '../../../tokens/index.ts';
import { allow, grantedRealms } from '../../access/index.ts';
import type { Context } from '../../context.ts';
import { realmExists } from '../../directory/index.ts';
import { decryptTokenFile } from '../../gpg/index.ts';
import { typeSettings } from '../settings.ts';
import { findToken, type NewToken } from '../store/index.ts';
import { checkBatch } from './check.ts';
import type { ParsedToken, Rejected } from './parsed.ts';
import { type ImportRequest, parseTokenFile } from './token-file.ts';
import { writeBatch, writeToken } from './write.ts';

export interface ImportResult {
  n_imported: number;
  n_not_imported: number;
  imported: string[];
  notImported: Rejected[];
}

/**
 * The caller must hold `importtokens` for every realm the tokens go to; tokens in no realm need a
 * grant without realm restriction (as for other tokens in no realm).
 */
async function checkImportRight(ctx: Context, realms: readonly string[]): Promise<void> {
  if (realms.length === 0) {
    await allow(ctx, 'importtokens');
    if ((await grantedRealms(ctx, 'importtokens')) !== undefined) {
      throw new PolicyError('Admin actions are defined, but the action importtokens is not allowed!');
    }
    return;
  }
  for (const realm of realms) await allow(ctx, 'importtokens', { realm });
}

/**
 * Tokens written per transaction. A batch is written with a few multi-row INSERTs; when any of
 * its writes fails, nothing of it stays and its tokens are written again one transaction each, so
 * that only the token at fault is not imported, with the reason of its own failure.
 */
export const IMPORT_BATCH = 500;

/**
 * Checks one batch of parsed tokens (checkBatch) and writes the good ones; their reasons not to
 * be imported, in order (undefined: imported).
 */
async function importBatch(
  ctx: Context,
  tokens: readonly ParsedToken[],
  realms: readonly string[],
  settings: TypeSettings,
  seen: Set<string>,
): Promise<(string | undefined)[]> {
  const outcomes = await checkBatch(ctx, tokens, settings, seen);
  const batch = outcomes.flatMap((o) => ('token' in o ? [o.token] : []));
  let batchFailed = false;
  if (batch.length > 0) {
    try {
      await writeBatch(ctx, batch, realms);
    } catch (e) {
      ctx.log.debug({ err: e, tokens: batch.length }, 'token import: batch not written, one token at a time');
      batchFailed = true;
    }
  }
  const reasons: (string | undefined)[] = [];
  for (const o of outcomes) {
    if ('reason' in o) reasons.push(o.reason);
    else reasons.push(batchFailed ? await writeAlone(ctx, o.token, realms) : undefined);
  }
  return reasons;
}

/** A token of a batch that failed, written alone; why it is not imported, or undefined. */
async function writeAlone(
  ctx: Context,
  token: NewToken,
  realms: readonly string[],
): Promise<string | undefined> {
  const serial = token.row.serial;
  try {
    // A token written by someone else since the check exists now.
    if (await findToken(ctx, serial)) return `a token with the serial ${serial} exists already`;
    await writeToken(ctx, token, realms);
    return undefined;
  } catch (e) {
    ctx.log.error({ err: e, serial }, 'token import failed');
    return `could not be stored: ${(e as Error).message}`;
  }
}

/**
 * POST /token/load and `authsrv token import`: checks the right, parses the file and creates one
 * hardware token per entry (description `imported` unless the file gives one). Existing serials
 * are not overwritten: they count as not imported. Each token is stored whole or not at all; the
 * tokens are written IMPORT_BATCH at a time (see importBatch), which stays invisible in the result.
 */
export async function importTokens(ctx: Context, req: ImportRequest): Promise<ImportResult> {
  const realms = (req.tokenrealms ?? []).map((r) => r.trim().toLowerCase()).filter(Boolean);
  await checkImportRight(ctx, realms);
  for (const r of realms) {
    if (!(await realmExists(ctx, r))) throw new ParameterError(`The realm '${r}' does not exist.`);
  }
  // A file PGP-encrypted to an imported GnuPG key is decrypted first (reference 8.1, GPGImport).
  const parsed = await parseTokenFile({ ...req, content: await decryptTokenFile(ctx, req.content) });
  const settings = await typeSettings(ctx);
  const result: ImportResult = {
    n_imported: 0,
    n_not_imported: 0,
    imported: [],
    notImported: [...parsed.rejected],
  };
  const seen = new Set<string>();
  const total = parsed.tokens.length;
  let done = 0;
  for (const tokens of chunked(parsed.tokens, IMPORT_BATCH)) {
    const reasons = await importBatch(ctx, tokens, realms, settings, seen);
    for (const [i, t] of tokens.entries()) {
      const reason = reasons[i];
      if (reason) result.notImported.push({ serial: t.serial, source: t.source, reason });
      else result.imported.push(t.serial);
      req.onProgress?.(++done, total);
    }
  }
  for (const r of result.notImported) {
    ctx.log.info({ serial: r.serial, source: r.source, reason: r.reason }, 'token not imported');
  }
  if (result.notImported.length > 0) {
    ctx.log.warn(
      {
        type: req.type,
        count: result.notImported.length,
        first: result.notImported.slice(0, 10).map((r) => `${r.serial ?? '-'} (${r.source}): ${r.reason}`),
      },
      'token import: some tokens were not imported',
    );
  }
  result.n_imported = result.imported.length;
  result.n_not_imported = result.notImported.length;
  if (result.n_imported >= ANALYZE_AFTER) await refreshPlannerStatistics(ctx);
  return result;
}

/** Imports of at least this many tokens refresh the database's statistics of the token tables. */
export const ANALYZE_AFTER = 1000;

/**
 * A large import can change the token tables by orders of magnitude at once; until autovacuum
 * (PostgreSQL) or the next automatic recalculation (MariaDB) notices, the query planner works with
 * the old sizes, and on PostgreSQL reads every tokeninfo row for a page of 15 tokens (measured:
 * 50 ms instead of 0.1 ms). SQLite plans from its indexes without statistics.
 */
async function refreshPlannerStatistics(ctx: Context): Promise<void> {
  const tables = 'token, tokeninfo, tokenrealm, tokenowner';
  try {
    if (ctx.store.dialect === 'postgres') await sql.raw(`ANALYZE ${tables}`).execute(ctx.store.db);
    if (ctx.store.dialect === 'mysql') await sql.raw(`ANALYZE TABLE ${tables}`).execute(ctx.store.db);
  } catch (e) {
    ctx.log.warn({ err: e }, 'token import: the statistics of the token tables could not be refreshed');
  }
}
