// Several nodes share one database but each has its own data directory. If one of them was started
// with a different encryption key, it would write secrets that the others cannot read. A sealed
// canary in the database catches that at start-up.

import type { Runtime } from './context.ts';
import { DatabaseError } from './errors.ts';

const CANARY = 'authsrv-key-check';

export async function checkEncryptionKey(rt: Runtime): Promise<void> {
  const row = await rt.store.db
    .selectFrom('meta')
    .select('value')
    .where('name', '=', 'key_check')
    .executeTakeFirst();
  if (!row) {
    await rt.store.db
      .insertInto('meta')
      .values({ name: 'key_check', value: rt.hsm.encrypt(CANARY) })
      .execute()
      .catch(() => undefined);
    return;
  }
  let ok = false;
  try {
    ok = rt.hsm.decrypt(row.value) === CANARY;
  } catch {
    ok = false;
  }
  if (!ok) {
    throw new DatabaseError(
      `The encryption key in ${rt.config.dataDir}/encryption.key is not the key this database was created with. ` +
        'Every node sharing a database needs a copy of the same encryption.key, signing.key and jwt.secret.',
    );
  }
}
