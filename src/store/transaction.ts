// Every transaction of authsrv runs through here, because the databases may abort one to break a
// deadlock: InnoDB picks a victim among transactions waiting on each other's gap locks (two
// enrolments inserting tokeninfo rows of new tokens), and PostgreSQL aborts one of a deadlock or
// a serialisation failure. The aborted transaction changed nothing, and the work given here
// touches only the database, so running it again is safe and is what the databases advise.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Transaction } from 'kysely';
import type { Store } from './database.ts';
import type { Database } from './schema.ts';

/** Attempts before the database's error goes to the caller. */
const ATTEMPTS = 5;

/** MariaDB/MySQL ER_LOCK_DEADLOCK; PostgreSQL deadlock_detected and serialization_failure. */
export function isTransientConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { errno?: unknown; code?: unknown };
  return e.errno === 1213 || e.code === 'ER_LOCK_DEADLOCK' || e.code === '40P01' || e.code === '40001';
}

/**
 * Runs `work` in one transaction, again (after a short random pause) when the database aborted it.
 * A store that is already a transaction (a whole import run through the services, src/core/import)
 * runs `work` inside it: the outer transaction commits or rolls back everything, and retries it.
 */
export async function runTransaction<T>(
  store: Pick<Store, 'db'>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  if (store.db.isTransaction) return work(store.db as Transaction<Database>);
  for (let attempt = 1; ; attempt++) {
    try {
      return await store.db.transaction().execute(work);
    } catch (error) {
      if (attempt >= ATTEMPTS || !isTransientConflict(error)) throw error;
      // Random, growing pauses: the transactions that collided should not collide again.
      await sleep(Math.random() * 10 * 2 ** attempt);
    }
  }
}

/** Thrown inside a rehearsal to roll it back once its work is done. */
class RehearsalOver<T> extends Error {
  readonly result: T;
  constructor(result: T) {
    super('rehearsal over');
    this.result = result;
  }
}

/**
 * Runs `work` in a transaction that is always rolled back: what the writes would do (or which
 * error they would meet), without keeping them. An import asks this of every object it plans.
 */
export async function rehearse<T>(
  store: Pick<Store, 'db'>,
  work: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  try {
    await store.db.transaction().execute(async (trx) => {
      throw new RehearsalOver(await work(trx));
    });
  } catch (e) {
    if (e instanceof RehearsalOver) return e.result as T;
    throw e;
  }
  throw new Error('unreachable: a rehearsal always rolls back');
}
