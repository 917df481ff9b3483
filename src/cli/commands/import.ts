// `authsrv import privacyidea`: carries a whole privacyIDEA installation over (its database read
// with its key file and pepper), with a progress bar per section on a terminal and a summary table
// (or --json). --dry-run only shows what would be imported and what cannot be.
import { Command } from 'commander';
import {
  type ImportReport,
  importPrivacyidea,
  type PrivacyideaImportOptions,
} from '../../core/import/index.ts';
import { ParameterError } from '../../errors.ts';
import { printJson, printTable, readStdinLine, runAudited, withContext } from '../common.ts';
import { Progress } from '../progress.ts';

interface PrivacyideaFlags {
  db: string;
  encfile: string;
  encfilePasswordStdin?: boolean;
  pepperFile: string;
  mapPath: string[];
  withAudit?: boolean;
  auditPublicKey?: string;
  dryRun?: boolean;
  json?: boolean;
}

export function importCommand(): Command {
  return new Command('import')
    .description('import the installation of another MFA server')
    .addCommand(privacyideaCommand());
}

function privacyideaCommand(): Command {
  return new Command('privacyidea')
    .description(
      'import a privacyIDEA 3.x installation: tokens, users, policies, configuration (docs/migrating-from-privacyidea.md)',
    )
    .requiredOption(
      '--db <url-or-file>',
      "privacyIDEA's database: a SQLite file or its SQLAlchemy URL (pi.cfg SQLALCHEMY_DATABASE_URI)",
    )
    .requiredOption('--encfile <file>', "privacyIDEA's encryption key file (pi.cfg PI_ENCFILE)")
    .option('--encfile-password-stdin', 'the key file is encrypted: read its password from standard input')
    .requiredOption('--pepper-file <file>', 'a file holding pi.cfg PI_PEPPER (one line)')
    .option(
      '--map-path <old=new>',
      'a file path of the privacyIDEA host and where it is here (repeatable)',
      collect,
      [],
    )
    .option('--with-audit', 'import the audit trail too, each row marked as imported')
    .option(
      '--audit-public-key <file>',
      "with --with-audit: check each row's privacyIDEA signature with this key (pi.cfg PI_AUDIT_KEY_PUBLIC)",
    )
    .option('--dry-run', 'write nothing: show what would be imported and what cannot be')
    .option('--json', 'print the summary as JSON')
    .action(async (flags: PrivacyideaFlags, cmd: Command) => {
      const bars = new SectionBars();
      const options = { ...(await importOptions(flags)), onProgress: bars.update };
      let report: ImportReport;
      try {
        report = flags.dryRun
          ? await withContext(cmd, (ctx) => importPrivacyidea(ctx, options))
          : await runAudited(cmd, { command: 'import privacyidea', detail: flags.db }, (ctx) =>
              importPrivacyidea(ctx, options),
            );
      } finally {
        bars.end();
      }
      if (flags.json) printJson(report);
      else printReport(report);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

async function importOptions(flags: PrivacyideaFlags): Promise<PrivacyideaImportOptions> {
  const mapPaths = flags.mapPath.map((m) => {
    const at = m.indexOf('=');
    if (at <= 0) throw new ParameterError(`--map-path takes OLD=NEW, not '${m}'`);
    return [m.slice(0, at), m.slice(at + 1)] as const;
  });
  return {
    db: flags.db,
    baseDir: process.cwd(),
    encfile: flags.encfile,
    encfilePassword: flags.encfilePasswordStdin ? await readStdinLine() : undefined,
    pepperFile: flags.pepperFile,
    mapPaths,
    withAudit: flags.withAudit === true,
    ...(flags.auditPublicKey === undefined ? {} : { auditPublicKey: flags.auditPublicKey }),
    dryRun: flags.dryRun === true,
  };
}

/**
 * A progress bar per section (on a terminal), each ended with its own count when the next section
 * begins or the import ends, so that the summary starts on a line of its own.
 */
class SectionBars {
  #bar: Progress | undefined;
  #section = '';
  #written = 0;

  readonly update = (section: string, written: number, total: number): void => {
    if (section !== this.#section) {
      this.end();
      this.#section = section;
      this.#bar = new Progress(section, total);
    }
    this.#written = written;
    this.#bar?.update(written);
  };

  end(): void {
    this.#bar?.done(this.#written);
    this.#bar = undefined;
  }
}

function printReport(report: ImportReport): void {
  const verb = report.dryRun ? 'would import' : 'imported';
  printTable(
    ['section', verb, 'not imported', 'already in authsrv'],
    report.sections.map((s) => [s.name, s.objects.length, s.skipped.length, s.conflicts.length]),
  );
  for (const s of report.sections) {
    for (const k of s.skipped) console.log(`not imported: ${s.name} ${k.object}: ${k.reason}`);
    for (const n of s.notes) console.log(`note: ${s.name}: ${n}`);
    if (report.dryRun) for (const c of s.conflicts) console.log(`already in authsrv: ${s.name} ${c}`);
  }
  if (report.dryRun) console.log('Dry run: nothing was written.');
}
