// An import of a privacyIDEA installation: open its database and key file, plan every section
// (nothing written), refuse when authsrv already holds an object of the same name, then write all
// sections in one transaction: a failed import leaves authsrv's database as it was.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigAdminError, ParameterError } from '../../../errors.ts';
import { runTransaction } from '../../../store/index.ts';
import { forgetCounters } from '../../change-counters.ts';
import type { Context } from '../../context.ts';
import { PiKeys } from './keys.ts';
import type { ImportInput, ImportSection, SectionPlan, Skipped } from './section.ts';
import { SECTIONS } from './sections/index.ts';
import { openPrivacyideaDatabase } from './source.ts';

export interface PrivacyideaImportOptions {
  /** The privacyIDEA database: a SQLite file or a SQLAlchemy URL. */
  db: string;
  /** Where relative file paths are resolved (the CLI's working directory). */
  baseDir: string;
  encfile: string;
  encfilePassword?: string;
  pepperFile: string;
  /** Path prefixes of the privacyIDEA host and what they are here. */
  mapPaths: ReadonlyArray<readonly [string, string]>;
  withAudit: boolean;
  /** PI_AUDIT_KEY_PUBLIC (PEM): the audit rows' signatures are checked with it (with withAudit). */
  auditPublicKey?: string;
  dryRun: boolean;
  /** Told before each section is written and as its objects are written. */
  onProgress?: (section: string, written: number, total: number) => void;
  /** Test-only: the sections to run instead of SECTIONS (a test adds one whose write fails). */
  sections?: readonly ImportSection[];
}

export interface SectionReport {
  name: string;
  /** The objects imported (or, in a dry run, to be imported). */
  objects: string[];
  skipped: Skipped[];
  conflicts: string[];
  /** What the operator should know of objects that are imported (a signature that failed …). */
  notes: string[];
}

export interface ImportReport {
  dryRun: boolean;
  /** privacyIDEA's schema version (alembic_version). */
  schemaVersion: string;
  sections: SectionReport[];
}

/** The longest matching prefix of `mapPaths` replaced: whole path components only. */
export function pathMapper(mapPaths: PrivacyideaImportOptions['mapPaths']): (path: string) => string {
  const longestFirst = [...mapPaths].sort((a, b) => b[0].length - a[0].length);
  return (path) => {
    for (const [from, to] of longestFirst) {
      const base = from.replace(/\/+$/, '');
      if (path === base) return to;
      if (path.startsWith(`${base}/`)) return `${to.replace(/\/+$/, '')}${path.slice(base.length)}`;
    }
    return path;
  };
}

function readAuditPublicKey(options: PrivacyideaImportOptions): KeyObject | undefined {
  if (options.auditPublicKey === undefined) return undefined;
  if (!options.withAudit)
    throw new ParameterError('An audit public key is only used with the audit import (--with-audit)');
  const file = resolve(options.baseDir, options.auditPublicKey);
  try {
    const key = createPublicKey(readFileSync(file));
    if (key.asymmetricKeyType !== 'rsa') throw new Error(`an ${key.asymmetricKeyType} key, not RSA`);
    return key;
  } catch (e) {
    throw new ParameterError(`Cannot read privacyIDEA's audit public key ${file}: ${(e as Error).message}`);
  }
}

function readPepper(file: string): string {
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (e) {
    throw new ParameterError(`Cannot read the privacyIDEA pepper file ${file}: ${(e as Error).message}`);
  }
}

export async function importPrivacyidea(
  ctx: Context,
  options: PrivacyideaImportOptions,
): Promise<ImportReport> {
  const keys = PiKeys.fromFile(resolve(options.baseDir, options.encfile), options.encfilePassword);
  const pepper = readPepper(resolve(options.baseDir, options.pepperFile));
  const auditPublicKey = readAuditPublicKey(options);
  const source = await openPrivacyideaDatabase(options.db, options.baseDir);
  try {
    const plans: Array<[string, SectionPlan]> = [];
    const input: ImportInput = {
      source,
      keys,
      pepper,
      mapPath: pathMapper(options.mapPaths),
      planned: (name) => plans.find(([n]) => n === name)?.[1].objects ?? [],
      ...(auditPublicKey ? { auditPublicKey } : {}),
    };
    const sections = (options.sections ?? SECTIONS).filter((s) => !s.optional || options.withAudit);
    for (const section of sections) plans.push([section.name, await section.plan(input, ctx)]);
    const report: ImportReport = {
      dryRun: options.dryRun,
      schemaVersion: source.schemaVersion,
      sections: plans.map(([name, p]) => ({
        name,
        objects: p.objects,
        skipped: p.skipped,
        conflicts: p.conflicts,
        notes: p.notes ?? [],
      })),
    };
    if (options.dryRun) return report;
    refuseConflicts(report);
    await writeAll(ctx, plans, options.onProgress);
    return report;
  } finally {
    await source.close();
  }
}

function refuseConflicts(report: ImportReport): void {
  const clashes = report.sections.filter((s) => s.conflicts.length > 0);
  if (clashes.length === 0) return;
  const list = clashes.map((s) => `${s.name}: ${shortList(s.conflicts)}`).join('; ');
  throw new ConfigAdminError(
    `authsrv already holds objects of this privacyIDEA installation (imported before?), nothing was imported: ${list}`,
  );
}

function shortList(names: string[]): string {
  const shown = names.slice(0, 10).join(', ');
  return names.length > 10 ? `${shown} and ${names.length - 10} more` : shown;
}

async function writeAll(
  ctx: Context,
  plans: Array<[string, SectionPlan]>,
  onProgress: PrivacyideaImportOptions['onProgress'],
): Promise<void> {
  try {
    await runTransaction(ctx.store, async (trx) => {
      const inner: Context = { ...ctx, store: { ...ctx.store, db: trx } };
      for (const [name, plan] of plans) {
        const total = plan.objects.length;
        onProgress?.(name, 0, total);
        await plan.write(inner, (written) => onProgress?.(name, written, total));
      }
    });
  } finally {
    // The services forgot the change counters of the inner store only: the runtime's caches
    // (realm directory, policies …) read them again before they are used after the import.
    forgetCounters(ctx.store);
  }
}
