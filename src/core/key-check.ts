// Several nodes share one database but each has its own data directory. If one of them was started
// with a different encryption key, it would write secrets that the others cannot read. A sealed
// canary in the database catches that at start-up, or, when the key is password protected and
// still locked at start-up, at the moment it is unlocked.
import { join } from 'node:path';
import { DatabaseError, HsmError } from '../errors.ts';
import type { Runtime } from './context.ts';

const CANARY = 'authsrv-key-check';
const ROW = 'key_check';

function wrongKeyMessage(rt: Runtime): string {
  return (
    `The encryption key in ${join(rt.config.dataDir, 'encryption.key')} is not the key this database ` +
    'was created with. Every node sharing a database needs a copy of the same encryption.key, ' +
    'signing.key and jwt.secret.'
  );
}

function opens(decrypt: (sealed: string) => string, sealed: string): boolean {
  try {
    return decrypt(sealed) === CANARY;
  } catch {
    return false;
  }
}

async function readCanary(rt: Runtime): Promise<string | undefined> {
  const row = await rt.store.db.selectFrom('meta').select('value').where('name', '=', ROW).executeTakeFirst();
  return row?.value;
}

export async function checkEncryptionKey(rt: Runtime): Promise<void> {
  let sealed = await readCanary(rt);
  if (!rt.hsm.isReady()) {
    // Locked: the key can only be compared when its password arrives (POST /system/hsm).
    if (sealed !== undefined) {
      const known = sealed;
      rt.hsm.checkOnUnlock((decrypt) => {
        if (!opens(decrypt, known)) throw new HsmError(wrongKeyMessage(rt));
      });
    }
    return;
  }
  if (sealed === undefined) {
    // First start on this database. Two nodes may get here at once: only one insert wins, and
    // both then compare their key with the canary that is actually stored.
    await rt.store.db
      .insertInto('meta')
      .values({ name: ROW, value: rt.hsm.encrypt(CANARY) })
      .execute()
      .catch(() => undefined);
    sealed = await readCanary(rt);
    if (sealed === undefined)
      throw new DatabaseError('Cannot store the encryption key check in the database');
  }
  if (!opens((s) => rt.hsm.decrypt(s), sealed)) throw new DatabaseError(wrongKeyMessage(rt));
}
