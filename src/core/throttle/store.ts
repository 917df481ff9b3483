// The `login_failure` table: the counts of the throttling, shared by every node. A failure is
// counted under the row's lock (SQLite: its one writer), so that concurrent failures on any node
// each count once.
import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type { Database, Dialect, Store } from '../../store/index.ts';
import { runTransaction } from '../../store/index.ts';
import { afterFailure, type Backoff, type FailureCount, type ThrottleKind } from './backoff.ts';

export type FailureRow = Selectable<Database['login_failure']>;

/** A key to count a failure under, with what it counts and its rules. */
export interface Target {
  key: string;
  kind: ThrottleKind;
  account: string;
  address: string;
  backoff: Backoff;
}

const EPOCH = new Date(0).toISOString();

export function countOf(row: FailureRow): FailureCount {
  return {
    failures: row.failures,
    lastFailure: new Date(row.last_failure),
    blockedUntil: new Date(row.blocked_until),
  };
}

/** The rows of the keys (those that exist). */
export function rowsOf(db: Kysely<Database>, keys: string[]): Promise<FailureRow[]> {
  return db.selectFrom('login_failure').selectAll().where('key', 'in', keys).execute();
}

/** Counts one failure at `now` under each target, in one transaction (keys in order: no deadlock). */
export async function countFailures(store: Store, targets: readonly Target[], now: Date): Promise<void> {
  const sorted = [...targets].sort((a, b) => (a.key < b.key ? -1 : 1));
  await runTransaction(store, async (trx) => {
    for (const t of sorted) await countFailure(trx, store.dialect, t, now);
  });
}

async function countFailure(trx: Transaction<Database>, dialect: Dialect, t: Target, now: Date) {
  const blank = {
    key: t.key,
    kind: t.kind,
    account: t.account,
    address: t.address,
    failures: 0,
    last_failure: EPOCH,
    blocked_until: EPOCH,
  };
  // The row exists before it is locked, so that two first failures at once both count. On MySQL a
  // duplicate met by INSERT IGNORE would take a shared lock (two of them deadlock on the FOR
  // UPDATE below): a no-op update takes the row's exclusive lock at once.
  const insert = trx.insertInto('login_failure').values(blank);
  await (dialect === 'mysql'
    ? insert.onDuplicateKeyUpdate({ failures: sql<number>`failures` })
    : insert.onConflict((oc) => oc.column('key').doNothing())
  ).execute();
  const select = trx.selectFrom('login_failure').selectAll().where('key', '=', t.key);
  const row = await (dialect === 'sqlite' ? select : select.forUpdate()).executeTakeFirstOrThrow();
  const next = afterFailure(countOf(row), now, t.backoff);
  await trx
    .updateTable('login_failure')
    .set({
      failures: next.failures,
      last_failure: next.lastFailure.toISOString(),
      blocked_until: next.blockedUntil.toISOString(),
    })
    .where('key', '=', t.key)
    .execute();
}

/** Forgets a key's count (a success of the account from that address). */
export async function deleteKey(db: Kysely<Database>, key: string): Promise<void> {
  await db.deleteFrom('login_failure').where('key', '=', key).execute();
}

/** Deletes the counts forgotten at `now` (last failure before `since`, no block running). */
export async function pruneForgotten(db: Kysely<Database>, now: Date, since: Date): Promise<number> {
  const r = await db
    .deleteFrom('login_failure')
    .where('last_failure', '<', since.toISOString())
    .where('blocked_until', '<=', now.toISOString())
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
