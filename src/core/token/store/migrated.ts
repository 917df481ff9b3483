// A batch of tokens carried over from another server (authsrv import privacyidea): each with its
// own realms, owner, typed tokeninfo and token groups, written in multi-row INSERTs with the rows
// insertToken, setTokenInfo, setTokenRealms, setTokenOwner and setTokenGroups would write.
import type { Insertable, Transaction } from 'kysely';
import {
  type Database,
  type Dialect,
  insertRows,
  type TokenGroupTokenTable,
  type TokenInfoTable,
  type TokenOwnerTable,
  type TokenRealmTable,
  type TokenTable,
} from '../../../store/index.ts';
import type { Runtime } from '../../context.ts';
import { checkLength, LIMITS } from '../../limits.ts';
import { idsOf, realmIdsOf } from './batch.ts';
import type { TokenOwner } from './types.ts';

/** One tokeninfo entry; `password` ones are given open and stored sealed. */
export interface TokenInfoEntry {
  key: string;
  value: string;
  type: '' | 'password';
}

export interface MigratedToken {
  row: Insertable<TokenTable>;
  info: readonly TokenInfoEntry[];
  owner: TokenOwner | undefined;
  /** Realm names (lower-case); the owner's realm is added when missing. */
  realms: readonly string[];
  /** Names of existing token groups. */
  groups: readonly string[];
}

/** Inserts the tokens in `trx`; a realm or group that does not exist throws (nothing is half-written). */
export async function insertMigratedTokens(
  rt: Pick<Runtime, 'hsm'>,
  trx: Transaction<Database>,
  dialect: Dialect,
  batch: readonly MigratedToken[],
): Promise<void> {
  for (const t of batch) checkInfo(t.info);
  await insertRows(
    trx,
    dialect,
    'token',
    batch.map((t) => t.row),
  );
  const ids = await idsOf(
    trx,
    dialect,
    batch.map((t) => t.row.serial),
  );
  const realmIds = await realmIdsOf(
    trx,
    batch.flatMap((t) => [...t.realms, ...(t.owner ? [t.owner.realm] : [])]),
  );
  const groupIds = await groupIdsOf(trx, [...new Set(batch.flatMap((t) => t.groups))]);
  const infos: Insertable<TokenInfoTable>[] = [];
  const links: Insertable<TokenRealmTable>[] = [];
  const owners: Insertable<TokenOwnerTable>[] = [];
  const members: Insertable<TokenGroupTokenTable>[] = [];
  for (const t of batch) {
    const id = ids.get(t.row.serial);
    if (id === undefined) throw new Error(`the token ${t.row.serial} was not found after its insert`);
    for (const e of t.info)
      infos.push({
        token_id: id,
        key: e.key,
        value: e.type === 'password' ? rt.hsm.encrypt(e.value) : e.value,
        type: e.type,
      });
    const realms = new Set(t.realms.map((r) => idOf(realmIds, r, 'realm')));
    if (t.owner) {
      const realmId = idOf(realmIds, t.owner.realm, 'realm');
      realms.add(realmId);
      owners.push({ token_id: id, resolver: t.owner.resolver, user_id: t.owner.userId, realm_id: realmId });
    }
    for (const realmId of realms) links.push({ token_id: id, realm_id: realmId });
    for (const g of new Set(t.groups))
      members.push({ token_id: id, tokengroup_id: idOf(groupIds, g, 'token group') });
  }
  await insertRows(trx, dialect, 'tokeninfo', infos);
  await insertRows(trx, dialect, 'tokenrealm', links);
  await insertRows(trx, dialect, 'tokenowner', owners);
  await insertRows(trx, dialect, 'tokengroup_token', members);
}

function checkInfo(info: readonly TokenInfoEntry[]): void {
  for (const e of info) {
    checkLength('tokeninfo key', e.key, LIMITS.name);
    checkLength(`tokeninfo ${e.key.slice(0, 40)}`, e.value, LIMITS.text);
  }
}

function idOf(ids: ReadonlyMap<string, number>, name: string, what: string): number {
  const id = ids.get(name);
  if (id === undefined) throw new Error(`the ${what} ${name} was not found`);
  return id;
}

async function groupIdsOf(
  trx: Transaction<Database>,
  names: readonly string[],
): Promise<Map<string, number>> {
  const ids = new Map<string, number>();
  if (names.length === 0) return ids;
  const rows = await trx.selectFrom('tokengroup').select(['id', 'name']).where('name', 'in', names).execute();
  for (const r of rows) ids.set(r.name, Number(r.id));
  return ids;
}
