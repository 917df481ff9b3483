// Deleting a token: its row and every row that names it.
import type { Executor, LoadedToken } from './types.ts';

/**
 * Deletes a token with its tokeninfo, realms, owner, group memberships, challenges and its
 * attachments to machines (machinetoken with their options, written by core/machine otherwise).
 */
export async function deleteTokenRows(db: Executor, t: LoadedToken): Promise<void> {
  const attachments = db.selectFrom('machinetoken').select('id').where('token_id', '=', t.row.id);
  await db.deleteFrom('machinetoken_option').where('machinetoken_id', 'in', attachments).execute();
  await db.deleteFrom('machinetoken').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('tokeninfo').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('tokenrealm').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('tokenowner').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('tokengroup_token').where('token_id', '=', t.row.id).execute();
  await db.deleteFrom('challenge').where('serial', '=', t.row.serial).execute();
  await db.deleteFrom('token').where('id', '=', t.row.id).execute();
}
