// Writes of a token's realms (tokenrealm).
import type { Executor } from './types.ts';

/** Replaces the token's realms by existing realms of these names (others are ignored). */
export async function setTokenRealms(db: Executor, tokenId: number, names: readonly string[]): Promise<void> {
  // Deleted only when there are some (a DELETE that finds nothing takes a gap lock: see owners.ts).
  const had = await db
    .selectFrom('tokenrealm')
    .select('token_id')
    .where('token_id', '=', tokenId)
    .executeTakeFirst();
  if (had) await db.deleteFrom('tokenrealm').where('token_id', '=', tokenId).execute();
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
