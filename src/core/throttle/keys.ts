// What the throttling counts by: the account an attempt names (normalised, so that spellings of a
// name share their count) with the client address it came from, and the address alone.
import { createHash } from 'node:crypto';
import type { ThrottleKind } from './backoff.ts';

/** The longest account the table keeps (the key, a hash, covers the whole name). */
export const ACCOUNT_COLUMN_LENGTH = 255;

/** An authentication attempt: the account it names and the client address it came from. */
export interface Attempt {
  account: string;
  address: string;
}

/**
 * The account of a login or a check by user: the name in lower case, with `@realm` when a realm
 * was given apart and the name has none (a local administrator is the name alone).
 */
export function accountOf(login: string, realm?: string | undefined): string {
  const name = login.trim().toLowerCase();
  const r = realm?.trim().toLowerCase();
  return r && !name.includes('@') ? `${name}@${r}` : name;
}

/** The account of a check by serial alone. */
export function serialAccount(serial: string): string {
  return `serial:${serial.trim().toLowerCase()}`;
}

/** A key of the table: a hash of what it counts, of fixed length whatever the names. */
export function keyOf(kind: ThrottleKind, account: string, address: string): string {
  const identity = kind === 'address' ? `address\n${address}` : `account\n${account}\n${address}`;
  return createHash('sha256').update(identity).digest('hex');
}

/** The account as the table shows it. */
export function accountColumn(account: string): string {
  return account.slice(0, ACCOUNT_COLUMN_LENGTH);
}
