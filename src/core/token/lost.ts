// POST /token/lost/<serial>: a temporary password token replaces a lost one, whose owner, realms
// and PIN it takes over; the lost token is disabled.
import { ERR, TokenAdminError } from '../../errors.ts';
import { randomChars } from '../../policy/index.ts';
import type { Context } from '../context.ts';
import { configSnapshot } from '../system/index.ts';
import { enrollmentValue } from './enrollment-policy.ts';
import { ownerUser } from './owner.ts';
import { inTransaction, pick, refuseLocked } from './select.ts';
import { checkSerial } from './serial.ts';
import {
  deleteTokenRows,
  findToken,
  formatMinute,
  sealKey,
  setTokenInfo,
  setTokenOwner,
  setTokenRealms,
} from './store.ts';

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
  const previous = await findToken(ctx, newSerial);
  if (previous && previous.row.tokentype !== 'pw')
    throw new TokenAdminError(
      `init token failed: Token ${newSerial} already exists with type ${previous.row.tokentype}. Can not initialize token with new type pw`,
    );
  if (previous) refuseLocked([previous]);
  const settings = await configSnapshot(ctx);
  const setting = (k: string, d: number) => positive(settings.get(k)?.value, d);
  await inTransaction(ctx, async (trx) => {
    if (previous) await deleteTokenRows(trx, previous);
    await trx
      .insertInto('token')
      .values({
        serial: newSerial,
        tokentype: 'pw',
        description: `temporary replacement for ${serial}`.slice(0, 80),
        otplen: password.length,
        key_enc: sealKey(ctx, Buffer.from(password, 'utf8')),
        rollout_state: '',
        pin_hash: t.row.pin_hash,
        maxfail: setting('DefaultMaxFailCount', 10),
        failcount: 0,
        count: 0,
        count_window: setting('DefaultCountWindow', 10),
        sync_window: setting('DefaultSyncWindow', 1000),
        active: 1,
        revoked: 0,
        locked: 0,
      })
      .execute();
    const id = (
      await trx.selectFrom('token').select('id').where('serial', '=', newSerial).executeTakeFirstOrThrow()
    ).id;
    await setTokenInfo(ctx, trx, id, {
      tokenkind: 'software',
      creation_date: `${now.toISOString().slice(0, 19)}+00:00`,
      validity_period_end: endDate,
    });
    await setTokenOwner(trx, id, t.owner);
    await setTokenRealms(trx, id, t.realms);
    await trx.updateTable('token').set({ active: 0 }).where('id', '=', t.row.id).execute();
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
