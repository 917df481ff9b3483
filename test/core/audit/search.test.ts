// A page of GET /audit/ is one statement: the page's rows, each with whether its predecessor
// exists (missing_line), the oldest id and the count. Filtered pages ask for predecessors that are
// not on the page; they must come out as the CSV export (which reads rows in batches) shows them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditCsvLines, newAuditEntry, searchAudit, writeAudit } from '../../../src/core/audit/index.ts';
import { localOperator, type Runtime, withCaller } from '../../../src/core/context.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const operator = (rt: Runtime) => withCaller(rt, localOperator());

describe.each(testDialects())('audit pages on %s', (dialect) => {
  let t: TestRuntime;
  let ids: number[];
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
    ids = [];
    for (const user of ['alice', 'bob', 'alice', 'bob', 'alice', 'bob']) {
      const e = newAuditEntry('POST /validate/check', t.rt.clock(), '10.0.0.1');
      e.user = user;
      ids.push(await writeAudit(t.rt, e));
    }
  });
  afterEach(async () => t?.close());

  const page = (filters: Record<string, string>, page: number, sortorder: 'asc' | 'desc' = 'desc') =>
    searchAudit(operator(t.rt), { filters, page, pageSize: 2, sortorder });
  const lines = async (filters: Record<string, string>) => {
    const out: [number, string][] = [];
    for await (const line of auditCsvLines(operator(t.rt), { filters })) {
      const cells = line.split(',');
      out.push([Number(cells[0]!.replace(/'/g, '')), cells[3]!.replace(/'/g, '')]);
    }
    return out;
  };

  it('marks missing predecessors off the page, the oldest row never, as the export does', async () => {
    // The predecessor of an alice row (ids[2]) is deleted; ids[0] stays the oldest row.
    await t.rt.store.db.deleteFrom('audit').where('id', '=', ids[1]!).execute();
    const alice = [
      ...(await page({ user: 'alice' }, 1)).auditdata,
      ...(await page({ user: 'alice' }, 2)).auditdata,
    ];
    expect(alice.map((e) => [e.number, e.missing_line])).toEqual([
      [ids[4], 'OK'],
      [ids[2], 'FAIL'],
      [ids[0], 'OK'],
    ]);
    const bob = await page({ user: 'bob' }, 1, 'asc');
    expect(bob).toMatchObject({ count: 2, next: null });
    expect(bob.auditdata.map((e) => [e.number, e.missing_line])).toEqual([
      [ids[3], 'OK'],
      [ids[5], 'OK'],
    ]);
    expect(await lines({ user: 'alice' })).toEqual(
      alice
        .slice()
        .reverse()
        .map((e) => [e.number, e.missing_line]),
    );
    // Once the oldest row is gone, the next one is the oldest: no predecessor is expected of it.
    await t.rt.store.db.deleteFrom('audit').where('id', '=', ids[0]!).execute();
    const rest = await searchAudit(operator(t.rt), { filters: {}, sortorder: 'asc' });
    expect(rest.auditdata.map((e) => [e.number, e.missing_line])).toEqual([
      [ids[2], 'OK'],
      [ids[3], 'OK'],
      [ids[4], 'OK'],
      [ids[5], 'OK'],
    ]);
  });

  it('counts a page past the end, which has no row to carry the count', async () => {
    expect(await page({ user: 'alice' }, 5)).toMatchObject({ auditdata: [], count: 3, prev: 4, next: null });
    expect(await page({ user: 'nobody' }, 1)).toMatchObject({ auditdata: [], count: 0, next: null });
  });

  it('matches wildcards in number and duration columns against their digits', async () => {
    const last = String(ids[5]);
    const hit = await searchAudit(operator(t.rt), { filters: { number: `*${last}` }, sortorder: 'asc' });
    expect(hit.auditdata.map((e) => e.number)).toContain(ids[5]);
    expect(hit.auditdata.every((e) => String(e.number).endsWith(last))).toBe(true);
    const none = await searchAudit(operator(t.rt), { filters: { duration: '9999*' } });
    expect(none).toMatchObject({ auditdata: [], count: 0 });
    const all = await searchAudit(operator(t.rt), { filters: { number: '!x*' } });
    expect(all.count).toBe(6);
  });
});
