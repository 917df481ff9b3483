// What lets one statement load tokens with everything about them: the owner columns of a LEFT
// JOIN, and correlated subselects that give a token's tokeninfo, realms or groups as one JSON
// array (every statement saved counts on the login path and in listings).
import { type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../../../store/index.ts';
import type { TokenOwner } from './types.ts';

/** The owner columns of a query that LEFT JOINs tokenowner and `realm as owner_realm` (JoinedOwner). */
export const OWNER_COLUMNS = [
  'tokenowner.resolver as owner_resolver',
  'tokenowner.user_id as owner_user_id',
  'owner_realm.name as owner_realm_name',
] as const;

/** The owner columns of a token row that LEFT JOINs tokenowner and its realm. */
export interface JoinedOwner {
  owner_resolver: string | null;
  owner_user_id: string | null;
  owner_realm_name: string | null;
}

/** The owner of joined owner columns; as loadRows, an owner whose realm is gone is no owner. */
export function joinedOwner(j: JoinedOwner): TokenOwner | undefined {
  return j.owner_resolver !== null && j.owner_user_id !== null && j.owner_realm_name !== null
    ? { resolver: j.owner_resolver, userId: j.owner_user_id, realm: j.owner_realm_name }
    : undefined;
}

/** The tokeninfo of `token` as a JSON array of [key, value, type], [] for none. */
export function infoJson(dialect: Dialect) {
  const [key, value, type, tokenId] = ['key', 'value', 'type', 'token_id'].map((c) => sql.ref(`ti.${c}`));
  const triple =
    dialect === 'postgres'
      ? sql`json_build_array(${key}, ${value}, ${type})`
      : sql`json_array(${key}, ${value}, ${type})`;
  return jsonArrayOf(
    dialect,
    triple,
    sql`from ${sql.table('tokeninfo')} as ti where ${tokenId} = ${sql.ref('token.id')}`,
  );
}

/**
 * The names of `token`'s realms or token groups as a JSON array, [] for none, sorted inside the
 * aggregate by the database's collation: the order the separate queries' ORDER BY name gave
 * (PostgreSQL's may be a locale's; JS would sort otherwise). MySQL cannot order inside
 * JSON_ARRAYAGG, so there sortedNames sorts as its utf8mb4_bin collation does.
 */
export function namesJson(dialect: Dialect, of: 'realms' | 'groups') {
  const [link, named, key] =
    of === 'realms'
      ? ['tokenrealm', 'realm', 'realm_id']
      : ['tokengroup_token', 'tokengroup', 'tokengroup_id'];
  const name = sql.ref('n.name');
  const rows = sql`from ${sql.table(link)} as l join ${sql.table(named)} as n on n.id = ${sql.ref(`l.${key}`)}
    where ${sql.ref('l.token_id')} = ${sql.ref('token.id')}`;
  return jsonArrayOf(dialect, name, rows, name);
}

/**
 * A correlated subselect giving `item` of the rows of `rows` (a FROM … WHERE clause) as one JSON
 * array, [] for none, in `order` when given, except on MySQL/MariaDB: MySQL's JSON_ARRAYAGG has no
 * ORDER BY (MariaDB's has, from 10.5), so the caller sorts there.
 */
function jsonArrayOf(
  dialect: Dialect,
  item: RawBuilder<unknown>,
  rows: RawBuilder<unknown>,
  order?: RawBuilder<unknown>,
) {
  const by = order && dialect !== 'mysql' ? sql` order by ${order}` : sql``;
  if (dialect === 'postgres')
    return sql<unknown>`(select coalesce(json_agg(${item}${by}), '[]'::json) ${rows})`;
  if (dialect === 'mysql')
    return sql<unknown>`(select coalesce(json_arrayagg(${item}${by}), json_array()) ${rows})`;
  return sql<unknown>`(select json_group_array(${item}${by}) ${rows})`;
}

/** A JSON array of jsonArrayOf (PostgreSQL's driver parses JSON itself, the others give text). */
export function jsonList<T>(json: unknown): T[] {
  return (typeof json === 'string' ? JSON.parse(json) : json) as T[];
}

/** The rows of infoJson's array. */
export function joinedInfos(tokenId: number, json: unknown) {
  return jsonList<[string, string, string]>(json).map(([key, value, type]) => ({
    token_id: tokenId,
    key,
    value,
    type,
  }));
}

/**
 * Names from namesJson in ORDER BY name order: as aggregated on PostgreSQL and SQLite; on
 * MySQL/MariaDB sorted here as utf8mb4_bin compares (UTF-8 bytes, trailing spaces ignored).
 */
export function sortedNames(dialect: Dialect, names: string[]): string[] {
  if (dialect !== 'mysql') return names;
  const key = (name: string) => Buffer.from(name.replace(/ +$/, ''), 'utf8');
  return names.sort((a, b) => Buffer.compare(key(a), key(b)));
}
