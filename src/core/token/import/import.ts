// POST /token/load (reference 3.5): parsed token files become hardware tokens. As in privacyIDEA, a
// file that cannot be read at all is an error; within a readable file each token is counted as
// imported or not imported, and the reason for each one not imported is logged and returned.
import { type Insertable, sql } from 'kysely';
import { ParameterError, PolicyError } from '../../../errors.ts';
import {
  chunked,
  insertRows,
  rowsPerStatement,
  type TokenInfoTable,
  type TokenOwnerTable,
  type TokenRealmTable,
  type TokenTable,
} from '../../../store/index.ts';
import { findTokenType, isHashlib } from '../../../tokens/index.ts';
import { allow, grantedRealms, isAllowed } from '../../access/index.ts';
import type { Context } from '../../context.ts';
import { findUser, realmExists } from '../../directory/index.ts';
import { checkLength, cutChars, LIMITS } from '../../limits.ts';
import { ownerRecord } from '../owner.ts';
import { checkSerial } from '../serial.ts';
import { typeSettings } from '../settings.ts';
import {
  findToken,
  sealKey,
  setTokenInfo,
  setTokenOwner,
  setTokenRealms,
  type TokenOwner,
} from '../store.ts';
import { HEX } from './oathcsv.ts';
import type { ParsedToken, Rejected } from './parsed.ts';
import { type ImportRequest, parseTokenFile } from './token-file.ts';

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

function isoSeconds(d: Date): string {
  return `${d.toISOString().slice(0, 19)}+00:00`;
}

function intSetting(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** The types whose whole state is a secret and an OTP length. */
const IMPORTABLE = new Set(['hotp', 'totp', 'pw', 'yubikey']);

/**
 * Tokens written per transaction. A batch is written with a few multi-row INSERTs; when any of
 * its writes fails, nothing of it stays and its tokens are written again one transaction each, so
 * that only the token at fault is not imported, with the reason of its own failure.
 */
export const IMPORT_BATCH = 500;

/** A token that passed every check, ready to be written. */
interface NewToken {
  row: Insertable<TokenTable>;
  info: Record<string, string>;
  owner: TokenOwner | undefined;
}

/** The checks of an entry that need no database: the reason when it cannot be imported. */
function entryProblem(t: ParsedToken): string | undefined {
  const type = findTokenType(t.type);
  if (!type) return `authsrv has no ${t.type} token type`;
  if (!IMPORTABLE.has(type.type)) return `tokens of type ${type.type} can not be imported`;
  try {
    checkSerial(t.serial);
  } catch {
    return `invalid serial '${t.serial}'`;
  }
  if (!HEX.test(t.otpkey)) return 'the key is not hexadecimal';
  if (t.otpkey.length > LIMITS.otpkey) return `the key is longer than ${LIMITS.otpkey} characters`;
  return undefined;
}

/**
 * Which of these serials name tokens in the store, with one query per IN list. Serials compare
 * exactly on every dialect (MariaDB tables have a binary collation), as findToken compares them.
 */
async function existingSerials(ctx: Context, serials: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunked([...new Set(serials)], rowsPerStatement(ctx.store.dialect, 1))) {
    const rows = await ctx.store.db
      .selectFrom('token')
      .select('serial')
      .where('serial', 'in', part)
      .execute();
    for (const r of rows) found.add(r.serial);
  }
  return found;
}

