// Audit rows written in batches (group commit): while one batch is being written, the rows of the
// requests that finish meanwhile gather, and the next batch takes them all. A batch reserves its
// ids, signs its rows (together: see crypto/batch-signature.ts; on the thread pool, outside any
// transaction, since an RSA signature costs about half a millisecond and on SQLite a transaction
// holds the one connection) and inserts them signed in one transaction, so nobody ever sees an
// unsigned row. Callers wait for their row to be committed, as
// they would for a single insert; closing the store waits for the rows still in flight.
import type { Insertable } from 'kysely';
import type { Logger } from 'pino';
import { type AuditTable, reserveAuditIds, runTransaction, type Store } from '../../store/index.ts';
export type UnsignedAuditRow = Omit<Insertable<AuditTable>, 'id' | 'signature'>;

/** The signatures of rows under the ids they will have, in their order. */
export type RowSigner = (rows: readonly { id: number; row: UnsignedAuditRow }[]) => Promise<string[]>;

/** Rows per batch; also rows per INSERT (27 values a row stays far below every dialect's limit). */
const MAX_BATCH = 500;
/** Id reservations are retried once: two MariaDB nodes may both create the counter row at once. */
const RESERVE_ATTEMPTS = 2;
/** A batch is inserted under fresh ids once more before its rows are tried one by one. */
const INSERT_ATTEMPTS = 2;

interface Pending {
  row: UnsignedAuditRow;
  resolve: (id: number) => void;
  reject: (e: unknown) => void;
}

export class AuditWriter {
  readonly #store: Store;
  readonly #sign: RowSigner;
  readonly #log: Logger;
  #pending: Pending[] = [];
  #running: Promise<void> | undefined;
  #batches = 0;

  constructor(store: Store, sign: RowSigner, log: Logger) {
    this.#store = store;
    this.#sign = sign;
    this.#log = log;
    store.beforeClose(() => this.drain());
  }

  /** Writes one row; resolves with its id once it is committed. */
  write(row: UnsignedAuditRow): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ row, resolve, reject });
      this.#running ??= this.#run();
    });
  }

  /** Batches committed so far (a batch written row by row after a refusal is not counted). */
  get batchesWritten(): number {
    return this.#batches;
  }

  /** Resolves when every row handed to write() so far has been written (or has failed). */
  async drain(): Promise<void> {
    while (this.#running) await this.#running;
  }

  async #run(): Promise<void> {
    try {
      // One turn of the event loop lets the requests finishing together join the first batch.
      await new Promise((r) => setImmediate(r));
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, MAX_BATCH);
        await this.#writeBatch(batch);
      }
    } finally {
      this.#running = undefined;
    }
  }

  async #writeBatch(batch: Pending[]): Promise<void> {
    let rows: Insertable<AuditTable>[] = [];
    let failure: unknown;
    // A second attempt under fresh ids: a row inserted meanwhile without an explicit id may have
    // taken a reserved one (possible on MariaDB, whose AUTO_INCREMENT a reservation cannot move).
    for (let attempt = 1; attempt <= INSERT_ATTEMPTS; attempt++) {
      try {
        rows = await this.#signed(batch);
      } catch (e) {
        for (const p of batch) p.reject(e);
        return;
      }
      try {
        await runTransaction(this.#store, (trx) => trx.insertInto('audit').values(rows).execute());
        this.#batches++;
        for (const [i, p] of batch.entries()) p.resolve(rows[i]!.id!);
        return;
      } catch (e) {
        failure = e;
      }
    }
    if (batch.length === 1) {
      batch[0]!.reject(failure);
      return;
    }
    this.#log.warn({ err: failure, rows: batch.length }, 'audit batch refused; writing its rows one by one');
    // One row the database refuses must not cost the others theirs: each alone, under its own id.
    for (const [i, p] of batch.entries()) {
      try {
        await this.#store.db.insertInto('audit').values(rows[i]!).execute();
        p.resolve(rows[i]!.id!);
      } catch (e) {
        p.reject(e);
      }
    }
  }

  /** The rows of a batch under newly reserved ids, signed. */
  async #signed(batch: Pending[]): Promise<Insertable<AuditTable>[]> {
    const ids = await this.#reserve(batch.length);
    const signatures = await this.#sign(batch.map((p, i) => ({ id: ids[i]!, row: p.row })));
    return batch.map((p, i) => ({ ...p.row, id: ids[i]!, signature: signatures[i]! }));
  }

  async #reserve(n: number): Promise<number[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await reserveAuditIds(this.#store, n);
      } catch (e) {
        if (attempt >= RESERVE_ATTEMPTS) throw e;
      }
    }
  }
}
