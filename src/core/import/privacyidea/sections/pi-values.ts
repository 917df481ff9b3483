// Reading privacyIDEA's rows the way its own code does, shared by the sections: key/value
// configuration tables (resolverconfig, tokeninfo, …) whose `password`-typed values are encrypted
// with the config key, booleans stored as 0/1 (or true/false on PostgreSQL), names of rows by id.
import type { PiKeys } from '../keys.ts';
import type { PiDatabase } from '../source.ts';

/** One row of a Key/Value/Type table. */
export interface PiKeyValue {
  key: string;
  value: string;
  type: string;
}

/** A key/value row opened: `password` values decrypted (undefined when they do not decrypt). */
export interface OpenKeyValue {
  key: string;
  value: string | undefined;
  secret: boolean;
}

/** privacyIDEA's booleans as a database returns them: 1/0, true/false, '1'/'0'. */
export function piBool(v: unknown): boolean {
  return v === true || v === 1 || v === '1' || v === 't' || v === 'true' || v === 'True';
}

export function piInt(v: unknown, fallback = 0): number {
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : fallback;
}

export function piText(v: unknown): string {
  return v === null || v === undefined ? '' : String(v);
}

/** The Key/Value/Type rows of `table`, grouped by the row id in `owner` (resolver_id, token_id …). */
export async function keyValueRows(
  db: PiDatabase,
  table: string,
  owner: string,
): Promise<Map<number, PiKeyValue[]>> {
  const rows = await db.selectFrom(table).select([owner, 'Key', 'Value', 'Type']).orderBy('id').execute();
  const out = new Map<number, PiKeyValue[]>();
  for (const r of rows) {
    const id = Number(r[owner]);
    const list = out.get(id) ?? [];
    list.push({ key: piText(r.Key), value: piText(r.Value), type: piText(r.Type) });
    out.set(id, list);
  }
  return out;
}

/** A row with its `password` value decrypted with the config key (slot 1). */
export function openKeyValue(keys: PiKeys, row: PiKeyValue): OpenKeyValue {
  if (row.type !== 'password') return { key: row.key, value: row.value, secret: false };
  return { key: row.key, value: keys.configValue(row.value), secret: true };
}

/** The name of every row of `table` by id (resolver, realm, tokengroup, machineresolver …). */
export async function namesById(db: PiDatabase, table: string): Promise<Map<number, string>> {
  const rows = await db.selectFrom(table).select(['id', 'name']).execute();
  return new Map(rows.map((r) => [Number(r.id), piText(r.name)]));
}

/** Which of `names` are in `taken`, compared case-insensitively (resolver names are). */
export function takenNames(names: readonly string[], taken: readonly string[]): string[] {
  const lower = new Set(taken.map((n) => n.toLowerCase()));
  return names.filter((n) => lower.has(n.toLowerCase())).sort();
}
