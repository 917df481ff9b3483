// Loading tokens (reference 3): a token row completed with its type, tokeninfo (sealed values
// opened), owner and realms; by serial, by owner, or for rows already read.

import { ResourceNotFoundError, TokenAdminError } from '../../../errors.ts';
import { type Dialect, prepared } from '../../../store/index.ts';
import { findTokenType } from '../../../tokens/index.ts';
import type { Runtime } from '../../context.ts';
import { infoJson, type JoinedOwner, joinedInfos, joinedOwner, OWNER_COLUMNS } from './joined.ts';
import type { Executor, LoadedToken, TokenOwner, TokenRow } from './types.ts';

export const TOKEN_NOT_FOUND = 'The requested token could not be found.';

/** Completes token rows with their type, tokeninfo, owner and realms (a fixed number of queries). */
export async function loadRows(
  rt: Runtime,
  rows: readonly TokenRow[],
  db: Executor = rt.store.db,
): Promise<LoadedToken[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [infos, owners, realms] = await Promise.all([
    infoRows(db, ids),
    db
      .selectFrom('tokenowner')
      .innerJoin('realm', 'realm.id', 'tokenowner.realm_id')
      .select(['tokenowner.token_id', 'tokenowner.resolver', 'tokenowner.user_id', 'realm.name'])
      .where('tokenowner.token_id', 'in', ids)
      .execute(),
    db
      .selectFrom('tokenrealm')
      .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
      .select(['tokenrealm.token_id', 'realm.name'])
      .where('tokenrealm.token_id', 'in', ids)
      .orderBy('realm.name')
      .execute(),
  ]);
  return rows.map((row) => {
    const o = owners.find((x) => x.token_id === row.id);
    return loaded(
      rt,
      row,
      infos,
      o ? { resolver: o.resolver, userId: o.user_id, realm: o.name } : undefined,
      realms.filter((r) => r.token_id === row.id).map((r) => r.name),
    );
  });
}

const tokeninfoOf = prepared((db, v: { ids: readonly number[] }) =>
  db.selectFrom('tokeninfo').select(['token_id', 'key', 'value', 'type']).where('token_id', 'in', v.ids),
);

async function infoRows(db: Executor, ids: readonly number[]) {
  return (await tokeninfoOf.run(db, { ids })).rows;
}

/** A loaded token of its row, the tokeninfo rows (of any tokens), its owner and realms. */
export function loaded(
  rt: Runtime,
  row: TokenRow,
  infos: readonly { token_id: number; key: string; value: string; type: string }[],
  owner: TokenOwner | undefined,
  realms: string[],
): LoadedToken {
  const info: Record<string, string> = {};
  const sealedInfo: string[] = [];
  for (const i of infos) {
    if (i.token_id !== row.id) continue;
    info[i.key] = i.type === 'password' ? rt.hsm.decrypt(i.value) : i.value;
    if (i.type === 'password') sealedInfo.push(i.key);
  }
  const type = findTokenType(row.tokentype);
  if (!type) throw new TokenAdminError(`Token ${row.serial} has the unknown type '${row.tokentype}'`);
  return { row, type, info, owner, realms, ...(sealedInfo.length > 0 ? { sealedInfo } : {}) };
}

/**
 * The tokens of the login path (one serial, or one owner's tokens) in one query instead of
 * loadRows' four: the token rows come with their owner and realms joined (a row per realm, in
 * realm-name order as loadRows has them; a token has at most one owner) and their tokeninfo as one
 * JSON array of [key, value, type] (`infoJson`; every statement saved counts on the login path).
 */
function withOwnerAndRealms(db: Executor, dialect: Dialect) {
  return db
    .selectFrom('token')
    .leftJoin('tokenowner', 'tokenowner.token_id', 'token.id')
    .leftJoin('realm as owner_realm', 'owner_realm.id', 'tokenowner.realm_id')
    .leftJoin('tokenrealm', 'tokenrealm.token_id', 'token.id')
    .leftJoin('realm as token_realm', 'token_realm.id', 'tokenrealm.realm_id')
    .selectAll('token')
    .select([...OWNER_COLUMNS, 'token_realm.name as realm_name', infoJson(dialect).as('infos')]);
}

function loadJoined(
  rt: Runtime,
  joined: readonly (TokenRow & JoinedOwner & { realm_name: string | null; infos: unknown })[],
): LoadedToken[] {
  const byId = new Map<
    number,
    { row: TokenRow; owner: TokenOwner | undefined; realms: string[]; infos: unknown }
  >();
  for (const j of joined) {
    const { owner_resolver, owner_user_id, owner_realm_name, realm_name, infos, ...row } = j;
    let entry = byId.get(row.id);
    if (!entry) {
      entry = { row, owner: joinedOwner(j), realms: [], infos };
      byId.set(row.id, entry);
    }
    if (realm_name !== null) entry.realms.push(realm_name);
  }
  return [...byId.values()].map((e) => loaded(rt, e.row, joinedInfos(e.row.id, e.infos), e.owner, e.realms));
}

const tokenOfSerial = prepared((db, v: { serial: string }, _shape, dialect) =>
  withOwnerAndRealms(db, dialect).where('token.serial', '=', v.serial).orderBy('token_realm.name'),
);

const tokensOfUser = prepared((db, v: { resolver: string; userId: string }, _shape, dialect) =>
  withOwnerAndRealms(db, dialect)
    .where('tokenowner.resolver', '=', v.resolver)
    .where('tokenowner.user_id', '=', v.userId)
    .orderBy('token.serial')
    .orderBy('token_realm.name'),
);

export async function findToken(
  rt: Runtime,
  serial: string,
  db: Executor = rt.store.db,
): Promise<LoadedToken | undefined> {
  const { rows } = await tokenOfSerial.run(db, { serial });
  return loadJoined(rt, rows)[0];
}

/** The token of a serial; unknown → 601 `The requested token could not be found.` */
export async function requireToken(
  rt: Runtime,
  serial: string,
  db: Executor = rt.store.db,
): Promise<LoadedToken> {
  const t = await findToken(rt, serial, db);
  if (!t) throw new ResourceNotFoundError(TOKEN_NOT_FOUND);
  return t;
}

/** Every token of a user (owner resolver and user id). */
export async function tokensOfOwner(rt: Runtime, resolver: string, userId: string): Promise<LoadedToken[]> {
  const { rows } = await tokensOfUser.run(rt.store.db, { resolver, userId });
  return loadJoined(rt, rows);
}
