// Which tokens are attached for an application that issues items when they authenticate (offline).
// Every successful /validate/check asks, so the answer is kept in memory per database, as the set
// of those tokens' ids, behind the `machinetoken_version` change counter (change-counters.ts): a
// check of a token outside the set reads no machinetoken row. Every write of machinetoken rows
// moves the counter in its transaction: `writeAttachments` here (attaching, detaching), which also
// forgets this node's set after the commit, and the token store's `deleteTokenRows` (a deleted
// token's attachments). Options are not in the set: setting them moves nothing.
//
// Staleness: the set asks `recentCounters`, as the realm directory does. A /validate/check (and an
// offline refill) reads the policies first, with the counters read afresh, and shares that read:
// it sees every attachment committed on any node before it began. A change made on this node is
// seen at once. Only an attachment added can make a set wrong in a way that matters (the token's
// items would not be issued); a removed one leaves an id whose attachments are then read and found
// gone, which is why a token's deletion moves the counter without forgetting anything here.
import type { Transaction } from 'kysely';
import { applicationNames, machineApplication } from '../../applications/index.ts';
import { type Database, runTransaction, type Store } from '../../store/index.ts';
import {
  bumpCounter,
  CountedCache,
  forgetCounters,
  MACHINETOKEN_VERSION_ROW,
  recentCounters,
} from '../change-counters.ts';
import type { Runtime } from '../context.ts';

const issuingTokens = new CountedCache<ReadonlySet<number>>((c) => c.machinetoken, recentCounters);

/** The applications that issue items when an attached token authenticates. */
function issuingApplications(): string[] {
  return applicationNames().filter((name) => machineApplication(name).issue !== undefined);
}

async function loadIssuingTokens(store: Store): Promise<ReadonlySet<number>> {
  const applications = issuingApplications();
  if (applications.length === 0) return new Set();
  const rows = await store.db
    .selectFrom('machinetoken')
    .select('token_id')
    .distinct()
    .where('application', 'in', applications)
    .execute();
  return new Set(rows.map((r) => Number(r.token_id)));
}

/** Whether a token is attached for an application that issues items (no statement while nothing changed). */
export async function hasIssuingAttachment(rt: Runtime, tokenId: number): Promise<boolean> {
  const ids = await issuingTokens.get(rt.store, () => loadIssuingTokens(rt.store));
  return ids.has(tokenId);
}

/**
 * Runs a write of machinetoken rows in one transaction that also moves `machinetoken_version`
 * (last, after the write, as the realm tables' counter is moved), then forgets this node's set and
 * the counters it read: a load begun before the commit is neither handed out nor kept.
 */
export async function writeAttachments<T>(
  store: Store,
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  try {
    return await runTransaction(store, async (trx) => {
      const value = await write(trx);
      await bumpCounter(trx, store, MACHINETOKEN_VERSION_ROW);
      return value;
    });
  } finally {
    // Also after a failure: a commit whose outcome is unknown must not leave a stale set.
    issuingTokens.forget(store);
    forgetCounters(store);
  }
}