/** The checks that need the owner and the settings, and the rows of the token; or the reason. */
async function prepareToken(
  ctx: Context,
  t: ParsedToken,
  settings: { get(k: string): string | undefined },
): Promise<NewToken | string> {
  const type = findTokenType(t.type)!;
  const info: Record<string, string> = { tokenkind: 'hardware', creation_date: isoSeconds(ctx.clock()) };
  if (t.type === 'hotp' || t.type === 'totp') {
    const hashlib = (t.hashlib ?? 'sha1').toLowerCase();
    if (!isHashlib(hashlib)) return `unsupported hashlib '${t.hashlib}'`;
    info.hashlib = hashlib;
  }
  if (t.type === 'totp') {
    info.timeStep = String(t.timeStep ?? 30);
    info.timeWindow = settings.get('totp.timeWindow') || '180';
    info.timeShift = String(t.timeShift ?? 0);
  }
  let owner: Awaited<ReturnType<typeof findUser>>;
  if (t.user) {
    const u = t.user;
    try {
      owner = u.realm ? await findUser(ctx, u.username, u.realm) : undefined;
    } catch {
      owner = undefined;
    }
    if (!owner || (u.resolver && owner.resolver !== u.resolver)) {
      // privacyIDEA imports the token unassigned then.
      ctx.log.warn({ serial: t.serial, user: u }, 'token import: the user of the line does not exist');
      owner = undefined;
    } else if (
      !(await isAllowed(ctx, 'importtokens', {
        user: `${owner.login}@${owner.realm}`,
        resolver: owner.resolver,
      }))
    ) {
      return `the administrator may not import tokens for the user ${owner.login}@${owner.realm}`;
    }
  }
  const row: Insertable<TokenTable> = {
    serial: t.serial,
    tokentype: type.type,
    description: cutChars(t.description ?? 'imported', 80),
    otplen: t.otplen ?? intSetting(settings.get('DefaultOtpLen'), 6),
    key_enc: sealKey(ctx, Buffer.from(t.otpkey, 'hex')),
    pin_hash: '',
    maxfail: intSetting(settings.get('DefaultMaxFailCount'), 10),
    failcount: 0,
    count: type.type === 'hotp' ? (t.counter ?? 0) : 0,
    count_window: intSetting(settings.get('DefaultCountWindow'), 10),
    sync_window: intSetting(settings.get('DefaultSyncWindow'), 1000),
    active: 1,
    revoked: 0,
    locked: 0,
    rollout_state: '',
  };
  return { row, info, owner: owner && ownerRecord(owner) };
}

/** One token in a transaction of its own: the token row, its tokeninfo, realms and owner or nothing. */
async function writeToken(ctx: Context, n: NewToken, realms: readonly string[]): Promise<void> {
  await ctx.store.db.transaction().execute(async (trx) => {
    await trx.insertInto('token').values(n.row).execute();
    const { id } = await trx
      .selectFrom('token')
      .select('id')
      .where('serial', '=', n.row.serial)
      .executeTakeFirstOrThrow();
    await setTokenInfo(ctx, trx, id, n.info);
    await setTokenRealms(trx, id, realms);
    if (n.owner) await setTokenOwner(trx, id, n.owner);
  });
}

/**
 * A batch of tokens in one transaction, with the rows writeToken writes (tokeninfo inserted
 * rather than updated: the tokens are new), in multi-row INSERTs. Anything unexpected throws, and
 * the caller writes the batch token by token, which reports the token at fault as writeToken does.
 */
async function writeBatch(
  ctx: Context,
  batch: readonly NewToken[],
  realms: readonly string[],
): Promise<void> {
  const dialect = ctx.store.dialect;
  for (const n of batch) {
    for (const [key, value] of Object.entries(n.info)) {
      checkLength('tokeninfo key', key, LIMITS.name);
      checkLength(`tokeninfo ${key.slice(0, 40)}`, value, LIMITS.text);
    }
  }
  await ctx.store.db.transaction().execute(async (trx) => {
    await insertRows(
      trx,
      dialect,
      'token',
      batch.map((n) => n.row),
    );
    const ids = new Map<string, number>();
    for (const part of chunked(
      batch.map((n) => n.row.serial),
      rowsPerStatement(dialect, 1),
    )) {
      const rows = await trx
        .selectFrom('token')
        .select(['id', 'serial'])
        .where('serial', 'in', part)
        .execute();
      for (const r of rows) ids.set(r.serial, r.id);
    }
    // The ids of the import's realms and of the owners' realms, in one query.
    const ownerRealms = [...new Set(batch.flatMap((n) => (n.owner ? [n.owner.realm] : [])))];
    const realmNames = [...new Set([...realms.map((r) => r.toLowerCase()), ...ownerRealms])];
    const realmIds = new Map<string, number>();
    if (realmNames.length > 0) {
      const rows = await trx
        .selectFrom('realm')
        .select(['id', 'name'])
        .where('name', 'in', realmNames)
        .execute();
      for (const r of rows) realmIds.set(r.name, r.id);
    }
    const tokenRealmIds = [
      ...new Set(
        realms.flatMap((r) => {
          const id = realmIds.get(r.toLowerCase());
          return id === undefined ? [] : [id];
        }),
      ),
    ];
    const infos: Insertable<TokenInfoTable>[] = [];
    const links: Insertable<TokenRealmTable>[] = [];
    const owners: Insertable<TokenOwnerTable>[] = [];
    for (const n of batch) {
      const id = ids.get(n.row.serial);
      if (id === undefined) throw new Error(`the token ${n.row.serial} was not found after its insert`);
      for (const [key, value] of Object.entries(n.info)) infos.push({ token_id: id, key, value, type: '' });
      for (const realmId of tokenRealmIds) links.push({ token_id: id, realm_id: realmId });
      if (n.owner) {
        const realmId = realmIds.get(n.owner.realm);
        if (realmId === undefined) throw new Error(`the realm ${n.owner.realm} was not found`);
        owners.push({ token_id: id, resolver: n.owner.resolver, user_id: n.owner.userId, realm_id: realmId });
        if (!tokenRealmIds.includes(realmId)) links.push({ token_id: id, realm_id: realmId });
      }
    }
    await insertRows(trx, dialect, 'tokeninfo', infos);
    await insertRows(trx, dialect, 'tokenrealm', links);
    await insertRows(trx, dialect, 'tokenowner', owners);
  });
}

