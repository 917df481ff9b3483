// An import whose privacyIDEA database is on PostgreSQL or MariaDB (postgresql+psycopg2://…,
// mysql+pymysql://… as pi.cfg names it): the fixture copied there (test/helpers/privacyidea-servers.ts)
// gives the same report, and the same imported objects, as the SQLite file itself. Booleans,
// microsecond timestamps and the audit's interval arrive differently from each server.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAudit } from '../../../../src/core/audit/index.ts';
import { type ImportReport, importPrivacyidea } from '../../../../src/core/import/index.ts';
import { listServiceIds } from '../../../../src/core/serviceid/index.ts';
import { testDialects } from '../../../helpers/dialects.ts';
import { FIXTURE_FILES, fixtureImport, PI_FIXTURE } from '../../../helpers/privacyidea-fixture.ts';
import { copyPiFixtureTo } from '../../../helpers/privacyidea-servers.ts';
import { openTestRuntime, type TestRuntime } from '../../../helpers/runtime.ts';

const KEY = join(PI_FIXTURE, 'audit-public.pem');

/** What an import made visible: the service IDs, and the imported audit rows without authsrv's ids. */
async function imported(t: TestRuntime) {
  const audit = await searchAudit(t.ctx, {
    filters: { imported_from: 'privacyidea' },
    pageSize: 10_000,
    sortorder: 'asc',
  });
  return {
    serviceids: await listServiceIds(t.rt),
    audit: audit.auditdata.map(({ number, sig_check, missing_line, ...rest }) => ({
      ...rest,
      ok: sig_check === 'OK' && missing_line === 'OK',
    })),
  };
}

describe.each(testDialects())('import privacyidea from a database on %s', (dialect) => {
  let fromFile: { report: ImportReport; objects: Awaited<ReturnType<typeof imported>> };
  let db = join(PI_FIXTURE, 'pi.sqlite');
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const t = await openTestRuntime(dialect, FIXTURE_FILES);
    try {
      const report = await importPrivacyidea(t.ctx, fixtureImport({ withAudit: true, auditPublicKey: KEY }));
      fromFile = { report, objects: await imported(t) };
    } finally {
      await t.close();
    }
    if (dialect !== 'sqlite') {
      const copy = await copyPiFixtureTo(dialect);
      db = copy.sqlalchemyUrl;
      drop = copy.drop;
    }
  });
  afterAll(async () => drop());

  it('names the server as pi.cfg does', () => {
    const scheme = {
      sqlite: /pi\.sqlite$/,
      postgres: /^postgresql\+psycopg2:\/\//,
      mysql: /^mysql\+pymysql:\/\//,
    };
    expect(db).toMatch(scheme[dialect]);
  });

  it('gives the report and the objects of the SQLite file, every audit signature verified', async () => {
    const t = await openTestRuntime(dialect, FIXTURE_FILES);
    try {
      const report = await importPrivacyidea(
        t.ctx,
        fixtureImport({ db, withAudit: true, auditPublicKey: KEY }),
      );
      expect(report).toEqual(fromFile.report);
      expect(report.sections.at(-1)?.name).toBe('audit');
      expect(report.sections.every((s) => s.conflicts.length === 0)).toBe(true);
      const objects = await imported(t);
      expect(objects).toEqual(fromFile.objects);
      expect(objects.audit.every((e) => e.imported_check === 'verified' && e.ok)).toBe(true);
      expect(objects.audit.find((e) => e.imported_number === '1483')).toMatchObject({
        date: '2026-11-25T16:54:39.740883Z',
        duration: 0.108337,
      });
    } finally {
      await t.close();
    }
  });
});
