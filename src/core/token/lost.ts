// POST /token/lost/<serial>: a temporary password token (the registry's lostTokenType) replaces a
// lost one, whose owner, realms and PIN it takes over; the lost token is disabled.
import { ERR, TokenAdminError } from '../../errors.ts';
import { randomChars } from '../../policy/index.ts';
import { lostTokenType } from '../../tokens/index.ts';
import type { Context } from '../context.ts';
import { enrollmentValue } from './enrollment-policy.ts';
import { creationInfo, newTokenRow } from './new-token.ts';
import { ownerUser } from './owner.ts';
import { inTransaction, pick, refuseLocked } from './select.ts';
import { checkSerial } from './serial.ts';
import { typeSettings } from './settings.ts';
import {
  addTokenInfo,
  deleteTokenRows,
  findToken,
  insertToken,
  sealKey,
  setActive,
  setTokenOwner,
  setTokenRealms,
} from './store/index.ts';
import { formatMinute } from './tokeninfo-dates.ts';

const LOST_POOLS: Record<string, string> = {
  c: 'abcdefghijklmnopqrstuvwxyz',
  C: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
  n: '0123456789',
  s: '!#$%&()*+,-./:;<=>?@[]^_',
  '8': '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz',
};

/** A password of privacyIDEA's lost-token contents (`c`, `C`, `n`, `s`, `8` = base58; empty = letters and digits). */
function lostPassword(ctx: Context, length: number, contents: string): string {
  const groups = [...new Set(contents)].filter((g) => LOST_POOLS[g]);
  const pool = groups.length
    ? groups.map((g) => LOST_POOLS[g]).join('')
    : `${LOST_POOLS.c}${LOST_POOLS.C}${LOST_POOLS.n}`;
  // One character of every named group, the rest from all of them.
  return randomChars(
    length,
    groups.map((g) => LOST_POOLS[g]!),
    pool,
    (max) => ctx.random.int(max),
  );
}

function positive(v: string | undefined, fallback: number): number {
  const n = Number.parseInt(v ?? '', 10);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

export interface LostResult {
  serial: string;
  init: boolean;
  user: boolean;
  pin: boolean;
  valid_to: string;
  password: string;
  end_date: string;
  disable: number;
}

/**
 * POST /token/lost/<serial>: a temporary pw token `lost<serial>` for the owner, with the old PIN,
 * valid for losttoken_valid days; the lost token is disabled.
 */
export async function lostToken(ctx: Context, serial: string): Promise<LostResult> {
  const p = await pick(ctx, 'losttoken', { serial });
  const t = p.tokens[0]!;
  if (!t.owner)
    throw new TokenAdminError(
      'You can only define a lost token for an assigned token.',
      ERR.LostTokenUnassigned,
    );
  refuseLocked([t]);
  const owner = await ownerUser(ctx, t);
  const subject = { owner, realm: t.owner.realm };
  const length = positive(await enrollmentValue(ctx, subject, 'losttoken_PW_length'), 16);
  const contents = (await enrollmentValue(ctx, subject, 'losttoken_PW_contents')) ?? '8';
  const days = positive(await enrollmentValue(ctx, subject, 'losttoken_valid'), 10);
  const password = lostPassword(ctx, length, contents);
  const now = ctx.clock();
  const endDate = formatMinute(new Date(now.getTime() + days * 86400000));
  const newSerial = `lost${serial}`;
  checkSerial(newSerial);
  const type = lostTokenType();
  const previous = await findToken(ctx, newSerial);
  if (previous && previous.row.tokentype !== type.type)
    throw new TokenAdminError(
      `init token failed: Token ${newSerial} already exists with type ${previous.row.tokentype}. Can not initialize token with new type ${type.type}`,
    );
  if (previous) refuseLocked([previous]);
  const row = newTokenRow(await typeSettings(ctx), {
    serial: newSerial,
    tokentype: type.type,
    description: `temporary replacement for ${serial}`.slice(0, 80),
    otplen: password.length,
    key_enc: sealKey(ctx, Buffer.from(password, 'utf8')),
    pin_hash: t.row.pin_hash,
  });
  await inTransaction(ctx, async (trx) => {
    if (previous) await deleteTokenRows(trx, ctx.store, previous);
    const id = await insertToken(trx, row);
    await addTokenInfo(ctx, trx, id, { ...creationInfo('software', now), validity_period_end: endDate });
    await setTokenOwner(trx, id, t.owner);
    await setTokenRealms(trx, id, t.realms);
    await setActive(trx, t.row.id, false);
  });
  return {
    serial: newSerial,
    init: true,
    user: true,
    pin: true,
    valid_to: 'xxxx',
    password,
    end_date: endDate,
    disable: 1,
  };
}
