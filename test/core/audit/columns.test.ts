// The audit columns declared once (src/core/audit/columns.ts): the signed text stays what rows
// already stored were signed with, every column is in both of privacyIDEA's orders, and the
// declared lengths are what each database stores.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiName, COLUMNS, ENTRY_ORDER, ENTRY_TEXT, LISTED_ORDER } from '../../../src/core/audit/columns.ts';
import { newAuditEntry, searchAudit, verifyAudit, writeAudit } from '../../../src/core/audit/index.ts';
import { signedText } from '../../../src/core/audit/signature.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const ROW = {
  date: '2026-03-01T12:00:00.000Z',
  startdate: '2026-03-01T11:59:59.123Z',
  duration: 0.8771234567,
  action: 'POST /validate/check',
  success: 1,
  authentication: 'ACCEPT',
  serial: 'OATH0001',
  token_type: 'hotp',
  container_serial: '',
  container_type: '',
  user: 'alice',
  realm: 'r1',
  resolver: 'res',
  administrator: '',
  action_detail: 'x',
  info: 'it\'s "q" é 😀',
  node: 'n1',
  policies: 'p1,p2',
  client: '10.0.0.1',
  user_agent: 'PAM',
  user_agent_version: '2.1',
  log_level: '',
  clearance_level: '',
  thread_id: '1234',
};

describe('audit columns', () => {
  it('signs the id and the stored values in the order existing rows were signed in', () => {
    expect(signedText(42, ROW)).toBe(
      '[42,"2026-03-01T12:00:00.000Z","2026-03-01T11:59:59.123Z","0.877123","POST /validate/check","1",' +
        '"ACCEPT","OATH0001","hotp","","","alice","r1","res","","x","it\'s \\"q\\" é 😀","n1","p1,p2",' +
        '"10.0.0.1","PAM","2.1","","","1234"]',
    );
    // As the dialects return them: a duration and a success read back as text sign the same.
    expect(signedText(42, { ...ROW, duration: '0.8771234567', success: '1' })).toBe(signedText(42, ROW));
  });

  it('lists every column once in both of privacyIDEA orders', () => {
    const names = [...COLUMNS.map(apiName), 'sig_check', 'missing_line'].sort();
    expect([...LISTED_ORDER].sort()).toEqual(names);
    expect([...ENTRY_ORDER].sort()).toEqual(names);
  });

  it('starts an entry with every text column a request fills empty', () => {
    const e = newAuditEntry('GET /x', new Date(0), '192.0.2.1');
    for (const c of ENTRY_TEXT)
      expect(e[c]).toBe(c === 'action' ? 'GET /x' : c === 'client' ? '192.0.2.1' : '');
    expect(ENTRY_TEXT).not.toContain('node');
    expect(e).toMatchObject({ success: false, policies: [] });
  });
});

describe.each(testDialects())('audit column lengths on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
  });
  afterEach(async () => t?.close());

  it('cuts every text a request fills to the length its column stores, and the row verifies', async () => {
    const e = newAuditEntry('x', t.rt.clock());
    for (const c of ENTRY_TEXT) e[c] = '€'.repeat(2000);
    await writeAudit(t.rt, e);
    const [rec] = (await searchAudit(t.ctx, { filters: {} })).auditdata;
    for (const c of COLUMNS) {
      if (!ENTRY_TEXT.includes(c.column as (typeof ENTRY_TEXT)[number])) continue;
      expect(rec![apiName(c)], c.column).toBe('€'.repeat('length' in c ? c.length : 0));
    }
    expect(rec!.sig_check).toBe('OK');
    expect(await verifyAudit(t.rt)).toMatchObject({ checked: 1, badSignatures: [] });
  });
});
