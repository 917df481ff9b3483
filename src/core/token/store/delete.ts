// Deleting a token: its row and every row that names it.
import type { Transaction } from 'kysely';
import type { Database, Store } from '../../../store/index.ts';
import { bumpCounter, MACHINETOKEN_VERSION_ROW } from '../../change-counters.ts';
import type { LoadedToken } from './types.ts';

/**
 * Deletes a token with its tokeninfo, realms, owner, group memberships, challenges and its
 * attachments to machines (machinetoken with their options, written by core/machine otherwise).
 * Removing attachments moves their change counter in the same transaction, so that no node keeps
 * the token among those attached for offline (core/machine's issuing-tokens.ts).
 */
export async function deleteTokenRows(
  trx: Transaction<Database>,
  store: Pick<Store, 'dialect'>,
  t: LoadedToken,
): Promise<void> {
  const attachments = trx.selectFrom('machinetoken').select('id').where('token_id', '=', t.row.id);
  await trx.deleteFrom('machinetoken_option').where('machinetoken_id', 'in', attachments).execute();
  const detached = await trx.deleteFrom('machinetoken').where('token_id', '=', t.row.id).executeTakeFirst();
  if (Number(detached.numDeletedRows) > 0) await bumpCounter(trx, store, MACHINETOKEN_VERSION_ROW);
  await trx.deleteFrom('tokeninfo').where('token_id', '=', t.row.id).execute();
  await trx.deleteFrom('tokenrealm').where('token_id', '=', t.row.id).execute();
  await trx.deleteFrom('tokenowner').where('token_id', '=', t.row.id).execute();
  await trx.deleteFrom('tokengroup_token').where('token_id', '=', t.row.id).execute();
  await trx.deleteFrom('challenge').where('serial', '=', t.row.serial).execute();
  await trx.deleteFrom('token').where('id', '=', t.row.id).execute();
}
