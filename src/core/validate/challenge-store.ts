// Challenges (reference 4.3): one 20-digit transaction id per request, a validity from the system
// config, the janitor of expired rows, and the answered state (otp_valid) polltransaction reports
// and out-of-band token types set.
import type { Selectable } from 'kysely';
import type { ChallengeTable } from '../../store/index.ts';
import type { Random, Runtime } from '../context.ts';
import { configValue } from '../system/index.ts';

export type ChallengeRow = Selectable<ChallengeTable>;

/** 20 random decimal digits (privacyIDEA's create_transaction_id). */
export function newTransactionId(random: Random): string {
  let out = '';
  for (let i = 0; i < 20; i++) out += String(random.int(10));
  return out;
}

async function configInt(rt: Runtime, key: string): Promise<number | undefined> {
  const value = await configValue(rt, key);
  const n = value !== undefined ? Number.parseInt(value, 10) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Seconds a challenge of the type stays valid: <Type>ChallengeValidityTime, else the default (120). */
export async function challengeValidity(rt: Runtime, type: string): Promise<number> {
  const typed = `${type.charAt(0).toUpperCase()}${type.slice(1)}ChallengeValidityTime`;
  return (await configInt(rt, typed)) ?? (await configInt(rt, 'DefaultChallengeValidityTime')) ?? 120;
}

export interface NewChallenge {
  transactionId: string;
  serial: string;
  type: string;
  challenge?: string;
  data?: string;
  /** Seconds, when the token type's own setting decides (email.validtime). */
  validity?: number | undefined;
}

/** Stores a challenge; expired challenges of the token are removed first. */
export async function createChallenge(rt: Runtime, c: NewChallenge): Promise<ChallengeRow> {
  const now = rt.clock();
  await deleteExpired(rt, c.serial);
  const validity = c.validity ?? (await challengeValidity(rt, c.type));
  const row = {
    transaction_id: c.transactionId,
    serial: c.serial,
    challenge: c.challenge ?? '',
    data: c.data ?? '',
    session: '',
    timestamp: now.toISOString(),
    expiration: new Date(now.getTime() + validity * 1000).toISOString(),
    received_count: 0,
    otp_valid: 0,
  };
  await rt.store.db.insertInto('challenge').values(row).execute();
  rt.metrics.challenge(c.type);
  return { id: 0, ...row };
}

/** Whether a challenge is valid now: timestamp <= now < expiration. */
export function isValid(c: ChallengeRow, now: Date): boolean {
  const t = now.toISOString();
  return c.timestamp <= t && t < c.expiration;
}

/** The challenges of a transaction, optionally of one token (expired ones included). */
export async function challengesOf(
  rt: Runtime,
  transactionId: string,
  serial?: string,
): Promise<ChallengeRow[]> {
  let q = rt.store.db.selectFrom('challenge').selectAll().where('transaction_id', '=', transactionId);
  if (serial !== undefined) q = q.where('serial', '=', serial);
  return q.orderBy('id').execute();
}

/** The valid challenges of a token in a transaction. */
export async function validChallenges(
  rt: Runtime,
  serial: string,
  transactionId: string,
): Promise<ChallengeRow[]> {
  const now = rt.clock();
  return (await challengesOf(rt, transactionId, serial)).filter((c) => isValid(c, now));
}

export async function deleteChallenge(rt: Runtime, id: number): Promise<void> {
  await rt.store.db.deleteFrom('challenge').where('id', '=', id).execute();
}

export async function deleteTransaction(rt: Runtime, transactionId: string): Promise<void> {
  await rt.store.db.deleteFrom('challenge').where('transaction_id', '=', transactionId).execute();
}

/** Marks the challenges of a token in a transaction as answered (out of band). */
export async function markAnswered(rt: Runtime, transactionId: string, serial?: string): Promise<void> {
  let q = rt.store.db
    .updateTable('challenge')
    .set({ otp_valid: 1 })
    .where('transaction_id', '=', transactionId);
  if (serial !== undefined) q = q.where('serial', '=', serial);
  await q.execute();
}

/** Removes expired challenges: of one token, or all. Returns how many went. */
export async function deleteExpired(rt: Runtime, serial?: string): Promise<number> {
  let q = rt.store.db.deleteFrom('challenge').where('expiration', '<=', rt.clock().toISOString());
  if (serial !== undefined) q = q.where('serial', '=', serial);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** polltransaction: whether any non-expired challenge of the transaction was answered. */
export async function pollTransaction(rt: Runtime, transactionId: string): Promise<boolean> {
  const now = rt.clock();
  return (await challengesOf(rt, transactionId)).some((c) => Number(c.otp_valid) === 1 && isValid(c, now));
}
