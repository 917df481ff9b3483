// Writes of tokeninfo: key/value entries of a token, `password` ones sealed.
import { prepared } from '../../../store/index.ts';
import type { Runtime } from '../../context.ts';
import { checkLength, LIMITS } from '../../limits.ts';
import type { Executor } from './types.ts';

interface TokeninfoRow {
  token_id: number;
  key: string;
  value: string;
  type: string;
}

const tokeninfoUpdate = prepared((db, v: TokeninfoRow) =>
  db
    .updateTable('tokeninfo')
    .set({ value: v.value, type: v.type })
    .where('token_id', '=', v.token_id)
    .where('key', '=', v.key),
);

/** Inserts one tokeninfo row (the counters insert their first value with it). */
export const tokeninfoInsert = prepared((db, v: TokeninfoRow) => db.insertInto('tokeninfo').values(v));

/** The rows of `entries`, all checked first (a refused one leaves none written), `password` ones sealed. */
function infoRows(
  rt: Runtime,
  tokenId: number,
  entries: Record<string, string>,
  type: string,
): TokeninfoRow[] {
  for (const [key, raw] of Object.entries(entries)) {
    checkLength('tokeninfo key', key, LIMITS.name);
    checkLength(`tokeninfo ${key.slice(0, 40)}`, raw, LIMITS.text);
  }
  return Object.entries(entries).map(([key, raw]) => ({
    token_id: tokenId,
    key,
    value: type === 'password' ? rt.hsm.encrypt(raw) : raw,
    type,
  }));
}

/** Sets tokeninfo values (insert or update); `password` entries are sealed. */
export async function setTokenInfo(
  rt: Runtime,
  db: Executor,
  tokenId: number,
  entries: Record<string, string>,
  type = '',
): Promise<void> {
  for (const row of infoRows(rt, tokenId, entries, type)) {
    const done = await tokeninfoUpdate.run(db, row);
    if (Number(done.numAffectedRows) === 0) await tokeninfoInsert.run(db, row);
  }
}

/**
 * The first tokeninfo values of a token created in the same transaction: inserts only. An update
 * of a key that does not exist yet takes a gap lock in MariaDB, and concurrent enrolments holding
 * the same gap deadlock on their inserts; plain inserts do not wait for each other.
 */
export async function addTokenInfo(
  rt: Runtime,
  db: Executor,
  tokenId: number,
  entries: Record<string, string>,
): Promise<void> {
  for (const row of infoRows(rt, tokenId, entries, '')) await tokeninfoInsert.run(db, row);
}

/**
 * setTokenInfo for writes that concurrent requests make to one token (counters of /validate): when
 * another request inserted the key between our update and insert, the unique (token_id, key)
 * refuses ours, and the retry updates the row that now exists.
 */
export async function setTokenInfoRacing(
  rt: Runtime,
  tokenId: number,
  entries: Record<string, string>,
): Promise<void> {
  try {
    await setTokenInfo(rt, rt.store.db, tokenId, entries);
  } catch {
    await setTokenInfo(rt, rt.store.db, tokenId, entries);
  }
}

export async function deleteTokenInfo(db: Executor, tokenId: number, key: string): Promise<void> {
  await db.deleteFrom('tokeninfo').where('token_id', '=', tokenId).where('key', '=', key).execute();
}
