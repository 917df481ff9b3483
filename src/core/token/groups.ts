// Token groups (reference 3.4 `tokengroup`, 3.5 `/token/group`, 6.5 `/tokengroup/`): named groups
// an administrator defines and puts tokens into; the token record lists the names of its groups.

import { ConfigAdminError, ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { runTransaction } from '../../store/index.ts';
import type { Context, Runtime } from '../context.ts';
import { checkLength, LIMITS } from '../limits.ts';
import { forEachToken, tokenLockedError } from './select.ts';
import {
  deleteTokenGroupRow,
  insertTokenGroup,
  joinTokenGroup,
  type LoadedToken,
  leaveTokenGroup,
  setTokenGroupDescription,
  setTokenGroups,
} from './store/index.ts';

export interface TokenGroupView {
  id: number;
  description: string;
}

function groupMissing(name: string): ResourceNotFoundError {
  return new ResourceNotFoundError(`The tokengroup ${name} does not exist.`);
}

/** GET /tokengroup/[<name>]: name → {description, id}; a name filters (unknown: empty). */
export async function listTokenGroups(rt: Runtime, name?: string): Promise<Record<string, TokenGroupView>> {
  let q = rt.store.db.selectFrom('tokengroup').selectAll().orderBy('name');
  if (name) q = q.where('name', '=', name);
  const out: Record<string, TokenGroupView> = {};
  for (const row of await q.execute()) out[row.name] = { description: row.description, id: Number(row.id) };
  return out;
}

/** POST /tokengroup/<name>: creates the group or updates its description; the value is its id. */
export async function setTokenGroup(
  ctx: Context,
  name: string,
  description: string | undefined,
): Promise<number> {
  const trimmed = name.trim();
  if (!trimmed) throw ParameterError.missing('name');
  checkLength('name', trimmed, LIMITS.name);
  checkLength('description', description, LIMITS.description);
  const db = ctx.store.db;
  const existing = await db
    .selectFrom('tokengroup')
    .select('id')
    .where('name', '=', trimmed)
    .executeTakeFirst();
  if (existing) {
    if (description !== undefined) await setTokenGroupDescription(db, existing.id, description);
    return Number(existing.id);
  }
  try {
    await insertTokenGroup(db, trimmed, description ?? '');
  } catch (e) {
    // A concurrent request created it first (unique name): update instead.
    const raced = await db
      .selectFrom('tokengroup')
      .select('id')
      .where('name', '=', trimmed)
      .executeTakeFirst();
    if (!raced) throw e;
    if (description !== undefined) await setTokenGroupDescription(db, raced.id, description);
  }
  const row = await db
    .selectFrom('tokengroup')
    .select('id')
    .where('name', '=', trimmed)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** DELETE /tokengroup/<name>: refused while tokens are still in the group. */
export async function deleteTokenGroup(ctx: Context, name: string): Promise<number> {
  const db = ctx.store.db;
  const group = await db.selectFrom('tokengroup').select('id').where('name', '=', name).executeTakeFirst();
  if (!group) throw groupMissing(name);
  const members = await db
    .selectFrom('tokengroup_token')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('tokengroup_id', '=', group.id)
    .executeTakeFirstOrThrow();
  const n = Number(members.n);
  if (n > 0) throw new ConfigAdminError(`The tokengroup ${name} still contains ${n} token(s).`);
  await deleteTokenGroupRow(db, group.id);
  return 1;
}

/** The one token a /token/group request names, after the `tokengroups` right check. */
async function pickToken(ctx: Context, serial: string): Promise<LoadedToken> {
  if (!serial) throw ParameterError.missing('serial');
  const tokens: LoadedToken[] = [];
  await forEachToken(ctx, 'tokengroups', { serial }, async (t) => {
    tokens.push(t);
    return 0;
  });
  const t = tokens[0]!;
  if (t.row.locked === 1) throw tokenLockedError();
  return t;
}

/** The ids of the named groups; any unknown name is an error. */
async function groupIds(rt: Runtime, names: readonly string[]): Promise<number[]> {
  if (names.length === 0) return [];
  const rows = await rt.store.db
    .selectFrom('tokengroup')
    .select(['id', 'name'])
    .where('name', 'in', [...names])
    .execute();
  const byName = new Map(rows.map((r) => [r.name, Number(r.id)]));
  return names.map((n) => {
    const id = byName.get(n);
    if (id === undefined) throw groupMissing(n);
    return id;
  });
}

/** POST /token/group/<serial>/<groupname>: adds the token to the group (idempotent). */
export async function addTokenToGroup(ctx: Context, serial: string, group: string): Promise<number> {
  if (!group) throw ParameterError.missing('groupname');
  const t = await pickToken(ctx, serial);
  const [id] = await groupIds(ctx, [group]);
  await runTransaction(ctx.store, (trx) => joinTokenGroup(trx, t.row.id, id!));
  return 1;
}

/** POST /token/group/<serial>: the token's groups become exactly the given ones. */
export async function setGroupsOfToken(
  ctx: Context,
  serial: string,
  groups: readonly string[],
): Promise<number> {
  const t = await pickToken(ctx, serial);
  const ids = [...new Set(await groupIds(ctx, [...new Set(groups)]))];
  await runTransaction(ctx.store, (trx) => setTokenGroups(trx, t.row.id, ids));
  return 1;
}

/** DELETE /token/group/<serial>/<groupname>: takes the token out of the group. */
export async function removeTokenFromGroup(ctx: Context, serial: string, group: string): Promise<number> {
  if (!group) throw ParameterError.missing('groupname');
  const t = await pickToken(ctx, serial);
  const [id] = await groupIds(ctx, [group]);
  await leaveTokenGroup(ctx.store.db, t.row.id, id!);
  return 1;
}
