// The audit service through its public face (src/core/audit/index.ts): writing signed rows, searching
// with privacyIDEA's filters, CSV export, verification and rotation, on every dialect.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  auditCsvLines,
  countAudit,
  newAuditEntry,
  rotateAudit,
  searchAudit,
  startAuditExport,
  verifyAudit,
  writeAudit,
} from '../../../src/core/audit/index.ts';
import { localOperator, type Runtime, withCaller } from '../../../src/core/context.ts';
import { ParameterError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const operator = (rt: Runtime) => withCaller(rt, localOperator());

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

describe.each(testDialects())('audit service on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect, { now: T0 });
  });
  afterEach(async () => t?.close());

  /** Writes a row whose request started at `start` seconds and ended at `end` seconds after T0. */
  async function row(fill: Partial<AuditEntry> = {}, start = 0, end = start): Promise<number> {
    const e = newAuditEntry(fill.action ?? 'GET /test/', at(start), fill.client ?? '10.0.0.1');
    Object.assign(e, fill);
    t.setNow(at(end));
    return writeAudit(t.rt, e);
  }

  async function allRows() {
    return searchAudit(operator(t.rt), { filters: {}, pageSize: 1000, sortorder: 'asc' });
  }

  it('writes one signed row with every field and reads it back as privacyIDEA shows it', async () => {
    const id = await row(
      {
        action: 'POST /token/init',
        success: true,
        authentication: 'ACCEPT',
        serial: 'HOTP0001',
        token_type: 'hotp',
        user: 'alice',
        realm: 'r1',
        resolver: 'res1',
        administrator: 'admin',
        action_detail: 'detail',
        info: 'some info',
        policies: ['p1', 'p2'],
        user_agent: 'privacyidea-cp',
        user_agent_version: '3.2',
      },
      0,
      1.5,
    );
    expect(id).toBeGreaterThan(0);
    const page = await allRows();
    expect(page.count).toBe(1);
    const e = page.auditdata[0]!;
    expect(Object.keys(e)).toEqual([
      'number',
      'date',
      'sig_check',
      'missing_line',
      'action',
      'authentication',
      'success',
      'serial',
      'token_type',
      'container_serial',
      'container_type',
      'user',
      'realm',
      'resolver',
      'administrator',
      'action_detail',
      'info',
      'privacyidea_server',
      'policies',
      'client',
      'user_agent',
      'user_agent_version',
      'log_level',
      'clearance_level',
      'startdate',
      'duration',
      'thread_id',
      'imported_from',
      'imported_number',
      'imported_check',
    ]);
    expect(e).toMatchObject({
      number: id,
      date: at(1.5).toISOString(),
      startdate: T0.toISOString(),
      duration: 1.5,
      sig_check: 'OK',
      missing_line: 'OK',
      action: 'POST /token/init',
      authentication: 'ACCEPT',
      success: 1,
      serial: 'HOTP0001',
      token_type: 'hotp',
      user: 'alice',
      realm: 'r1',
      resolver: 'res1',
      administrator: 'admin',
      action_detail: 'detail',
      info: 'some info',
      privacyidea_server: 'test-node',
      policies: 'p1,p2',
      client: '10.0.0.1',
      user_agent: 'privacyidea-cp',
      user_agent_version: '3.2',
    });
    expect(typeof e.thread_id).toBe('string');
  });

  it('truncates long values to the column limits, also inside a surrogate pair, and keeps them verifiable', async () => {
    const long = (n: number) => 'x'.repeat(n);
    // An emoji (two UTF-16 units) straddling the limit of the column.
    const straddle = `${'a'.repeat(39)}😀tail`;
    await row({
      action: `GET /${long(300)}`,
      authentication: long(50),
      serial: straddle,
      token_type: long(100),
      container_serial: long(100),
      container_type: long(300),
      user: long(1000),
      realm: long(1000),
      resolver: long(1000),
      administrator: long(1000),
      action_detail: long(1000),
      info: `ü${long(5000)}`,
      policies: Array.from({ length: 500 }, (_, i) => `policy${i}`),
      client: long(200),
      user_agent: long(1000),
      user_agent_version: long(200),
    });
    const e = (await allRows()).auditdata[0]!;
    expect(e.sig_check).toBe('OK');
    expect(String(e.action)).toHaveLength(100);
    expect(String(e.authentication)).toHaveLength(20);
    expect([...String(e.serial)]).toHaveLength(40);
    expect(String(e.serial)).toBe(`${'a'.repeat(39)}😀`);
    expect(String(e.token_type)).toHaveLength(30);
    expect(String(e.container_serial)).toHaveLength(40);
    expect(String(e.container_type)).toHaveLength(100);
    for (const k of ['user', 'realm', 'resolver', 'administrator', 'action_detail', 'user_agent'] as const) {
      expect(String(e[k])).toHaveLength(255);
    }
    expect(String(e.info)).toHaveLength(1000);
    expect(String(e.info).startsWith('üxx')).toBe(true);
    expect(String(e.policies)).toHaveLength(1000);
    expect(String(e.client)).toHaveLength(50);
    expect(String(e.user_agent_version)).toHaveLength(50);
    const v = await verifyAudit(t.rt);
    expect(v).toEqual({ checked: 1, badSignatures: [], gapsAfter: [] });
  });

  it('stores text that a database cannot hold (NUL characters) without losing the row', async () => {
    await row({ info: 'before\u0000after', user: 'a\u0000b' });
    const e = (await allRows()).auditdata[0]!;
    expect(e.sig_check).toBe('OK');
    expect(String(e.info)).toMatch(/^before.after$/);
    expect(String(e.info)).not.toContain('\u0000');
  });

  describe('search', () => {
    beforeEach(async () => {
      await row({ action: 'POST /auth', success: true, user: 'alice', realm: 'r1', serial: 'HOTP1' }, 0);
      await row({ action: 'POST /auth', success: false, user: 'bob', realm: 'r1', serial: 'TOTP2' }, 10);
      await row({ action: 'GET /token/', success: true, administrator: 'admin', serial: 'HOTP3' }, 20);
      await row({ action: 'POST /validate/check', success: false, user: 'alice_x', serial: '50%_off' }, 30);
      await row({ action: 'DELETE /system/<key>', success: true, administrator: 'admin' }, 40);
    });
    const users = (p: { auditdata: { user: unknown }[] }) => p.auditdata.map((e) => e.user);

    it('filters by exact value', async () => {
      const p = await searchAudit(operator(t.rt), { filters: { user: 'alice' } });
      expect(p.count).toBe(1);
      expect(users(p)).toEqual(['alice']);
      expect((await searchAudit(operator(t.rt), { filters: { action: 'POST /auth' } })).count).toBe(2);
      expect(
        (await searchAudit(operator(t.rt), { filters: { privacyidea_server: 'test-node' } })).count,
      ).toBe(5);
      expect((await searchAudit(operator(t.rt), { filters: { privacyidea_server: 'other' } })).count).toBe(0);
    });

    it('filters with * wildcards and treats % and _ literally', async () => {
      expect(
        users(await searchAudit(operator(t.rt), { filters: { user: 'ali*' }, sortorder: 'asc' })),
      ).toEqual(['alice', 'alice_x']);
      expect((await searchAudit(operator(t.rt), { filters: { serial: 'HOTP*' } })).count).toBe(2);
      expect((await searchAudit(operator(t.rt), { filters: { serial: '*%*' } })).count).toBe(1);
      expect((await searchAudit(operator(t.rt), { filters: { serial: '50%_*' } })).count).toBe(1);
      // '_' is not a single-character wildcard: 'HOTP_' would match 'HOTP1' in plain SQL LIKE.
      expect((await searchAudit(operator(t.rt), { filters: { serial: 'HOTP_*' } })).count).toBe(0);
      expect((await searchAudit(operator(t.rt), { filters: { action: '*/system/*' } })).count).toBe(1);
    });

    it('negates with a leading !', async () => {
      expect((await searchAudit(operator(t.rt), { filters: { action: '!POST /auth' } })).count).toBe(3);
      expect((await searchAudit(operator(t.rt), { filters: { serial: '!HOTP*' } })).count).toBe(3);
    });

    it('ignores empty and star-only values and unknown columns', async () => {
      expect(
        (await searchAudit(operator(t.rt), { filters: { user: '', serial: '***', nosuch: 'x' } })).count,
      ).toBe(5);
    });

    it('compares success as a boolean', async () => {
      expect((await searchAudit(operator(t.rt), { filters: { success: '1' } })).count).toBe(3);
      expect((await searchAudit(operator(t.rt), { filters: { success: 'true' } })).count).toBe(3);
      expect((await searchAudit(operator(t.rt), { filters: { success: '0' } })).count).toBe(2);
      expect((await searchAudit(operator(t.rt), { filters: { success: '!1' } })).count).toBe(2);
    });

    it('filters by number and refuses a non-numeric one', async () => {
      const all = await searchAudit(operator(t.rt), { filters: {}, sortorder: 'asc' });
      const second = all.auditdata[1]!.number;
      expect(
        (await searchAudit(operator(t.rt), { filters: { number: String(second) } })).auditdata[0]!.number,
      ).toBe(second);
      await expect(searchAudit(operator(t.rt), { filters: { number: 'abc' } })).rejects.toThrow(
        ParameterError,
      );
    });

    it('limits by time with timelimit', async () => {
      t.setNow(at(40 + 3600)); // an hour after the last row
      expect((await searchAudit(operator(t.rt), { filters: {}, timelimit: '1h' })).count).toBe(1);
      expect((await searchAudit(operator(t.rt), { filters: {}, timelimit: '3615s' })).count).toBe(2);
      expect((await searchAudit(operator(t.rt), { filters: {}, timelimit: '1d' })).count).toBe(5);
      expect((await searchAudit(operator(t.rt), { filters: {}, timelimit: '1m' })).count).toBe(0);
      expect((await searchAudit(operator(t.rt), { filters: { user: 'alice' }, timelimit: '1d' })).count).toBe(
        1,
      );
      await expect(searchAudit(operator(t.rt), { filters: {}, timelimit: 'soon' })).rejects.toThrow(
        ParameterError,
      );
      await expect(searchAudit(operator(t.rt), { filters: {}, timelimit: '1w' })).rejects.toThrow(
        ParameterError,
      );
    });

    it('takes an absurdly large timelimit as "everything" instead of failing', async () => {
      expect((await searchAudit(operator(t.rt), { filters: {}, timelimit: '999999999y' })).count).toBe(5);
    });

    it('pages, newest first by default', async () => {
      const p1 = await searchAudit(operator(t.rt), { filters: {}, page: 1, pageSize: 2 });
      expect(p1).toMatchObject({ count: 5, current: 1, prev: null, next: 2 });
      expect(p1.auditdata).toHaveLength(2);
      expect(p1.auditdata[0]!.number).toBeGreaterThan(Number(p1.auditdata[1]!.number));
      const p3 = await searchAudit(operator(t.rt), { filters: {}, page: 3, pageSize: 2 });
      expect(p3).toMatchObject({ count: 5, current: 3, prev: 2, next: null });
      expect(p3.auditdata).toHaveLength(1);
      const asc = await searchAudit(operator(t.rt), { filters: {}, page: 1, pageSize: 2, sortorder: 'asc' });
      expect(asc.auditdata[0]!.number).toBeLessThan(Number(asc.auditdata[1]!.number));
      expect(asc.auditdata[0]!.user).toBe('alice');
      const beyond = await searchAudit(operator(t.rt), { filters: {}, page: 9, pageSize: 2 });
      expect(beyond.auditdata).toEqual([]);
      expect(beyond.count).toBe(5);
    });

    it('uses privacyIDEA defaults for page < 1 and page_size < 1, and refuses a huge page', async () => {
      const p = await searchAudit(operator(t.rt), { filters: {}, page: 0, pageSize: 0 });
      expect(p.current).toBe(1);
      expect(p.auditdata).toHaveLength(5);
      await expect(searchAudit(operator(t.rt), { filters: {}, pageSize: 100_000 })).rejects.toThrow(
        ParameterError,
      );
      await expect(searchAudit(operator(t.rt), { filters: {}, page: 1e20 })).rejects.toThrow(ParameterError);
    });

    it('lists the audit columns in privacyIDEA order', async () => {
      const p = await searchAudit(operator(t.rt), { filters: {} });
      expect(p.auditcolumns.slice(0, 6)).toEqual([
        'number',
        'action',
        'success',
        'authentication',
        'serial',
        'date',
      ]);
      expect(p.auditcolumns).toContain('sig_check');
      expect(p.auditcolumns).toContain('missing_line');
      expect(p.auditcolumns).toHaveLength(30);
    });

    it('counts and exports CSV oldest first with the filters applied', async () => {
      expect(await countAudit(operator(t.rt), { filters: { success: '1' } })).toBe(3);
      const lines: string[] = [];
      for await (const l of auditCsvLines(operator(t.rt), { filters: {} })) lines.push(l);
      expect(lines).toHaveLength(5);
      for (const l of lines) {
        expect(l.endsWith("'\n")).toBe(true);
        expect(l.startsWith("'")).toBe(true);
      }
      const all = await searchAudit(operator(t.rt), { filters: {}, sortorder: 'asc' });
      const first = all.auditdata[0]!;
      expect(lines[0]).toBe(
        `${Object.values(first)
          .map((v) => `'${v}'`)
          .join(',')}\n`,
      );
      const filtered: string[] = [];
      for await (const l of auditCsvLines(operator(t.rt), { filters: { user: 'ali*' } })) filtered.push(l);
      expect(filtered).toHaveLength(2);
      expect(filtered[0]).toContain("'alice'");
      expect(filtered[1]).toContain("'alice_x'");
    });

    it('starts an export only with valid filters, and counts what it will write', async () => {
      await expect(startAuditExport(operator(t.rt), { filters: {}, timelimit: 'never' })).rejects.toThrow(
        ParameterError,
      );
      const exported = await startAuditExport(operator(t.rt), { filters: { user: 'ali*' } });
      expect(await exported.count()).toBe(2);
      const lines: string[] = [];
      for await (const l of exported.lines) lines.push(l);
      expect(lines).toHaveLength(2);
    });

    it('reports a tampered row as sig_check FAIL and a deleted row as missing_line FAIL', async () => {
      const ids = (await allRows()).auditdata.map((e) => Number(e.number));
      await t.rt.store.db.updateTable('audit').set({ info: 'forged' }).where('id', '=', ids[1]!).execute();
      await t.rt.store.db.deleteFrom('audit').where('id', '=', ids[2]!).execute();
      const rows = (await allRows()).auditdata;
      expect(rows.map((e) => [e.number, e.sig_check, e.missing_line])).toEqual([
        [ids[0], 'OK', 'OK'],
        [ids[1], 'FAIL', 'OK'],
        [ids[3], 'OK', 'FAIL'],
        [ids[4], 'OK', 'OK'],
      ]);
      const v = await verifyAudit(t.rt);
      expect(v.checked).toBe(4);
      expect(v.badSignatures).toEqual([ids[1]]);
      expect(v.gapsAfter).toEqual([ids[1]]);
    });

    it('detects rows whose contents were swapped between ids', async () => {
      const [a, b] = (await allRows()).auditdata;
      const { db } = t.rt.store;
      const rowA = await db
        .selectFrom('audit')
        .selectAll()
        .where('id', '=', Number(a!.number))
        .executeTakeFirstOrThrow();
      const rowB = await db
        .selectFrom('audit')
        .selectAll()
        .where('id', '=', Number(b!.number))
        .executeTakeFirstOrThrow();
      const { id: idA, ...restA } = rowA;
      const { id: idB, ...restB } = rowB;
      await db.updateTable('audit').set(restB).where('id', '=', idA).execute();
      await db.updateTable('audit').set(restA).where('id', '=', idB).execute();
      const v = await verifyAudit(t.rt);
      expect(v.badSignatures).toEqual([idA, idB]);
    });
  });

  describe('rotation and verification', () => {
    it('rotates by age', async () => {
      for (let i = 0; i < 5; i++) await row({ info: `r${i}` }, i * 86_400);
      t.setNow(at(4 * 86_400 - 60));
      const r = await rotateAudit(t.rt, { maxAgeSeconds: 2 * 86_400, maxRows: 0 });
      expect(r).toEqual({ deletedByAge: 2, deletedByCount: 0 });
      const rest = (await allRows()).auditdata;
      expect(rest.map((e) => e.info)).toEqual(['r2', 'r3', 'r4']);
      // The oldest remaining row has no predecessor, which is not a missing line after rotation.
      expect(rest.every((e) => e.missing_line === 'OK' && e.sig_check === 'OK')).toBe(true);
      expect(await verifyAudit(t.rt)).toEqual({ checked: 3, badSignatures: [], gapsAfter: [] });
    });

    it('rotates by count, keeping the newest rows', async () => {
      for (let i = 0; i < 7; i++) await row({ info: `r${i}` }, i);
      const r = await rotateAudit(t.rt, { maxAgeSeconds: 0, maxRows: 3 });
      expect(r).toEqual({ deletedByAge: 0, deletedByCount: 4 });
      expect((await allRows()).auditdata.map((e) => e.info)).toEqual(['r4', 'r5', 'r6']);
      expect(await rotateAudit(t.rt, { maxAgeSeconds: 0, maxRows: 3 })).toEqual({
        deletedByAge: 0,
        deletedByCount: 0,
      });
      expect(await rotateAudit(t.rt, { maxAgeSeconds: 0, maxRows: 10 })).toEqual({
        deletedByAge: 0,
        deletedByCount: 0,
      });
    });

    it('rotates by age and count together, and with no limits deletes nothing', async () => {
      for (let i = 0; i < 6; i++) await row({ info: `r${i}` }, i * 3600);
      expect(await rotateAudit(t.rt, { maxAgeSeconds: 0, maxRows: 0 })).toEqual({
        deletedByAge: 0,
        deletedByCount: 0,
      });
      t.setNow(at(5 * 3600));
      const r = await rotateAudit(t.rt, { maxAgeSeconds: 4 * 3600 - 1, maxRows: 2 });
      expect(r).toEqual({ deletedByAge: 2, deletedByCount: 2 });
      expect((await allRows()).auditdata.map((e) => e.info)).toEqual(['r4', 'r5']);
    });

    it('verifies many rows in batches and reports progress', async () => {
      for (let i = 0; i < 30; i++) await row({ info: `r${i}` }, i);
      const progress: number[] = [];
      const v = await verifyAudit(t.rt, (n) => progress.push(n));
      expect(v).toEqual({ checked: 30, badSignatures: [], gapsAfter: [] });
      expect(progress.at(-1)).toBe(30);
    });

    it('verifies an empty log', async () => {
      expect(await verifyAudit(t.rt)).toEqual({ checked: 0, badSignatures: [], gapsAfter: [] });
      expect((await allRows()).auditdata).toEqual([]);
    });
  });
});
