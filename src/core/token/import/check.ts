// The checks of the entries of a token file (POST /token/load): what needs no database, the
// serials that exist already, the type's reading of the entry and the owner; and the rows of each
// token that passes them.
import { chunked, rowsPerStatement } from '../../../store/index.ts';
import { findTokenType, type TypeSettings } from '../../../tokens/index.ts';
import { isAllowed } from '../../access/index.ts';
import type { Context } from '../../context.ts';
import { findUser, type ResolvedUser } from '../../directory/index.ts';
import { cutChars, LIMITS } from '../../limits.ts';
import { creationInfo, newTokenRow } from '../new-token.ts';
import { ownerRecord } from '../owner.ts';
import { checkSerial } from '../serial.ts';
import { intSetting } from '../settings.ts';
import { findToken, type NewToken, sealKey } from '../store/index.ts';
import { HEX } from './oathcsv.ts';
import type { ParsedToken } from './parsed.ts';

/** What became of one parsed token: its reason not to be imported, or the rows to write. */
export type Outcome = { reason: string } | { token: NewToken };

/** The checks of an entry that need no database: the reason when it cannot be imported. */
function entryProblem(t: ParsedToken): string | undefined {
  const type = findTokenType(t.type);
  if (!type) return `authsrv has no ${t.type} token type`;
  if (!type.importable) return `tokens of type ${type.type} can not be imported`;
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

/**
 * The owner a file entry names: the user if it exists (privacyIDEA imports the token unassigned
 * otherwise), or the reason the administrator may not import a token for it.
 */
async function ownerOfEntry(ctx: Context, t: ParsedToken): Promise<ResolvedUser | undefined | string> {
  const u = t.user;
  if (!u) return undefined;
  let owner: ResolvedUser | undefined;
  try {
    owner = u.realm ? await findUser(ctx, u.username, u.realm) : undefined;
  } catch {
    owner = undefined;
  }
  if (!owner || (u.resolver && owner.resolver !== u.resolver)) {
    ctx.log.warn({ serial: t.serial, user: u }, 'token import: the user of the line does not exist');
    return undefined;
  }
  const user = `${owner.login}@${owner.realm}`;
  if (!(await isAllowed(ctx, 'importtokens', { user, resolver: owner.resolver })))
    return `the administrator may not import tokens for the user ${user}`;
  return owner;
}

/** The checks that need the owner and the settings, and the rows of the token; or the reason. */
async function prepareToken(
  ctx: Context,
  t: ParsedToken,
  settings: TypeSettings,
): Promise<NewToken | string> {
  const now = ctx.clock();
  const type = findTokenType(t.type)!;
  const state = type.importedToken(t, settings);
  if (typeof state === 'string') return state;
  const owner = await ownerOfEntry(ctx, t);
  if (typeof owner === 'string') return owner;
  const row = newTokenRow(settings, {
    serial: t.serial,
    tokentype: type.type,
    description: cutChars(t.description ?? 'imported', 80),
    otplen: t.otplen ?? intSetting(settings, 'DefaultOtpLen', 6),
    key_enc: sealKey(ctx, Buffer.from(t.otpkey, 'hex')),
    pin_hash: '',
    count: state.count,
  });
  const info = { ...creationInfo('hardware', now), ...state.info };
  return { row, info, owner: owner && ownerRecord(owner) };
}

/**
 * Checks a batch of parsed tokens in file order: a serial seen earlier in the file (`seen` carries
 * them across batches), the entry, an existing token, the type's reading and the owner.
 */
export async function checkBatch(
  ctx: Context,
  tokens: readonly ParsedToken[],
  settings: TypeSettings,
  seen: Set<string>,
): Promise<Outcome[]> {
  const outcomes: (Outcome | undefined)[] = tokens.map((t) => {
    if (seen.has(t.serial)) return { reason: `the serial ${t.serial} appears twice in the file` };
    seen.add(t.serial);
    const reason = entryProblem(t);
    return reason === undefined ? undefined : { reason };
  });
  const exists = await existenceCheck(
    ctx,
    tokens.filter((_, i) => outcomes[i] === undefined).map((t) => t.serial),
  );
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
  return outcomes.map((o) => {
    if (!o) throw new Error('token import: an entry without outcome');
    return o;
  });
}

/** Whether a serial exists: looked up for all at once, else (if that fails) one by one. */
async function existenceCheck(
  ctx: Context,
  serials: readonly string[],
): Promise<(serial: string) => Promise<boolean>> {
  try {
    const found = await existingSerials(ctx, serials);
    return async (serial) => found.has(serial);
  } catch {
    // Asked again token by token, where a failure is that token's.
    return async (serial) => (await findToken(ctx, serial)) !== undefined;
  }
}
