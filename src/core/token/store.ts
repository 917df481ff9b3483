// Tokens in the database (reference 3): loading a token with its tokeninfo, owner and realms;

// creating and updating rows; the sealed secret and the hashed PIN; the counters, including the
// compare-and-set that lets an OTP value be accepted only once however many requests carry it.
import { createHash, timingSafeEqual } from 'node:crypto';
import { type RawBuilder, type Selectable, type SelectQueryBuilder, sql, type Transaction } from 'kysely';
import { hashPassword, verifyPassword } from '../../crypto/index.ts';
import { ParameterError, ResourceNotFoundError, TokenAdminError } from '../../errors.ts';
import { type Database, type Dialect, prepared, type TokenTable } from '../../store/index.ts';
import { findTokenType, type TokenState, type TokenType } from '../../tokens/index.ts';
import type { Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';

export type TokenRow = Selectable<TokenTable>;

type Db = Database;

type Executor = Runtime['store']['db'] | Transaction<Db>;

export interface TokenOwner {
  resolver: string;
  userId: string;
  realm: string;
}

/** A token with everything the services need about it. */
export interface LoadedToken {
  row: TokenRow;
  type: TokenType;
  /** Tokeninfo values (sealed ones opened). */
  info: Record<string, string>;
  owner: TokenOwner | undefined;
  realms: string[];
}

export const TOKEN_NOT_FOUND = 'The requested token could not be found.';

/** The state a token type works on; the secret is opened only when the type asks for it. */
export function tokenState(rt: Runtime, t: LoadedToken): TokenState {
  let key: Buffer | undefined;
  return {
    serial: t.row.serial,
    type: t.row.tokentype,
    otplen: t.row.otplen,
    count: Number(t.row.count),
    countWindow: t.row.count_window,
    syncWindow: t.row.sync_window,
    info: t.info,
    key() {
      key ??= t.row.key_enc === '' ? Buffer.alloc(0) : Buffer.from(rt.hsm.decrypt(t.row.key_enc), 'hex');
      return key;
    },
  };
}

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

function loaded(
  rt: Runtime,
  row: TokenRow,
  infos: readonly { token_id: number; key: string; value: string; type: string }[],
  owner: TokenOwner | undefined,
  realms: string[],
): LoadedToken {
  const info: Record<string, string> = {};
  for (const i of infos) {
    if (i.token_id === row.id) info[i.key] = i.type === 'password' ? rt.hsm.decrypt(i.value) : i.value;
  }
  const type = findTokenType(row.tokentype);
  if (!type) throw new TokenAdminError(`Token ${row.serial} has the unknown type '${row.tokentype}'`);
  return { row, type, info, owner, realms };
}

/**
 * The tokens of the login path (one serial, or one owner's tokens) in one query instead of
 * loadRows' four: the token rows come with their owner and realms joined (a row per realm, in
 * realm-name order as loadRows has them; a token has at most one owner) and their tokeninfo as one
 * JSON array of [key, value, type] (`infoJson`; every statement saved counts on the login path).
 */
/** The owner columns of a query that LEFT JOINs tokenowner and `realm as owner_realm` (JoinedOwner). */
const OWNER_COLUMNS = [
  'tokenowner.resolver as owner_resolver',
  'tokenowner.user_id as owner_user_id',
  'owner_realm.name as owner_realm_name',
] as const;

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

/** The tokeninfo of `token` as a JSON array of [key, value, type], [] for none. */
function infoJson(dialect: Dialect) {
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
function namesJson(dialect: Dialect, of: 'realms' | 'groups') {
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
function jsonList<T>(json: unknown): T[] {
  return (typeof json === 'string' ? JSON.parse(json) : json) as T[];
}

/** The rows of infoJson's array. */
function joinedInfos(tokenId: number, json: unknown) {
  return jsonList<[string, string, string]>(json).map(([key, value, type]) => ({
    token_id: tokenId,
    key,
    value,
    type,
  }));
}

/** The owner columns of a token row that LEFT JOINs tokenowner and its realm. */
interface JoinedOwner {
  owner_resolver: string | null;
  owner_user_id: string | null;
  owner_realm_name: string | null;
}

/** The owner of joined owner columns; as loadRows, an owner whose realm is gone is no owner. */
function joinedOwner(j: JoinedOwner): TokenOwner | undefined {
  return j.owner_resolver !== null && j.owner_user_id !== null && j.owner_realm_name !== null
    ? { resolver: j.owner_resolver, userId: j.owner_user_id, realm: j.owner_realm_name }
    : undefined;
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

/**
 * Names from namesJson in ORDER BY name order: as aggregated on PostgreSQL and SQLite; on
 * MySQL/MariaDB sorted here as utf8mb4_bin compares (UTF-8 bytes, trailing spaces ignored).
 */
function sortedNames(dialect: Dialect, names: string[]): string[] {
  if (dialect !== 'mysql') return names;
  const key = (name: string) => Buffer.from(name.replace(/ +$/, ''), 'utf8');
  return names.sort((a, b) => Buffer.compare(key(a), key(b)));
}

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
  tokens: SelectQueryBuilder<Db, 'token', object>,
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

// ---------------------------------------------------------------------------------------------
// PINs and secrets.

/** Marks a PIN stored sealed by the security module (encrypt_pin) instead of hashed. */
const SEALED_PIN = '@@';

/**
 * The stored form of a PIN: '' for no PIN, else an argon2id hash, or with `encrypt` (the runtime
 * whose security module seals it; encrypt_pin / encryptpin) `@@` + the sealed PIN.
 */
export async function pinHash(pin: string | undefined, encrypt?: Runtime): Promise<string> {
  if (!pin) return '';
  return encrypt ? SEALED_PIN + encrypt.hsm.encrypt(pin) : hashPassword(pin);
}

/**
 * Whether a PIN matches the token's (a token without PIN accepts only the empty PIN). A sealed
 * PIN is opened with `rt` and compared in constant time (digests of equal length).
 */
export async function pinMatches(t: LoadedToken, pin: string, rt?: Runtime): Promise<boolean> {
  if (t.row.pin_hash === '') return pin === '';
  if (t.row.pin_hash.startsWith(SEALED_PIN)) {
    if (!rt) return false;
    const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
    return timingSafeEqual(digest(rt.hsm.decrypt(t.row.pin_hash.slice(SEALED_PIN.length))), digest(pin));
  }
  return verifyPassword(pin, t.row.pin_hash);
}

export function sealKey(rt: Runtime, key: Buffer | undefined): string {
  return key && key.length > 0 ? rt.hsm.encrypt(key.toString('hex')) : '';
}

// ---------------------------------------------------------------------------------------------
// Writes.

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

const tokeninfoInsert = prepared((db, v: TokeninfoRow) => db.insertInto('tokeninfo').values(v));

/** Sets tokeninfo values (insert or update); `password` entries are sealed. */
export async function setTokenInfo(
  rt: Runtime,
  db: Executor,
  tokenId: number,
  entries: Record<string, string>,
  type = '',
): Promise<void> {
  // All entries first: a refused one leaves none of them written.
  for (const [key, raw] of Object.entries(entries)) {
    checkLength('tokeninfo key', key, LIMITS.name);
    checkLength(`tokeninfo ${key.slice(0, 40)}`, raw, LIMITS.text);
  }
  for (const [key, raw] of Object.entries(entries)) {
    const value = type === 'password' ? rt.hsm.encrypt(raw) : raw;
    const row = { token_id: tokenId, key, value, type };
    const done = await tokeninfoUpdate.run(db, row);
    if (Number(done.numAffectedRows) === 0) await tokeninfoInsert.run(db, row);
  }
}

export async function deleteTokenInfo(db: Executor, tokenId: number, key: string): Promise<void> {
  await db.deleteFrom('tokeninfo').where('token_id', '=', tokenId).where('key', '=', key).execute();
}

/** Replaces the token's realms by existing realms of these names (others are ignored). */
export async function setTokenRealms(db: Executor, tokenId: number, names: readonly string[]): Promise<void> {
  await db.deleteFrom('tokenrealm').where('token_id', '=', tokenId).execute();
  if (names.length === 0) return;
  const realms = await db
    .selectFrom('realm')
    .select('id')
    .where(
      'name',
      'in',
      names.map((n) => n.toLowerCase()),
    )
    .execute();
  for (const r of realms)
    await db.insertInto('tokenrealm').values({ token_id: tokenId, realm_id: r.id }).execute();
}

/** Sets or clears the owner; the owner's realm is added to the token's realms. */
export async function setTokenOwner(
  db: Executor,
  tokenId: number,
  owner: TokenOwner | undefined,
): Promise<void> {
  await db.deleteFrom('tokenowner').where('token_id', '=', tokenId).execute();
  if (!owner) return;
  const realm = await db
    .selectFrom('realm')
    .select('id')
    .where('name', '=', owner.realm)
    .executeTakeFirstOrThrow();
  await db
    .insertInto('tokenowner')
    .values({ token_id: tokenId, resolver: owner.resolver, user_id: owner.userId, realm_id: realm.id })
    .execute();
  const linked = await db
    .selectFrom('tokenrealm')
    .select('token_id')
    .where('token_id', '=', tokenId)
    .where('realm_id', '=', realm.id)
    .executeTakeFirst();
  if (!linked) await db.insertInto('tokenrealm').values({ token_id: tokenId, realm_id: realm.id }).execute();
}

/** Deletes a token with its tokeninfo, realms, owner and challenges. */
export async function deleteTokenRows(db: Executor, t: LoadedToken): Promise<void> {
  await db.deleteFrom('tokeninfo').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('tokenrealm').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('tokenowner').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('tokengroup_token').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('challenge').where('serial', '=', t.row.serial).execute();
  await db.deleteFrom('token').where('id', '=', t.row.id).execute();
}

// ---------------------------------------------------------------------------------------------
// Counters.

/**
 * Moves the counter from the value the check saw to the new one, only if nobody moved it in
 * between: of concurrent requests carrying the same OTP exactly one succeeds. Resets the fail
 * counter on success unless `resetFailcount` is false (a value used up by a token that may not
 * authenticate).
 */
export async function consumeOtp(
  rt: Runtime,
  t: LoadedToken,
  newCount: number,
  newKey?: Buffer,
  resetFailcount = true,
): Promise<boolean> {
  const shape = `${resetFailcount ? 'reset' : ''} ${newKey ? 'key' : ''}`;
  const r = await countSwap.run(
    rt.store.db,
    {
      id: t.row.id,
      count: t.row.count,
      newCount,
      key: t.row.key_enc,
      newKey: newKey ? sealKey(rt, newKey) : '',
    },
    shape,
  );
  return Number(r.numAffectedRows) === 1;
}

/**
 * The compare-and-set of consumeOtp; the shape says whether the fail counter is reset and whether
 * the key is swapped too (a type that uses up part of its secret, tan, hands back the rest).
 */
const countSwap = prepared(
  (db, v: { id: number; count: number; newCount: number; key: string; newKey: string }, shape) => {
    const withKey = shape.includes('key');
    const q = db
      .updateTable('token')
      .set({
        count: v.newCount,
        ...(shape.includes('reset') ? { failcount: 0 } : {}),
        ...(withKey ? { key_enc: v.newKey } : {}),
      })
      .where('id', '=', v.id)
      .where('count', '=', v.count);
    return withKey ? q.where('key_enc', '=', v.key) : q;
  },
);

/** Increments the fail counter while it is below maxfail; reaching it records failcounter_exceeded. */
export async function incFailcount(rt: Runtime, t: LoadedToken, now: Date): Promise<void> {
  let after: { failcount: number; maxfail: number } | undefined;
  if (rt.store.dialect === 'mysql') {
    if (Number((await failIncrement.run(rt.store.db, { id: t.row.id })).numAffectedRows) !== 1) return;
    // Read back (MariaDB has no UPDATE … RETURNING): concurrent failures may each have seen a
    // lower count before their update.
    after = await rt.store.db
      .selectFrom('token')
      .select(['failcount', 'maxfail'])
      .where('id', '=', t.row.id)
      .executeTakeFirst();
  } else {
    // The count our own increment made: of concurrent failures, the one that reached maxfail.
    after = (await failIncrementReturning.run(rt.store.db, { id: t.row.id })).rows[0];
    if (!after) return;
  }
  if (after && after.failcount >= after.maxfail) {
    await setTokenInfoRacing(rt, t.row.id, { failcounter_exceeded: formatMinute(now) });
  }
}

const failIncrementOf = (db: Executor, id: number) =>
  db
    .updateTable('token')
    .set((eb) => ({ failcount: eb('failcount', '+', 1) }))
    .where('id', '=', id)
    .whereRef('failcount', '<', 'maxfail');
const failIncrement = prepared((db, v: { id: number }) => failIncrementOf(db, v.id));
const failIncrementReturning = prepared((db, v: { id: number }) =>
  failIncrementOf(db, v.id).returning(['failcount', 'maxfail']),
);

/** `%Y-%m-%dT%H:%M%z` in UTC, as privacyIDEA writes failcounter_exceeded. */
export function formatMinute(d: Date): string {
  return `${d.toISOString().slice(0, 16)}+0000`;
}

/**
 * A validity date (validity_period_start/end of /token/init and /token/set) in privacyIDEA's stored
 * form `YYYY-MM-DDThh:mm+oooo`; ISO forms with seconds, `Z` or `+hh:mm` are accepted. Empty removes
 * the limit. Anything else → ParameterError 905.
 */
export function validityDate(name: string, v: string): string {
  if (v.trim() === '') return '';
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(
    v.trim(),
  );
  if (!m || Number.isNaN(Date.parse(`${m[1]}T${m[2]}:00Z`)))
    throw new ParameterError(`'${name}' must be a date like 2025-01-31T10:00+0000, not '${v}'`);
  const zone = !m[3] || m[3] === 'Z' ? '+0000' : m[3].replace(':', '');
  return `${m[1]}T${m[2]}${zone}`;
}

// ---------------------------------------------------------------------------------------------
// Tokeninfo writes of concurrent authentications.

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

/** A counting tokeninfo value as a number, as the checks read it (parseInt; unreadable → 0). */
export function counterValue(text: string | undefined): number {
  return Number.parseInt(text ?? '0', 10) || 0;
}

/**
 * A counting tokeninfo value as the database reads it, the way counterValue reads it (leading
 * integer, else 0), so that an odd stored value fails no check: SQLite's CAST takes the leading
 * integer by itself; PostgreSQL's ::bigint and MariaDB's strict mode would refuse anything but
 * digits, so the leading integer is cut out first. (`{0,1}`, not `?`: mysql2 would take a `?` in
 * the SQL text for a parameter.)
 */
function counted(dialect: Dialect) {
  const value = sql.ref('tokeninfo.value');
  if (dialect === 'postgres')
    return sql<number>`coalesce(substring(${value} from '^\\s*([+-]{0,1}[0-9]+)')::bigint, 0)`;
  if (dialect === 'mysql')
    return sql<number>`(case when ${value} regexp '^[[:space:]]*[+-]{0,1}[0-9]' then cast(regexp_substr(${value}, '[+-]{0,1}[0-9]+') as signed) else 0 end)`;
  return sql<number>`cast(${value} as integer)`;
}

/** The stored value + 1, computed by the database on the text column. */
function incremented(dialect: Dialect) {
  const value = counted(dialect);
  if (dialect === 'mysql') return sql<string>`cast(${value} + 1 as char)`;
  if (dialect === 'postgres') return sql<string>`(${value} + 1)::text`;
  return sql<string>`cast(${value} + 1 as text)`;
}

/** Adds one to the tokeninfo entries `keys` of a token. */
const counterIncrementOf = (db: Executor, v: { id: number; keys: readonly string[] }, dialect: Dialect) =>
  db
    .updateTable('tokeninfo')
    .set({ value: incremented(dialect) })
    .where('token_id', '=', v.id)
    .where('key', 'in', v.keys);
const counterIncrement = prepared((db, v: { id: number; keys: readonly string[] }, _shape, dialect) =>
  counterIncrementOf(db, v, dialect),
);

const counterIncrementReturning = prepared(
  (db, v: { id: number; keys: readonly string[] }, _shape, dialect) =>
    counterIncrementOf(db, v, dialect).returning(['key', 'value']),
);

/**
 * Adds one to counting tokeninfo entries (count_auth, count_auth_success) so that no increment of
 * concurrent requests is lost, on one node or several: the database adds, in one UPDATE for all
 * the entries the token had when it was loaded (the usual case: one statement per check). An
 * entry it did not have is inserted as 1; when a concurrent request inserted it first, the unique
 * (token_id, key) refuses ours and an UPDATE adds to the row that now exists. An entry deleted
 * between the load and the UPDATE (an administrator removing it) is left deleted: the increment
 * counts as made before the deletion. `t.info` gets the values written; MariaDB, which has no
 * UPDATE … RETURNING, gets the loaded value + 1 (what it is unless another request counted too).
 */
export async function bumpInfoCounters(rt: Runtime, t: LoadedToken, keys: readonly string[]): Promise<void> {
  const db = rt.store.db;
  const dialect = rt.store.dialect;
  const present = keys.filter((k) => t.info[k] !== undefined);
  const add = async (which: readonly string[]): Promise<number> => {
    if (dialect === 'mysql')
      return Number((await counterIncrement.run(db, { id: t.row.id, keys: which })).numAffectedRows);
    const { rows } = await counterIncrementReturning.run(db, { id: t.row.id, keys: which });
    for (const row of rows) t.info[row.key] = row.value;
    return rows.length;
  };
  for (const k of keys) t.info[k] = String(counterValue(t.info[k]) + 1);
  if (present.length > 0) await add(present);
  for (const key of keys.filter((k) => !present.includes(k)))
    await insertCount(rt, t, key, async () => (await add([key])) > 0);
}

/**
 * Inserts the counting entry `key` of a token as 1. When a concurrent request inserted it first,
 * `countOn` counts on that row instead. False when neither counted (the row is at its limit);
 * without a row the failure of the insert is real and is thrown.
 */
async function insertCount(
  rt: Runtime,
  t: LoadedToken,
  key: string,
  countOn: () => Promise<boolean>,
): Promise<boolean> {
  try {
    await tokeninfoInsert.run(rt.store.db, { token_id: t.row.id, key, value: '1', type: '' });
    t.info[key] = '1';
    return true;
  } catch (e) {
    if (await countOn()) return true;
    const entry = await rt.store.db
      .selectFrom('tokeninfo')
      .select('id')
      .where('token_id', '=', t.row.id)
      .where('key', '=', key)
      .executeTakeFirst();
    if (entry === undefined) throw e;
    return false;
  }
}

/**
 * Adds one to the counting tokeninfo entry `key` only while it is below `max` (count_auth_max,
 * count_auth_success_max), in the database's own UPDATE: of concurrent requests that all loaded
 * the token below its limit, only as many as the limit leaves are counted, so a burst cannot pass
 * it. False when the entry is at its limit. A missing entry is inserted as 1 (`max` ≥ 1); when a
 * concurrent request inserted it first, the guarded UPDATE is tried on its row.
 */
export async function bumpInfoCounterBelow(
  rt: Runtime,
  t: LoadedToken,
  key: string,
  max: number,
): Promise<boolean> {
  const db = rt.store.db;
  const dialect = rt.store.dialect;
  const below = async () => {
    const r = await counterIncrementOf(db, { id: t.row.id, keys: [key] }, dialect)
      .where(counted(dialect), '<', max)
      .executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return false;
    t.info[key] = String(counterValue(t.info[key]) + 1);
    return true;
  };
  return (await below()) || insertCount(rt, t, key, below);
}
