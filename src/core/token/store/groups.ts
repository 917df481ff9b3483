// Writes of token groups (tokengroup) and of the tokens' memberships (tokengroup_token).
import type { Executor } from './types.ts';

/** Inserts a group; a concurrent insert of the same name fails on the unique name. */
export async function insertTokenGroup(db: Executor, name: string, description: string): Promise<void> {
  await db.insertInto('tokengroup').values({ name, description }).execute();
}

export async function setTokenGroupDescription(
  db: Executor,
  groupId: number,
  description: string,
): Promise<void> {
  await db.updateTable('tokengroup').set({ description }).where('id', '=', groupId).execute();
}

export async function deleteTokenGroupRow(db: Executor, groupId: number): Promise<void> {
  await db.deleteFrom('tokengroup').where('id', '=', groupId).execute();
}

/** Puts a token into a group, once however often it is asked (run it in a transaction). */
export async function joinTokenGroup(db: Executor, tokenId: number, groupId: number): Promise<void> {
  await leaveTokenGroup(db, tokenId, groupId);
  await db.insertInto('tokengroup_token').values({ token_id: tokenId, tokengroup_id: groupId }).execute();
}

export async function leaveTokenGroup(db: Executor, tokenId: number, groupId: number): Promise<void> {
  await db
    .deleteFrom('tokengroup_token')
    .where('token_id', '=', tokenId)
    .where('tokengroup_id', '=', groupId)
    .execute();
}

/** The token's groups become exactly these (distinct ids; run it in a transaction). */
export async function setTokenGroups(
  db: Executor,
  tokenId: number,
  groupIds: readonly number[],
): Promise<void> {
  await db.deleteFrom('tokengroup_token').where('token_id', '=', tokenId).execute();
  if (groupIds.length > 0)
    await db
      .insertInto('tokengroup_token')
      .values(groupIds.map((id) => ({ token_id: tokenId, tokengroup_id: id })))
      .execute();
}
