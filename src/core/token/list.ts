// GET /token/ (reference 3.4): the token listing with privacyIDEA's filters, sorting and pages, as
// far as the caller may see.

import { type Expression, type RawBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { ParameterError } from '../../errors.ts';
import type { Database } from '../../store/index.ts';
import { textList } from '../../text-list.ts';
import { LIKE_ESCAPE, likeWildcard } from '../../wildcard.ts';
import { actionValues, grantedRealms } from '../access/index.ts';
import type { Context, Runtime } from '../context.ts';
import type { ResolvedUser } from '../directory/index.ts';
import { checkFilters, checkLength, LIMITS } from '../limits.ts';
import { ownerOf } from './owner.ts';
import { pageLinks, pageOf } from './page.ts';
import { loadTokenPage, type TokenRow } from './store/index.ts';
import { type TokenView, tokenViews } from './view.ts';

export interface ListQuery {
  serial?: string | undefined;
  type?: string | undefined;
  user?: string | undefined;
  realm?: string | undefined;
  tokenrealm?: string | undefined;
  description?: string | undefined;
  assigned?: string | undefined;
  active?: string | undefined;
  rollout_state?: string | undefined;
  /** Comma-separated token types (exact, case-insensitive). */
  type_list?: string | undefined;
  /** Owner's user id / resolver; `*` wildcards, `*` alone = no filter. */
  userid?: string | undefined;
  resolver?: string | undefined;
  /** Tokens whose tokeninfo `infokey` has exactly the value `infovalue` (both or neither). */
  infokey?: string | undefined;
  infovalue?: string | undefined;
  /** Tokens in this container; this server has no containers, so any serial matches none. */
  container_serial?: string | undefined;
  sortby?: string | undefined;
  sortdir?: string | undefined;
  page?: number | undefined;
  pagesize?: number | undefined;
}

const SORTABLE = new Set([
  'serial',
  'tokentype',
  'description',
  'otplen',
  'maxfail',
  'failcount',
  'count',
  'count_window',
  'sync_window',
  'active',
  'revoked',
  'locked',
  'rollout_state',
  'id',
]);

/** `column LIKE pattern`: `*` in the value is any text, everything else literal. */
function like(column: Expression<unknown>, pattern: string): RawBuilder<boolean> {
  return sql<boolean>`${column} LIKE ${likeWildcard(pattern)} ESCAPE ${sql.lit(LIKE_ESCAPE)}`;
}

/**
 * The number of tokens in the store. PostgreSQL reads it from `token_count`, which its triggers
 * keep (migration 0008): counting 100 000 rows there takes tens of milliseconds per listing page.
 */
async function countEveryToken(rt: Runtime): Promise<number> {
  if (rt.store.dialect === 'postgres') {
    const r = await sql<{ n: string | number | null }>`SELECT sum(n) AS n FROM token_count`.execute(
      rt.store.db,
    );
    return Number(r.rows[0]?.n ?? 0);
  }
  const r = await rt.store.db
    .selectFrom('token')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A selection of token rows, narrowed filter by filter. */
type TokenQuery = SelectQueryBuilder<Database, 'token', object>;

export async function listTokens(
  ctx: Context,
  q: ListQuery,
): Promise<{ tokens: TokenView[]; count: number; prev: number | null; next: number | null }> {
  // infovalue is compared, never a pattern: as long as a stored tokeninfo value may be.
  checkFilters({ ...q, infovalue: undefined });
  checkLength('infovalue', q.infovalue, LIMITS.text);
  const everyToken = ctx.store.db.selectFrom('token');
  let query = ownerColumnFilters(attributeFilters(everyToken, q), q);
  const ownerQuery = ctx.caller.role === 'user' ? { user: ctx.caller.username, realm: ctx.caller.realm } : q;
  const owner = ownerQuery.user ? await ownerOf(ctx, ownerQuery) : undefined;
  // hide_tokeninfo (privacyIDEA's prepolicy sets hidden_tokeninfo, overriding any request
  // parameter), asked while the tokens are read.
  const hiding = actionValues(
    ctx,
    'hide_tokeninfo',
    owner ? { user: owner.login, realm: owner.realm, resolver: owner.resolver } : {},
  );
  hiding.catch(() => undefined); // awaited below; a failure before that must not go unhandled
  query = placeFilters(query, q, owner);
  // Realm-restricted administrators see the tokens of their tokenlist realms only.
  const granted = ctx.caller.role === 'admin' ? await grantedRealms(ctx, 'tokenlist') : undefined;
  if (granted) {
    query = query.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenrealm')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .select('tokenrealm.token_id')
        .where('realm.name', 'in', granted.length ? granted : ['']),
    );
  }
  const { page, pagesize, offset } = pageOf(q);
  const sortby = q.sortby && SORTABLE.has(q.sortby) ? q.sortby : 'serial';
  // The count and the page at once (on a server database, two connections).
  const [count, { tokens: loaded, groups }] = await Promise.all([
    query === everyToken ? countEveryToken(ctx) : countOf(query),
    loadTokenPage(ctx, query, {
      sortby: sortby as keyof TokenRow,
      desc: q.sortdir === 'desc',
      limit: pagesize,
      offset,
    }),
  ]);
  const hidden = new Set((await hiding).keys());
  const tokens = withoutInfo(await tokenViews(ctx, loaded, groups), hidden);
  return { tokens, count, ...pageLinks(page, pagesize, count) };
}

async function countOf(query: TokenQuery): Promise<number> {
  const r = await query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(r.n);
}

/** The filters on the token's own columns and tokeninfo: serial, type, description, state, info. */
function attributeFilters(everyToken: TokenQuery, q: ListQuery): TokenQuery {
  let query = everyToken;
  const serials = q.serial && !q.serial.includes('*') ? q.serial.split(',').map((s) => s.trim()) : undefined;
  if (serials) query = query.where('token.serial', 'in', serials);
  else if (q.serial) query = query.where(like(sql.ref('token.serial'), q.serial));
  if (q.type) query = query.where(like(sql.ref('token.tokentype'), q.type.toLowerCase()));
  if (q.description) query = query.where(like(sql.ref('token.description'), q.description));
  if (q.active === 'true' || q.active === 'false')
    query = query.where('token.active', '=', q.active === 'true' ? 1 : 0);
  for (const [name, v] of Object.entries(q))
    if (typeof v === 'string' && v.includes('\u0000'))
      throw new ParameterError(`The value of '${name}' contains a NUL character`);
  if (q.rollout_state?.includes('*'))
    query = query.where(like(sql`LOWER(token.rollout_state)`, q.rollout_state.toLowerCase()));
  else if (q.rollout_state) query = query.where('token.rollout_state', '=', q.rollout_state);
  if (q.type_list !== undefined) query = query.where('token.tokentype', 'in', typeList(q.type_list));
  return infoFilter(query, q);
}

function typeList(text: string): string[] {
  const types = textList(text).map((t) => t.toLowerCase());
  if (!types.length) throw new ParameterError("'type_list' must name at least one token type");
  return types;
}

/** infokey + infovalue: tokens with exactly that tokeninfo value (both or neither). */
function infoFilter(query: TokenQuery, q: ListQuery): TokenQuery {
  if ((q.infokey === undefined) !== (q.infovalue === undefined))
    throw ParameterError.missing(q.infokey === undefined ? 'infokey' : 'infovalue');
  if (q.infokey === undefined || q.infovalue === undefined) return query;
  const [key, value] = [q.infokey, q.infovalue];
  // Correlated on the (token_id, key) unique index: one index probe per candidate token.
  return query.where(({ exists, selectFrom }) =>
    exists(
      selectFrom('tokeninfo')
        .select('tokeninfo.token_id')
        .whereRef('tokeninfo.token_id', '=', 'token.id')
        .where('tokeninfo.key', '=', key)
        .where('tokeninfo.value', '=', value),
    ),
  );
}

/** privacyIDEA: `userid` and `resolver` filter the owner; `*` matches anything, so alone it is no filter. */
function ownerColumnFilters(query: TokenQuery, q: ListQuery): TokenQuery {
  const ownerPattern = (v: string | undefined) => (v?.replace(/\*/g, '') ? v : undefined);
  const userid = ownerPattern(q.userid);
  const resolver = ownerPattern(q.resolver);
  let out = query;
  if (userid || resolver) {
    out = out.where(({ exists, selectFrom }) => {
      let owners = selectFrom('tokenowner')
        .select('tokenowner.token_id')
        .whereRef('tokenowner.token_id', '=', 'token.id');
      for (const [column, v] of [
        ['tokenowner.user_id', userid],
        ['tokenowner.resolver', resolver],
      ] as const) {
        if (v?.includes('*')) owners = owners.where(like(sql.ref(column), v));
        else if (v) owners = owners.where(column, '=', v);
      }
      return exists(owners);
    });
  }
  if (q.container_serial) out = out.where(sql<boolean>`1 = 0`);
  return out;
}

/** The owner (or the owner's realm), the token realm and whether the token is assigned. */
function placeFilters(query: TokenQuery, q: ListQuery, owner: ResolvedUser | undefined): TokenQuery {
  let out = query;
  if (owner) {
    out = out.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenowner')
        .select('token_id')
        .where('resolver', '=', owner.resolver)
        .where('user_id', '=', owner.userid),
    );
  } else if (q.realm) {
    out = out.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenowner')
        .innerJoin('realm', 'realm.id', 'tokenowner.realm_id')
        .select('tokenowner.token_id')
        .where('realm.name', '=', q.realm!.toLowerCase()),
    );
  }
  if (q.tokenrealm) {
    const realm = q.tokenrealm.toLowerCase();
    out = out.where('token.id', 'in', (eb) =>
      eb
        .selectFrom('tokenrealm')
        .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
        .select('tokenrealm.token_id')
        .where('realm.name', '=', realm),
    );
  }
  if (q.assigned === 'true')
    out = out.where('token.id', 'in', (eb) => eb.selectFrom('tokenowner').select('token_id'));
  if (q.assigned === 'false')
    out = out.where('token.id', 'not in', (eb) => eb.selectFrom('tokenowner').select('token_id'));
  return out;
}

/** The token views without the hidden tokeninfo keys (hide_tokeninfo). */
function withoutInfo(tokens: TokenView[], hidden: ReadonlySet<string>): TokenView[] {
  if (hidden.size)
    for (const t of tokens)
      t.info = Object.fromEntries(
        Object.entries(t.info as Record<string, unknown>).filter(([key]) => !hidden.has(key)),
      );
  return tokens;
}
