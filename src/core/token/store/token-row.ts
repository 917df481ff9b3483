// Writes of the token row itself: a new token, a token enrolled again, and the columns the
// administrative actions change (settings, PIN, state, rollout). The counters are in counters.ts.
import type { Insertable, Transaction } from 'kysely';
import type { Database, TokenTable } from '../../../store/index.ts';
import type { Executor } from './types.ts';

/** Inserts the row of a new token; its id. */
export async function insertToken(trx: Transaction<Database>, row: Insertable<TokenTable>): Promise<number> {
  await trx.insertInto('token').values(row).execute();
  const { id } = await trx
    .selectFrom('token')
    .select('id')
    .where('serial', '=', row.serial)
    .executeTakeFirstOrThrow();
  return id;
}

/** What enrolling a token again replaces: its type, description, length, key and rollout state. */
export interface Reenrollment {
  tokentype: string;
  description: string;
  otplen: number;
  key_enc: string;
  rollout_state: string;
  /** The new PIN when the request gave one; else the PIN stays. */
  pin_hash?: string;
}

/** An existing token enrolled again: the new type, key, …; its counters start from 0. */
export async function reenrollToken(db: Executor, tokenId: number, fields: Reenrollment): Promise<void> {
  await db
    .updateTable('token')
    .set({ ...fields, count: 0, failcount: 0 })
    .where('id', '=', tokenId)
    .execute();
}

/** The columns /token/set and /token/description set. */
export interface TokenSettings {
  description?: string;
  count_window?: number;
  sync_window?: number;
  maxfail?: number;
}

export async function setTokenSettings(
  db: Executor,
  tokenId: number,
  settings: TokenSettings,
): Promise<void> {
  await db.updateTable('token').set(settings).where('id', '=', tokenId).execute();
}

/** Sets the stored PIN (pinHash's form, '' for none). */
export async function setPin(db: Executor, tokenId: number, pinHash: string): Promise<void> {
  await db.updateTable('token').set({ pin_hash: pinHash }).where('id', '=', tokenId).execute();
}

/**
 * Replaces the stored PIN `old` by `pinHash`, only while the row still holds `old` (a PIN changed
 * in between stays); whether it did.
 */
export async function replacePin(
  db: Executor,
  tokenId: number,
  old: string,
  pinHash: string,
): Promise<boolean> {
  const r = await db
    .updateTable('token')
    .set({ pin_hash: pinHash })
    .where('id', '=', tokenId)
    .where('pin_hash', '=', old)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Enables or disables a token. */
export async function setActive(db: Executor, tokenId: number, active: boolean): Promise<void> {
  await db
    .updateTable('token')
    .set({ active: active ? 1 : 0 })
    .where('id', '=', tokenId)
    .execute();
}

/** Revokes a token: locked and inactive for good. */
export async function revokeToken(db: Executor, tokenId: number): Promise<void> {
  await db.updateTable('token').set({ revoked: 1, locked: 1, active: 0 }).where('id', '=', tokenId).execute();
}

export async function setRolloutState(db: Executor, tokenId: number, state: string): Promise<void> {
  await db.updateTable('token').set({ rollout_state: state }).where('id', '=', tokenId).execute();
}
