// A test runtime into which the privacyIDEA fixture (privacyidea-fixture.ts) was imported, for the
// tests of the import's sections (test/core/import/privacyidea/sections/), and copies of the
// fixture's database with rows added, for what the fixture does not hold.
import { createCipheriv, randomBytes } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll } from 'vitest';
import { type ImportReport, importPrivacyidea, type SectionReport } from '../../src/core/import/index.ts';
import { SECTIONS } from '../../src/core/import/privacyidea/sections/index.ts';
import { setRealm } from '../../src/core/realm/index.ts';
import { saveResolver } from '../../src/core/resolver/index.ts';
import type { DialectName } from './dialects.ts';
import { fixtureImport, PI_FIXTURE } from './privacyidea-fixture.ts';
import { openTestRuntime, type TestRuntime } from './runtime.ts';

export interface ImportedFixture {
  t: TestRuntime;
  report: ImportReport;
  /** The report of one section. */
  section(name: string): SectionReport;
  /** A scratch directory (the CA's copy lives in it), removed by close(). */
  dir: string;
  /** The copy of the fixture's database that was imported, when `sql` was given. */
  db: string | undefined;
  close(): Promise<void>;
}

/**
 * The fixture's realms, for the policies and custom user attributes that name them, when the
 * import has no realms section of its own yet: migrealm and migsql on the passwd resolver.
 */
async function standInRealms(t: TestRuntime): Promise<void> {
  if (SECTIONS.some((s) => s.name === 'realms')) return;
  await saveResolver(t.ctx, 'migpasswd', {
    type: 'passwdresolver',
    fileName: join(PI_FIXTURE, 'users.passwd'),
  });
  await setRealm(t.ctx, 'migrealm', ['migpasswd'], {});
  await setRealm(t.ctx, 'migsql', ['migpasswd'], {});
}

/** Where the fixture's CA connector has its files on the privacyIDEA host. */
const CA_DIR = '/etc/privacyidea/fixture/ca';

/**
 * The fixture's local CA copied, with the CRL directory its connector names (the fixture ships
 * the CA's files without it), so that the CA connector can be opened.
 */
function caCopy(dir: string): string {
  const ca = join(dir, 'ca');
  cpSync(join(PI_FIXTURE, 'ca'), ca, { recursive: true });
  mkdirSync(join(ca, 'crl'));
  return ca;
}

/**
 * Opens a runtime, imports the fixture and returns it with the report. `sql`: statements run on a
 * copy of the fixture's database first (rows the fixture lacks), which is imported instead.
 */
export async function importedFixture(
  dialect: DialectName,
  options: { sql?: string[]; realms?: boolean; now?: Date } = {},
): Promise<ImportedFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'authsrv-pi-import-'));
  const db = options.sql ? fixtureDatabaseWith(dir, options.sql) : undefined;
  const t = await openTestRuntime(dialect, {
    config: { 'files.allowed_dirs': `${PI_FIXTURE},${dir}` },
    ...(options.now ? { now: options.now } : {}),
  });
  if (options.realms !== false) await standInRealms(t);
  const base = fixtureImport();
  const report = await importPrivacyidea(
    t.ctx,
    fixtureImport({
      ...(db ? { db } : {}),
      mapPaths: [...base.mapPaths.filter(([from]) => from !== CA_DIR), [CA_DIR, caCopy(dir)]],
    }),
  );
  return {
    t,
    report,
    dir,
    db,
    section(name) {
      const found = report.sections.find((s) => s.name === name);
      if (!found) throw new Error(`no section ${name} in the report`);
      return found;
    },
    async close() {
      await t.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A copy of the fixture's database in `dir` with the SQL statements run on it; its path. */
export function fixtureDatabaseWith(dir: string, statements: string[]): string {
  const path = join(dir, 'pi-modified.sqlite');
  copyFileSync(join(PI_FIXTURE, 'pi.sqlite'), path);
  const db = new BetterSqlite3(path);
  try {
    for (const s of statements) db.exec(s);
  } finally {
    db.close();
  }
  return path;
}

/** A day after the fixture's snapshot: every sample time step of the manifest lies before it. */
export const AFTER_SNAPSHOT = new Date('2026-11-26T09:00:00.000Z');

/** A runtime that allows the fixture's files, its clock at AFTER_SNAPSHOT. */
export async function fixtureRuntime(dialect: DialectName): Promise<TestRuntime> {
  const t = await openTestRuntime(dialect, {
    config: { 'files.allowed_dirs': PI_FIXTURE },
    now: AFTER_SNAPSHOT,
  });
  return t;
}

/** importedFixture with the clock at AFTER_SNAPSHOT; the runtime's close() also removes the scratch directory. */
export async function importedRuntime(
  dialect: DialectName,
): Promise<{ t: TestRuntime; report: ImportReport }> {
  const fx = await importedFixture(dialect, { now: AFTER_SNAPSHOT });
  return { t: { ...fx.t, close: fx.close }, report: fx.report };
}

/**
 * The fixture imported once for the tests of a describe block (importedRuntime): `bind` receives
 * the runtime and the report before the tests, and the runtime is closed after them.
 */
export function useImportedRuntime(
  dialect: DialectName,
  bind: (imported: { t: TestRuntime; report: ImportReport }) => void,
): void {
  let close: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const imported = await importedRuntime(dialect);
    close = imported.t.close;
    bind(imported);
  }, 120_000);
  afterAll(async () => close?.());
}

