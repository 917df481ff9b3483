// `authsrv hsm`: the security module that encrypts secrets at rest.
import { Command } from 'commander';
import { hsmProtect, hsmState } from '../../core/system/index.ts';
import { printJson, readNewPassword, runAudited, withContext } from '../common.ts';

export function hsmCommand(): Command {
  return new Command('hsm')
    .description('the security module that encrypts secrets at rest')
    .addCommand(statusCommand())
    .addCommand(protectCommand());
}

function statusCommand(): Command {
  return new Command('status')
    .description('show whether the encryption key is password protected and usable')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const status = await withContext(cmd, async (ctx) => hsmState(ctx));
      if (o.json) return printJson(status);
      console.log(`protected: ${status.protected ? 'yes' : 'no'}`);
      console.log(`ready: ${status.ready ? 'yes' : 'no'}`);
    });
}

function protectCommand(): Command {
  return new Command('protect')
    .description('protect the encryption key file with a password (or change it); servers then start locked')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (o: { passwordStdin?: boolean }, cmd: Command) => {
      const password = await readNewPassword(o.passwordStdin === true);
      await runAudited(cmd, { command: 'hsm protect', detail: '' }, async (ctx) => hsmProtect(ctx, password));
      console.log('The encryption key is now password protected. Unlock a server with POST /system/hsm.');
    });
}
