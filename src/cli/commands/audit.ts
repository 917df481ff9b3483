// `authsrv audit`: reading, exporting, verifying and rotating the audit log.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { Command } from 'commander';
import { parseDuration } from '../../config/index.ts';
import {
  type AuditPage,
  type AuditQuery,
  auditIntact,
  countAudit,
  rotateAuditNow,
  searchAudit,
  startAuditExport,
  type VerifyResult,
  verifyAudit,
} from '../../core/audit/index.ts';
import type { Context } from '../../core/context.ts';
import { ParameterError } from '../../errors.ts';
import { assignments, printJson, printTable, withContext } from '../common.ts';
import { Progress } from '../progress.ts';

export function auditCommand(): Command {
  return new Command('audit')
    .description('read, export, verify and rotate the audit log')
    .addCommand(listCommand())
    .addCommand(exportCommand())
    .addCommand(rotateCommand())
    .addCommand(verifyCommand());
}

/** Filters are given as column=value words, e.g. `user=alice action='POST /auth'`. */
const filtersOf = (words: string[]) => assignments(words, 'column=value');

const integer = (v: string) => {
  if (!/^\d+$/.test(v)) throw new ParameterError(`'${v}' is not a whole number`);
  return Number(v);
};

interface ListOptions {
  timelimit?: string;
  page: number;
  pageSize: number;
  sortorder: string;
  json?: boolean;
}

function listCommand(): Command {
  return new Command('list')
    .argument('[filters...]')
    .description('show audit entries, newest first (filters: column=value, * wildcard, ! negates)')
    .option('--timelimit <span>', 'only entries newer than e.g. 1h, 7d')
    .option('--page <n>', 'page number', integer, 1)
    .option('--page-size <n>', 'entries per page', integer, 15)
    .option('--sortorder <order>', 'desc (newest first, the default) or asc', 'desc')
    .option('--json', 'print JSON')
    .action(async (words: string[], o: ListOptions, cmd: Command) => {
      if (o.sortorder !== 'asc' && o.sortorder !== 'desc')
        throw new ParameterError("--sortorder must be 'asc' or 'desc'");
      const query: AuditQuery = {
        filters: filtersOf(words),
        timelimit: o.timelimit,
        page: o.page,
        pageSize: o.pageSize,
        sortorder: o.sortorder,
      };
      const page = await withContext(cmd, (ctx) => searchAudit(ctx, query));
      if (o.json) return printJson(page);
      printPage(page);
    });
}

function printPage(page: AuditPage): void {
  printTable(
    ['#', 'date', 'action', 'ok', 'user', 'realm', 'admin', 'serial', 'client', 'info', 'sig', 'imported'],
    page.auditdata.map((e) => [
      e.number,
      e.date,
      e.action,
      e.success,
      e.user,
      e.realm,
      e.administrator,
      e.serial,
      e.client,
      String(e.info).slice(0, 40),
      e.sig_check,
      importMark(e),
    ]),
  );
  console.log(`page ${page.current}, ${page.count} entries in all`);
}

/** An imported row's origin and its check there: `privacyidea #17 failed`; empty for authsrv's own. */
function importMark(e: AuditPage['auditdata'][number]): string {
  return e.imported_from ? `${e.imported_from} #${e.imported_number} ${e.imported_check}` : '';
}

function exportCommand(): Command {
  return new Command('export')
    .argument('[filters...]')
    .description('write entries as privacyIDEA CSV, oldest first')
    .option('--csv <file>', 'output file (default: standard output)')
    .option('--timelimit <span>', 'only entries newer than e.g. 1h, 7d')
    .action(async (words: string[], o: { csv?: string; timelimit?: string }, cmd: Command) => {
      const query: AuditQuery = { filters: filtersOf(words), timelimit: o.timelimit };
      await withContext(cmd, (ctx) => writeCsv(ctx, query, o.csv));
    });
}

/** The CSV lines to the file (with a progress bar on a terminal) or to standard output. */
async function writeCsv(ctx: Context, query: AuditQuery, file: string | undefined): Promise<void> {
  const exported = await startAuditExport(ctx, query);
  const total = await exported.count();
  const out = file ? createWriteStream(file, { mode: 0o600 }) : process.stdout;
  const progress = file ? new Progress('exporting', total) : undefined;
  let n = 0;
  for await (const line of exported.lines) {
    if (!out.write(line)) await once(out, 'drain');
    if (++n % 1000 === 0) progress?.update(n);
  }
  progress?.done(n);
  if (file) {
    (out as NodeJS.WritableStream).end();
    await once(out, 'finish');
    console.error(`${n} entries written to ${file}`);
  }
}

function rotateCommand(): Command {
  return new Command('rotate')
    .description('delete old entries (defaults: audit.max_age and audit.max_rows of the configuration)')
    .option('--max-age <span>', 'delete entries older than e.g. 180d')
    .option('--max-rows <n>', 'keep at most this many newest entries', integer)
    .action(async (o: { maxAge?: string; maxRows?: number }, cmd: Command) => {
      const given = {
        maxAgeSeconds: o.maxAge !== undefined ? parseDuration(o.maxAge) : undefined,
        maxRows: o.maxRows,
      };
      const r = await withContext(cmd, (ctx) => rotateAuditNow(ctx, given));
      console.log(`Deleted ${r.deletedByAge} entries by age and ${r.deletedByCount} by count.`);
    });
}

function verifyCommand(): Command {
  return new Command('verify')
    .description('check the signature of every entry and that no entry is missing (exit 2 if not)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const r = await withContext(cmd, async (ctx) => {
        const progress = new Progress('verifying', await countAudit(ctx, { filters: {} }));
        const result = await verifyAudit(ctx, (n) => progress.update(n));
        progress.done(result.checked);
        return result;
      });
      if (o.json) printJson(r);
      else printVerification(r);
      if (!auditIntact(r)) process.exitCode = 2;
    });
}

function printVerification(r: VerifyResult): void {
  console.log(
    `${r.checked} entries checked, ${r.badSignatures.length} with a bad signature, ${r.gapsAfter.length} gaps.`,
  );
  if (r.badSignatures.length) console.log(`Bad signatures: ${r.badSignatures.slice(0, 50).join(', ')}`);
  if (r.gapsAfter.length) console.log(`Entries missing after: ${r.gapsAfter.slice(0, 50).join(', ')}`);
}
