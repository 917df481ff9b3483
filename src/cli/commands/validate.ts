// `authsrv validate`: authenticating as /validate/check does, the password read from stdin.
import { Command } from 'commander';
import { answerOf, type CheckResult, check, checkAuditColumns } from '../../core/validate/index.ts';
import { ParameterError } from '../../errors.ts';
import { printJson, readStdinLine, runAudited } from '../common.ts';

export function validateCommand(): Command {
  return new Command('validate')
    .description('authenticate as /validate/check does')
    .addCommand(checkCommand());
}

interface CheckOptions {
  user?: string;
  realm?: string;
  serial?: string;
  passStdin?: boolean;
  transactionId?: string;
  client?: string;
  json?: boolean;
}

function checkCommand(): Command {
  return new Command('check')
    .description(
      'check the password (PIN and OTP) of a user or a token, read from standard input; exit 0 on ACCEPT, 1 otherwise',
    )
    .option('--user <user>', 'the user (USER or USER@REALM)')
    .option('--realm <realm>', "the user's realm (default: the part after @, or the default realm)")
    .option('--serial <serial>', 'the token')
    .option('--pass-stdin', 'read the password from standard input (required: never on the command line)')
    .option('--transaction-id <id>', 'answer the challenge of this transaction')
    .option('--client <ip>', 'the client address the policies see (default: none)')
    .option('--json', 'print JSON')
    .action(async (o: CheckOptions, cmd: Command) => {
      if (!o.user && !o.serial) throw new ParameterError('Give --user or --serial');
      if (!o.passStdin)
        throw new ParameterError('The password is read from standard input: pipe it in with --pass-stdin');
      const pass = await readStdinLine();
      const input = { user: o.user, realm: o.realm, serial: o.serial, pass, transactionId: o.transactionId };
      // One audit row with the columns the API writes for /validate/check.
      const action = {
        command: 'validate check',
        detail: '',
        fields: { user: o.user ?? '', realm: o.realm ?? '', serial: o.serial ?? '', client: o.client ?? '' },
      };
      const res = await runAudited(
        cmd,
        action,
        (ctx) => check(ctx, { ...input, client: o.client ?? '' }),
        checkAuditColumns,
      );
      if (o.json) printJson({ authentication: answerOf(res), value: res.value, detail: res.detail ?? null });
      else printVerdict(res);
      if (!res.value) process.exitCode = 1;
    });
}

/** The verdict with the check's message, and the transaction to answer a challenge with. */
function printVerdict(res: CheckResult): void {
  const outcome = answerOf(res);
  const message = typeof res.detail?.message === 'string' ? res.detail.message : '';
  console.log(message ? `${outcome}: ${message}` : outcome);
  const tid = res.detail?.transaction_id;
  if (outcome === 'CHALLENGE' && typeof tid === 'string') console.log(`transaction_id: ${tid}`);
}
