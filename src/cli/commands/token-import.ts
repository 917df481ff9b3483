// `authsrv token import <file>`: the service of POST /token/load, run as the local operator, with
// a progress bar on a terminal and a summary (and the reason for every token not imported).

import { basename } from 'node:path';
import { Command, Option } from 'commander';
import type { Context } from '../../core/context.ts';
import { type ImportRequest, type ImportResult, importTokens } from '../../core/token/index.ts';
import { textList } from '../../text-list.ts';
import { notBoth, printJson, readStdinLine, readTextFile, runAudited } from '../common.ts';
import { Progress } from '../progress.ts';

interface ImportOptions {
  type: string;
  realm?: string;
  psk?: string;
  pskStdin?: boolean;
  password?: string;
  passwordStdin?: boolean;
  validateMac: string;
  aladdinHashlib?: string;
  json?: boolean;
}

/** The `import` subcommand, attached under `authsrv token`. */
export function tokenImportCommand(): Command {
  return new Command('import')
    .description('import hardware tokens from a token file (OATH CSV, PSKC, Yubikey CSV, Aladdin XML)')
    .argument('<file>', 'the token file')
    .addOption(
      new Option('--type <type>', 'the file type')
        .choices(['oathcsv', 'OATH CSV', 'pskc', 'yubikeycsv', 'Yubikey CSV', 'aladdin-xml'])
        .makeOptionMandatory(),
    )
    .option('--realm <list>', 'comma-separated realms to put the tokens in')
    .option('--psk <hex>', 'PSKC: the pre-shared AES key, 32 hex characters')
    .option('--psk-stdin', 'PSKC: read the pre-shared key from the first line of standard input')
    .option('--password <text>', 'PSKC: the password of a password-derived key')
    .option('--password-stdin', 'PSKC: read the password from the first line of standard input')
    .addOption(
      new Option('--validate-mac <mode>', 'PSKC: how wrong MACs are handled')
        .choices(['no_check', 'check_fail_soft', 'check_fail_hard'])
        .default('check_fail_hard'),
    )
    .option('--aladdin-hashlib <name>', 'aladdin-xml: sha1, sha256 or auto (by key length)')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, o: ImportOptions, cmd: Command) => {
      const request = await importRequest(file, o);
      const action = { command: 'token import', detail: `${o.type}, ${basename(file)}` };
      const result = await runAudited(cmd, action, (ctx) => importWithProgress(ctx, request));
      if (o.json) printJson(result);
      else printSummary(file, result);
    });
}

/** The request of the file and the options; a key or password named -stdin is read from stdin. */
async function importRequest(file: string, o: ImportOptions): Promise<Omit<ImportRequest, 'onProgress'>> {
  notBoth(o.pskStdin, o.passwordStdin, '--psk-stdin', '--password-stdin');
  const content = readTextFile(file);
  const psk = o.pskStdin ? await readStdinLine() : o.psk;
  const password = o.passwordStdin ? await readStdinLine() : o.password;
  return {
    type: o.type,
    content,
    tokenrealms: realmsOf(o.realm),
    psk,
    password,
    pskcValidateMAC: o.validateMac,
    aladdinHashlib: o.aladdinHashlib,
  };
}

function realmsOf(list: string | undefined): string[] {
  return textList(list);
}

/** Imports the tokens, drawing a progress bar once the service knows how many there are. */
async function importWithProgress(
  ctx: Context,
  request: Omit<ImportRequest, 'onProgress'>,
): Promise<ImportResult> {
  let progress: Progress | undefined;
  const r = await importTokens(ctx, {
    ...request,
    onProgress: (done, total) => {
      progress ??= new Progress('importing', total);
      progress.update(done);
    },
  });
  progress?.done(r.n_imported + r.n_not_imported);
  return r;
}

function printSummary(file: string, r: ImportResult): void {
  console.log(`${basename(file)}: ${r.n_imported} imported, ${r.n_not_imported} not imported`);
  for (const n of r.notImported) console.log(`  not imported: ${n.serial ?? '-'} (${n.source}): ${n.reason}`);
}
