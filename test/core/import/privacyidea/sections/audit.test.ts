// The audit section of a privacyIDEA import (--with-audit): every pidea_audit row in authsrv's log
// with its original date, marked as imported with privacyIDEA's number and the result of checking
// privacyIDEA's signature; authsrv's own signature over them (and the mark) verifies.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAudit, verifyAudit } from '../../../../../src/core/audit/index.ts';
import { importPrivacyidea } from '../../../../../src/core/import/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import {
  FIXTURE_FILES,
  fixtureImport,
  PI_FIXTURE,
  piManifest,
} from '../../../../helpers/privacyidea-fixture.ts';
import { openTestRuntime, type TestRuntime } from '../../../../helpers/runtime.ts';

const ROWS = piManifest.foreign_objects.audit_rows_total as number;
const KEY = join(PI_FIXTURE, 'audit-public.pem');

async function imported(t: TestRuntime, filters: Record<string, string> = {}) {
  return searchAudit(t.ctx, {
    filters: { imported_from: 'privacyidea', ...filters },
    pageSize: 10_000,
    sortorder: 'asc',
  });
}

describe.each(testDialects())('import privacyidea: audit (%s)', (dialect) => {
  let t: TestRuntime;
  let dir: string;
  beforeAll(async () => {
    t = await openTestRuntime(dialect, FIXTURE_FILES);
    dir = mkdtempSync(join(tmpdir(), 'authsrv-pi-audit-'));
  });
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('plans the audit rows only with --with-audit, and checks every signature in a dry run', async () => {
    const without = await importPrivacyidea(t.ctx, fixtureImport({ dryRun: true }));
    expect(without.sections.map((s) => s.name)).not.toContain('audit');
    const dry = await importPrivacyidea(
      t.ctx,
      fixtureImport({ dryRun: true, withAudit: true, auditPublicKey: KEY }),
    );
    const audit = dry.sections.find((s) => s.name === 'audit')!;
    expect(audit.objects).toHaveLength(ROWS);
    expect(audit.objects[0]).toBe('#1');
    expect(audit.notes).toEqual([`privacyIDEA signature verified: ${ROWS} rows`]);
    expect((await imported(t)).count).toBe(0);
  });

  it('imports every row with its original date, marked, its privacyIDEA signature verified', async () => {
    const before = (await searchAudit(t.ctx, { filters: {} })).count;
    const report = await importPrivacyidea(t.ctx, fixtureImport({ withAudit: true, auditPublicKey: KEY }));
    expect(report.sections.find((s) => s.name === 'audit')?.objects).toHaveLength(ROWS);
    const page = await imported(t);
    expect(page.count).toBe(ROWS);
    expect(page.auditcolumns).toEqual(
      expect.arrayContaining(['imported_from', 'imported_number', 'imported_check']),
    );
    expect(page.auditdata.every((e) => e.imported_check === 'verified' && e.sig_check === 'OK')).toBe(true);
    expect(page.auditdata.map((e) => Number(e.imported_number))).toEqual(
      Array.from({ length: ROWS }, (_, i) => i + 1),
    );
    // STORAGE.md §9's example row.
    expect(page.auditdata.at(-1)).toMatchObject({
      imported_from: 'privacyidea',
      imported_number: '1483',
      imported_check: 'verified',
      date: '2026-11-25T16:54:39.740883Z',
      startdate: '2026-11-25T16:54:39.632486Z',
      duration: 0.108337,
      action: 'POST /policy/disable/<name>',
      success: 1,
      administrator: 'admin',
      privacyidea_server: 'peer',
      client: '127.0.0.1',
      missing_line: 'OK',
    });
    // authsrv's own rows are not marked; the whole log verifies under authsrv's key, without gaps.
    const own = await searchAudit(t.ctx, { filters: { imported_from: '!privacyidea' } });
    expect(own.count).toBe(before);
    const verified = await verifyAudit(t.rt);
    expect(verified).toMatchObject({ checked: before + ROWS, badSignatures: [], gapsAfter: [] });
  });

  it('refuses a second import of the same rows, and changes nothing', async () => {
    const dry = await importPrivacyidea(t.ctx, fixtureImport({ dryRun: true, withAudit: true }));
    expect(dry.sections.find((s) => s.name === 'audit')?.conflicts).toHaveLength(ROWS);
    await expect(importPrivacyidea(t.ctx, fixtureImport({ withAudit: true }))).rejects.toThrow(
      /already holds objects .*audit: #1, #2/,
    );
    expect((await imported(t)).count).toBe(ROWS);
  });

  it('records a row changed since privacyIDEA signed it as failed, and rows without a key as not checked', async () => {
    const copy = join(dir, 'pi.sqlite');
    copyFileSync(join(PI_FIXTURE, 'pi.sqlite'), copy);
    const db = new DatabaseSync(copy);
    db.prepare("UPDATE pidea_audit SET info = 'tampered' WHERE id = 17").run();
    db.prepare("UPDATE pidea_audit SET signature = '1234567' WHERE id = 18").run();
    db.close();
    const fresh = await openTestRuntime(dialect, FIXTURE_FILES);
    try {
      const report = await importPrivacyidea(
        fresh.ctx,
        fixtureImport({ db: copy, withAudit: true, auditPublicKey: KEY }),
      );
      expect(report.sections.find((s) => s.name === 'audit')?.notes).toEqual([
        `privacyIDEA signature verified: ${ROWS - 2} rows`,
        'privacyIDEA signature failed: 1 rows',
        'privacyIDEA signature old-format: 1 rows',
        'privacyIDEA signature failed (changed since privacyIDEA wrote them): #17',
      ]);
      const failed = await imported(fresh, { imported_check: 'failed' });
      expect(failed.auditdata.map((e) => [e.imported_number, e.info, e.sig_check])).toEqual([
        ['17', 'tampered', 'OK'],
      ]);
      expect((await imported(fresh, { imported_check: 'old-format' })).auditdata[0]?.imported_number).toBe(
        '18',
      );
      expect((await imported(fresh, { imported_check: 'verified' })).count).toBe(ROWS - 2);
    } finally {
      await fresh.close();
    }
    const unchecked = await openTestRuntime(dialect, FIXTURE_FILES);
    try {
      await importPrivacyidea(unchecked.ctx, fixtureImport({ withAudit: true }));
      expect((await imported(unchecked, { imported_check: 'not checked' })).count).toBe(ROWS);
    } finally {
      await unchecked.close();
    }
  });

  it("fails authsrv's signature of an imported row whose mark or values are changed in the database", async () => {
    const [first] = (await imported(t)).auditdata;
    await t.rt.store.db
      .updateTable('audit')
      .set({ imported_check: 'verified', info: 'changed' })
      .where('id', '=', Number(first!.number))
      .execute();
    const [second] = (await imported(t, { imported_number: '2' })).auditdata;
    await t.rt.store.db
      .updateTable('audit')
      .set({ imported_from: '' })
      .where('id', '=', Number(second!.number))
      .execute();
    expect((await verifyAudit(t.rt)).badSignatures).toEqual([Number(first!.number), Number(second!.number)]);
  });
});

describe('import privacyidea: audit options', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime('sqlite', FIXTURE_FILES);
  });
  afterAll(async () => t.close());

  it('refuses a key without --with-audit and a file that is no RSA public key', async () => {
    await expect(importPrivacyidea(t.ctx, fixtureImport({ auditPublicKey: KEY }))).rejects.toThrow(
      /only used with the audit import/,
    );
    await expect(
      importPrivacyidea(t.ctx, fixtureImport({ withAudit: true, auditPublicKey: 'pepper.txt' })),
    ).rejects.toThrow(/Cannot read privacyIDEA's audit public key/);
    expect((await searchAudit(t.ctx, { filters: {} })).count).toBe(0);
  });
});
