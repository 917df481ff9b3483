// `authsrv token import <file>`: the service of POST /token/load, run as the local operator, with
// a progress bar on a terminal and a summary (and the reason for every token not imported).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, Option } from 'commander';
import { type ImportResult, importTokens } from '../../core/token/index.ts';
import { ParameterError } from '../../errors.ts';
import { audited, printJson, readStdinLine, withContext } from '../common.ts';
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

function readTokenFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    throw new ParameterError(`Cannot read ${file}: ${(e as Error).message}`);
  }
}

function printSummary(file: string, r: ImportResult): void {
  console.log(`${basename(file)}: ${r.n_imported} imported, ${r.n_not_imported} not imported`);
  for (const n of r.notImported) console.log(`  not imported: ${n.serial ?? '-'} (${n.source}): ${n.reason}`);
}

/** The `import` subcommand, to be attached under `authsrv token`. */
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
      if (o.pskStdin && o.passwordStdin)
        throw new ParameterError('Give --psk-stdin or --password-stdin, not both');
      const content = readTokenFile(file);
      const psk = o.pskStdin ? await readStdinLine() : o.psk;
      const password = o.passwordStdin ? await readStdinLine() : o.password;
      const realms = (o.realm ?? '')
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean);
      const result = await withContext(cmd, (ctx) =>
        audited(ctx, 'token import', `${o.type}, ${basename(file)}`, async () => {
          let progress: Progress | undefined;
          const r = await importTokens(ctx, {
            type: o.type,
            content,
            tokenrealms: realms,
            psk,
            password,
            pskcValidateMAC: o.validateMac,
            aladdinHashlib: o.aladdinHashlib,
            onProgress: (done, total) => {
              progress ??= new Progress('importing', total);
              progress.update(done);
            },
          });
          progress?.done(r.n_imported + r.n_not_imported);
          return r;
        }),
      );
      if (o.json) printJson(result);
      else printSummary(file, result);
    });
}
