// A batch of new tokens in multi-row INSERTs (token file imports): the token rows, then their
// tokeninfo, realms and owners by the ids the inserts gave.
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
import type { TokenOwner } from './types.ts';

/** A token that passed every check, ready to be written. */
export interface NewToken {
  row: Insertable<TokenTable>;
  info: Record<string, string>;
  owner: TokenOwner | undefined;
}

/**
 * Inserts a batch of new tokens in `trx`, each in the import's `realms` and its owner's, with the
 * rows setTokenInfo, setTokenRealms and setTokenOwner would write for each (tokeninfo inserted
 * rather than updated: the tokens are new).
 */
export async function insertTokenBatch(
  trx: Transaction<Database>,
  dialect: Dialect,
  batch: readonly NewToken[],
  realms: readonly string[],
): Promise<void> {
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
}

/** The ids of the tokens just inserted, by serial. */
export async function idsOf(
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
export async function realmIdsOf(
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