/** The report of one section. */
export function sectionReport(report: ImportReport, name: string) {
  const s = report.sections.find((x) => x.name === name);
  if (!s) throw new Error(`no section ${name} in the report`);
  return s;
}

/** The fixture's key file: slot 0 encrypts token secrets, slot 1 `password` values. */
const ENCFILE = readFileSync(join(PI_FIXTURE, 'encfile'));

/** A value encrypted as privacyIDEA does: AES-256-CBC with PKCS#7 under a slot of the fixture's key file. */
export function piEncrypted(plain: string, slot: 0 | 1 = 0): { iv: string; ct: string } {
  const iv = randomBytes(16);
  const c = createCipheriv('aes-256-cbc', ENCFILE.subarray(slot * 32, slot * 32 + 32), iv);
  const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return { iv: iv.toString('hex'), ct: ct.toString('hex') };
}

/** A privacyIDEA token to add to the fixture's database (piTokenRows). */
export interface PiTokenSpec {
  /** The row id: above the fixture's (221), each token its own. */
  id: number;
  serial: string;
  type: string;
  /** The plaintext of key_enc (privacyIDEA stores '' for types without a secret). */
  secret?: string;
  otplen?: number;
  count?: number;
  /** Tokeninfo; `{ password }` values are stored encrypted (Type `password`). */
  info?: Record<string, string | { password: string }>;
}

const sqlText = (v: string) => `'${v.replaceAll("'", "''")}'`;

/** The INSERTs of a token (no PIN, active) and its tokeninfo, for fixtureDatabaseWith. */
export function piTokenRows(t: PiTokenSpec): string[] {
  const key = piEncrypted(t.secret ?? '');
  const token = `INSERT INTO token (id, serial, tokentype, description, otplen, pin_hash, key_enc, key_iv,
    maxfail, active, revoked, locked, failcount, count, count_window, sync_window, rollout_state)
    VALUES (${t.id}, ${sqlText(t.serial)}, ${sqlText(t.type)}, '', ${t.otplen ?? 6}, '', '${key.ct}', '${key.iv}',
    10, 1, 0, 0, 0, ${t.count ?? 0}, 10, 1000, '')`;
  const info = Object.entries(t.info ?? {}).map(([k, v], i) => {
    const [value, type] =
      typeof v === 'string' ? [v, ''] : [Object.values(piEncrypted(v.password, 1)).join(':'), 'password'];
    return `INSERT INTO tokeninfo (id, "Key", "Value", "Type", "Description", token_id)
      VALUES (${100_000 + t.id * 100 + i}, ${sqlText(k)}, ${sqlText(value)}, '${type}', '', ${t.id})`;
  });
  return [token, ...info];
}
