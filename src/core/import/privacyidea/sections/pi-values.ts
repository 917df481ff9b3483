// What the resolvers, realms, tokens and machine tokens sections share beyond common.ts: the
// Key/Value/Type rows opened (`password` values decrypted with the config key), names of rows by
// id, and names compared the way authsrv compares them.
import type { PiKeys } from '../keys.ts';
import type { PiDatabase } from '../source.ts';
import { piInt } from '../values.ts';
import { type PiKeyValue, piText } from './common.ts';

/** A key/value row opened: `password` values decrypted (undefined when they do not decrypt). */
export interface OpenKeyValue {
  key: string;
  value: string | undefined;
  secret: boolean;
}

/** An Integer column with a default for NULL. */
export function piNumber(v: unknown, fallback = 0): number {
  return piInt(v) ?? fallback;
}

/** A row with its `password` value decrypted with the config key (slot 1). */
export function openKeyValue(keys: PiKeys, row: PiKeyValue): OpenKeyValue {
  if (row.type !== 'password') return { key: row.key, value: row.value, secret: false };
  return { key: row.key, value: keys.configValue(row.value), secret: true };
}

/** The name of every row of `table` by id (realm, tokengroup, machineresolver …). */
export async function namesById(db: PiDatabase, table: string): Promise<Map<number, string>> {
  const rows = await db.selectFrom(table).select(['id', 'name']).execute();
  return new Map(rows.map((r) => [Number(r.id), piText(r.name)]));
}

/** Which of `names` are in `taken`, compared case-insensitively (resolver names are). */
export function takenNames(names: readonly string[], taken: readonly string[]): string[] {
  const lower = new Set(taken.map((n) => n.toLowerCase()));
  return names.filter((n) => lower.has(n.toLowerCase()));
}