/** What became of one parsed token: its reason not to be imported, or the rows to write. */
type Outcome = { reason: string } | { token: NewToken };

/**
 * Checks one batch of parsed tokens (in file order, as single tokens were checked before: a serial
 * seen earlier in the file, the entry, an existing token, the hashlib and the owner) and writes
 * the good ones. `seen` carries the serials of the file across batches.
 */
async function importBatch(
  ctx: Context,
  tokens: readonly ParsedToken[],
  realms: readonly string[],
  settings: { get(k: string): string | undefined },
  seen: Set<string>,
): Promise<(string | undefined)[]> {
  const outcomes: (Outcome | undefined)[] = tokens.map((t) => {
    if (seen.has(t.serial)) return { reason: `the serial ${t.serial} appears twice in the file` };
    seen.add(t.serial);
    const reason = entryProblem(t);
    return reason === undefined ? undefined : { reason };
  });
  const pending = tokens.filter((_, i) => outcomes[i] === undefined);
  let exists: (serial: string) => Promise<boolean>;
  try {
    const found = await existingSerials(
      ctx,
      pending.map((t) => t.serial),
    );
    exists = async (serial) => found.has(serial);
  } catch {
    // Asked again token by token below, where a failure is that token's.
    exists = async (serial) => (await findToken(ctx, serial)) !== undefined;
  }
  for (const [i, t] of tokens.entries()) {
    if (outcomes[i] !== undefined) continue;
    try {
      if (await exists(t.serial))
        outcomes[i] = { reason: `a token with the serial ${t.serial} exists already` };
      else {
        const prepared = await prepareToken(ctx, t, settings);
        outcomes[i] = typeof prepared === 'string' ? { reason: prepared } : { token: prepared };
      }
    } catch (e) {
      ctx.log.error({ err: e, serial: t.serial }, 'token import failed');
      outcomes[i] = { reason: `could not be stored: ${(e as Error).message}` };
    }
  }
  const batch = outcomes.flatMap((o) => (o && 'token' in o ? [o.token] : []));
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
    if (!o) throw new Error('token import: an entry without outcome');
    if ('reason' in o) {
      reasons.push(o.reason);
      continue;
    }
    if (!batchFailed) {
      reasons.push(undefined);
      continue;
    }
    const serial = o.token.row.serial;
    try {
      // A token written by someone else since the check above exists now.
      if (await findToken(ctx, serial)) reasons.push(`a token with the serial ${serial} exists already`);
      else {
        await writeToken(ctx, o.token, realms);
        reasons.push(undefined);
      }
    } catch (e) {
      ctx.log.error({ err: e, serial }, 'token import failed');
      reasons.push(`could not be stored: ${(e as Error).message}`);
    }
  }
  return reasons;
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
  const parsed = parseTokenFile(req);
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
