// Writing the tokens of a token file: one token in a transaction of its own, or a batch of them
// in one transaction with multi-row INSERTs.
import type { Insertable, Transaction } from 'kysely';
import {
  chunked,
  type Database,
  type Dialect,
  insertRows,
  rowsPerStatement,
  type TokenInfoTable,
  type TokenOwnerTable,
  type TokenRealmTable,
  type TokenTable,
} from '../../../store/index.ts';
import type { Context } from '../../context.ts';
import { checkLength, LIMITS } from '../../limits.ts';
import { insertToken } from '../new-token.ts';
import { setTokenInfo, setTokenOwner, setTokenRealms, type TokenOwner } from '../store.ts';

/** A token that passed every check, ready to be written. */
export interface NewToken {
  row: Insertable<TokenTable>;
  info: Record<string, string>;
  owner: TokenOwner | undefined;
}

/** One token in a transaction of its own: the token row, its tokeninfo, realms and owner or nothing. */
export async function writeToken(ctx: Context, n: NewToken, realms: readonly string[]): Promise<void> {
  await ctx.store.db.transaction().execute(async (trx) => {
    const id = await insertToken(trx, n.row);
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
export async function writeBatch(
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
    const ids = await idsOf(
      trx,
      dialect,
      batch.map((n) => n.row.serial),
    );
    // The ids of the import's realms and of the owners' realms, in one query.
    const ownerRealms = batch.flatMap((n) => (n.owner ? [n.owner.realm] : []));
    const realmIds = await realmIdsOf(trx, [...realms.map((r) => r.toLowerCase()), ...ownerRealms]);
    const rows = linkedRows(batch, ids, realms, realmIds);
    await insertRows(trx, dialect, 'tokeninfo', rows.infos);
    await insertRows(trx, dialect, 'tokenrealm', rows.links);
    await insertRows(trx, dialect, 'tokenowner', rows.owners);
  });
}

/** The ids of the tokens just inserted, by serial. */
async function idsOf(
  trx: Transaction<Database>,
  dialect: Dialect,
  serials: readonly string[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  for (const part of chunked(serials, rowsPerStatement(dialect, 1))) {
    const rows = await trx.selectFrom('token').select(['id', 'serial']).where('serial', 'in', part).execute();
    for (const r of rows) ids.set(r.serial, r.id);
  }
  return ids;
}

/** The ids of realms by name (lower-case), in one query. */
async function realmIdsOf(
  trx: Transaction<Database>,
  names: readonly string[],
): Promise<Map<string, number>> {
  const realmIds = new Map<string, number>();
  const unique = [...new Set(names)];
  if (unique.length === 0) return realmIds;
  const rows = await trx.selectFrom('realm').select(['id', 'name']).where('name', 'in', unique).execute();
  for (const r of rows) realmIds.set(r.name, r.id);
  return realmIds;
}

/** The tokeninfo, realm and owner rows of a batch: each token in the import's realms and its owner's. */
function linkedRows(
  batch: readonly NewToken[],
  ids: ReadonlyMap<string, number>,
  realms: readonly string[],
  realmIds: ReadonlyMap<string, number>,
) {
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
  return { infos, links, owners };
}
