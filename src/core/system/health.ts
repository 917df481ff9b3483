// The health probes' answers (/healthz): this node is ready when its encryption key is unlocked
// and its database answers.
import { sql } from 'kysely';
import type { Runtime } from '../context.ts';

export interface Health {
  /** Ready to serve: the key is unlocked and the database answers. */
  ready: boolean;
  database: boolean;
  hsm: boolean;
}

async function databaseReachable(rt: Runtime): Promise<boolean> {
  try {
    await sql`select 1`.execute(rt.store.db);
    return true;
  } catch {
    return false;
  }
}

/** Readiness alone: a locked key answers at once, without asking the database. */
export async function isReady(rt: Runtime): Promise<boolean> {
  return rt.hsm.isReady() && (await databaseReachable(rt));
}

/** Readiness with its parts, for the answer that names the reason. */
export async function health(rt: Runtime): Promise<Health> {
  const database = await databaseReachable(rt);
  const hsm = rt.hsm.isReady();
  return { ready: database && hsm, database, hsm };
}
