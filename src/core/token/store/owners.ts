// Writes of a token's owner (tokenowner): at most one owner, whose realm is one of the token's.
import type { Executor, TokenOwner } from './types.ts';

/** Sets or clears the owner; the owner's realm is added to the token's realms. */
export async function setTokenOwner(
  db: Executor,
  tokenId: number,
  owner: TokenOwner | undefined,
): Promise<void> {
  // Deleted only when there is one: a DELETE that finds nothing still takes a gap lock in MariaDB,
  // and concurrent enrolments holding the same gap deadlock on their inserts.
  const had = await db
    .selectFrom('tokenowner')
    .select('token_id')
    .where('token_id', '=', tokenId)
    .executeTakeFirst();
  if (had) await db.deleteFrom('tokenowner').where('token_id', '=', tokenId).execute();
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
