// The batching audit writer: every row of a burst is written once, signed, under its own id; a row
// the database refuses costs no other row; two nodes never share an id; rows in flight reach the
// database before it closes.
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newAuditEntry, searchAudit, verifyAudit, writeAudit } from '../../../src/core/audit/index.ts';
import { AuditWriter, type UnsignedAuditRow } from '../../../src/core/audit/writer.ts';
import { localOperator, type Runtime, withCaller } from '../../../src/core/context.ts';
import { openRuntime } from '../../../src/core/runtime.ts';
import { reserveAuditIds } from '../../../src/store/audit-ids.ts';
import { blankAuditRow } from '../../helpers/audit-rows.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const operator = (rt: Runtime) => withCaller(rt, localOperator());

/** A stand-in signature per row, for tests of the writing alone. */
async function fakeSigner(rows: readonly unknown[]): Promise<string[]> {
  return rows.map(() => 'rsa_sha256_pss:00');
}

function entry(action: string) {
  return newAuditEntry(action, new Date('2026-03-01T12:00:00.000Z'), '10.0.0.1');
}

describe.each(testDialects())('audit writer on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
  });
  afterEach(async () => t?.close());

  async function rows(rt: Runtime = t.rt) {
    return (await searchAudit(operator(rt), { filters: {}, pageSize: 1000, sortorder: 'asc' })).auditdata;
  }

  it('writes a burst of concurrent rows in batches, each once, signed, ids distinct and increasing', async () => {
    const ids = await Promise.all(
      Array.from({ length: 120 }, (_, i) => writeAudit(t.rt, entry(`burst ${i}`))),
    );
    expect(new Set(ids).size).toBe(120);
    // Rows handed over in one turn are written in that order.
    expect([...ids].sort((a, b) => a - b)).toEqual(ids);
    const stored = await rows();
    expect(stored).toHaveLength(120);
    expect(stored.map((r) => r.number)).toEqual(ids);
    expect(stored.map((r) => r.action)).toEqual(ids.map((_, i) => `burst ${i}`));
    expect(stored.every((r) => r.sig_check === 'OK' && r.missing_line === 'OK')).toBe(true);
    expect(await verifyAudit(t.rt)).toEqual({ checked: 120, badSignatures: [], gapsAfter: [] });
    // The rows of a batch share one RSA signature (of their Merkle root); each is still checked
    // alone: a changed row fails, its batch neighbours do not.
    const signatures = await t.rt.store.db.selectFrom('audit').select('signature').execute();
    expect(signatures.filter((r) => r.signature.startsWith('merkle1:')).length).toBeGreaterThan(0);
    await t.rt.store.db.updateTable('audit').set({ info: 'changed' }).where('id', '=', ids[7]!).execute();
    expect(await verifyAudit(t.rt)).toEqual({ checked: 120, badSignatures: [ids[7]], gapsAfter: [] });
    const after = await rows();
    expect(after.filter((r) => r.sig_check === 'FAIL').map((r) => r.number)).toEqual([ids[7]]);
  });

  it('gathers the rows handed over in one turn into one batch', async () => {
    const writer = new AuditWriter(t.rt.store, fakeSigner, pino({ level: 'silent' }));
    const ids = await Promise.all(
      Array.from({ length: 50 }, (_, i) => writer.write({ ...blankAuditRow(), action: `${i}` })),
    );
    expect(writer.batchesWritten).toBe(1);
    expect(ids).toEqual(Array.from({ length: 50 }, (_, i) => ids[0]! + i));
  });

  it('writes the other rows of a batch when the database refuses one of them', async () => {
    const writer = new AuditWriter(t.rt.store, fakeSigner, pino({ level: 'silent' }));
    const good = (action: string) => ({ ...(blankAuditRow() as UnsignedAuditRow), action });
    const bad = { ...good('bad'), action: null } as unknown as UnsignedAuditRow;
    const results = await Promise.allSettled([
      writer.write(good('one')),
      writer.write(bad),
      writer.write(good('three')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const stored = await t.rt.store.db.selectFrom('audit').select(['id', 'action']).orderBy('id').execute();
    expect(stored.map((r) => r.action)).toEqual(['one', 'three']);
    expect(stored.map((r) => r.id)).toEqual([
      (results[0] as PromiseFulfilledResult<number>).value,
      (results[2] as PromiseFulfilledResult<number>).value,
    ]);
  });

  it('keeps reserved ids clear of rows inserted without an explicit id, and writes on after them', async () => {
    const reserved = await reserveAuditIds(t.rt.store, 3);
    await t.rt.store.db
      .insertInto('audit')
      .values({ ...blankAuditRow(), action: 'by hand', signature: '' })
      .execute();
    const byHand = await t.rt.store.db
      .selectFrom('audit')
      .select('id')
      .where('action', '=', 'by hand')
      .executeTakeFirstOrThrow();
    // SQLite's sequence and PostgreSQL's nextval know the reservation; MariaDB's AUTO_INCREMENT
    // cannot be moved by one, so there the next write steps past the row instead.
    if (dialect !== 'mysql') expect(reserved).not.toContain(Number(byHand.id));
    const next = await writeAudit(t.rt, entry('after'));
    expect([...reserved, Number(byHand.id)]).not.toContain(next);
  });

  it('writes a batch under fresh ids when a row inserted meanwhile took one of its ids', async () => {
    let collided = false;
    const writer = new AuditWriter(
      t.rt.store,
      async (rows) => {
        if (!collided) {
          collided = true;
          await t.rt.store.db
            .insertInto('audit')
            .values({ ...blankAuditRow(), id: rows[0]!.id, action: 'intruder', signature: '' })
            .execute();
        }
        return fakeSigner(rows);
      },
      pino({ level: 'silent' }),
    );
    const ids = await Promise.all(['a', 'b'].map((action) => writer.write({ ...blankAuditRow(), action })));
    const stored = await t.rt.store.db.selectFrom('audit').select(['id', 'action']).orderBy('id').execute();
    expect(stored.map((r) => r.action)).toEqual(['intruder', 'a', 'b']);
    expect(stored.slice(1).map((r) => r.id)).toEqual(ids);
  });

  it('gives two nodes on one database distinct ids under concurrent load', async () => {
    const other = await openRuntime(
      { ...t.rt.config, nodeName: 'other-node' },
      { logger: pino({ level: 'silent' }) },
    );
    try {
      const ids = await Promise.all(
        Array.from({ length: 60 }, (_, i) => writeAudit(i % 2 ? other : t.rt, entry(`node ${i % 2}`))),
      );
      expect(new Set(ids).size).toBe(60);
      const stored = await rows();
      expect(stored).toHaveLength(60);
      expect(stored.filter((r) => r.privacyidea_server === 'other-node')).toHaveLength(30);
      expect(stored.every((r) => r.sig_check === 'OK')).toBe(true);
    } finally {
      await other.store.close();
    }
  });

  it('writes the rows still in flight before the store closes', async () => {
    const other = await openRuntime(t.rt.config, { logger: pino({ level: 'silent' }) });
    const pending = Array.from({ length: 10 }, (_, i) => writeAudit(other, entry(`late ${i}`)));
    await other.store.close();
    expect(await Promise.all(pending)).toHaveLength(10);
    expect((await rows()).map((r) => r.action)).toEqual(Array.from({ length: 10 }, (_, i) => `late ${i}`));
  });
});
