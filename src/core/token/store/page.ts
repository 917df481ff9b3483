// A page of the token listing in one statement, with tokeninfo, owner, realms and token groups.
import type { SelectQueryBuilder } from 'kysely';
import type { Database } from '../../../store/index.ts';
import type { Runtime } from '../../context.ts';
import {
  infoJson,
  joinedInfos,
  joinedOwner,
  jsonList,
  namesJson,
  OWNER_COLUMNS,
  sortedNames,
} from './joined.ts';
import { loaded } from './load.ts';
import type { LoadedToken, TokenRow } from './types.ts';

/** How a page of the token listing is cut: sorted by a token column, then by id. */
export interface TokenPage {
  sortby: keyof TokenRow;
  desc: boolean;
  limit: number;
  offset: number;
}

/**
 * A page of the tokens `tokens` selects, with tokeninfo, owner, realms and token groups, in one
 * statement instead of loadRows' four and the groups' one (on PostgreSQL over TCP each statement
 * costs more than reading a page of 15). The page is cut in a derived table first, so that the
 * correlated subselects run for the page's rows only, not for every row a sort or OFFSET passes
 * over; the joins and subselects keep a row per token, and the page is sorted again outside.
 */
export async function loadTokenPage(
  rt: Runtime,
  tokens: SelectQueryBuilder<Database, 'token', object>,
  page: TokenPage,
): Promise<{ tokens: LoadedToken[]; groups: Map<number, string[]> }> {
  const column = `token.${page.sortby}` as const;
  const dir = page.desc ? 'desc' : 'asc';
  const rows = tokens
    .selectAll('token')
    .orderBy(column, dir)
    .orderBy('token.id', 'asc') // ties (active, failcount, …) must not move rows between pages
    .limit(page.limit)
    .offset(page.offset);
  const dialect = rt.store.dialect;
  const joined = await rt.store.db
    .selectFrom(rows.as('token'))
    .leftJoin('tokenowner', 'tokenowner.token_id', 'token.id')
    .leftJoin('realm as owner_realm', 'owner_realm.id', 'tokenowner.realm_id')
    .selectAll('token')
    .select([
      ...OWNER_COLUMNS,
      infoJson(dialect).as('infos'),
      namesJson(dialect, 'realms').as('realm_names'),
      namesJson(dialect, 'groups').as('group_names'),
    ])
    .orderBy(column, dir)
    .orderBy('token.id', 'asc')
    .execute();
  const groups = new Map<number, string[]>();
  const names = (json: unknown) => sortedNames(dialect, jsonList<string>(json));
  const loadedTokens = joined.map((j) => {
    const { owner_resolver, owner_user_id, owner_realm_name, infos, realm_names, group_names, ...row } = j;
    groups.set(row.id, names(group_names));
    return loaded(rt, row, joinedInfos(row.id, infos), joinedOwner(j), names(realm_names));
  });
  return { tokens: loadedTokens, groups };
}
