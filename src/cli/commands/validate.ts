import { Command } from 'commander';
import { newAuditEntry, writeAudit } from '../../core/audit/index.ts';
import { type CheckResult, check } from '../../core/validate/index.ts';
import { ParameterError } from '../../errors.ts';
import { printJson, readStdinLine, withContext } from '../common.ts';

type Outcome = 'ACCEPT' | 'REJECT' | 'CHALLENGE';

function outcomeOf(res: CheckResult): Outcome {
  const challenge = Array.isArray(res.detail?.multi_challenge) && res.detail.multi_challenge.length > 0;
  return res.value ? 'ACCEPT' : challenge ? 'CHALLENGE' : 'REJECT';
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

export function validateCommand(): Command {
  const validate = new Command('validate').description('authenticate as /validate/check does');
  validate
    .command('check')
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
      const res = await withContext(cmd, async (ctx) => {
        // One audit row, as the API writes for /validate/check: success is the verdict.
        const entry = newAuditEntry('CLI validate check', ctx.clock(), o.client ?? '');
        entry.administrator = ctx.caller.username;
        entry.user_agent = 'authsrv-cli';
        entry.user = o.user ?? '';
        entry.realm = o.realm ?? '';
        entry.serial = o.serial ?? '';
        try {
          const r = await check(ctx, {
            user: o.user,
            realm: o.realm,
            serial: o.serial,
            pass,
            transactionId: o.transactionId,
            client: o.client ?? '',
          });
          entry.user = r.audit.user;
          entry.realm = r.audit.realm;
          entry.resolver = r.audit.resolver;
          entry.serial = r.audit.serial;
          entry.token_type = r.audit.tokenType;
          entry.info = r.audit.info;
          entry.authentication = outcomeOf(r);
          entry.success = r.value;
          return r;
        } catch (e) {
          entry.info = (e as Error).message;
          throw e;
        } finally {
          await writeAudit(ctx, entry);
        }
      });
      const outcome = outcomeOf(res);
      if (o.json) printJson({ authentication: outcome, value: res.value, detail: res.detail ?? null });
      else {
        const message = typeof res.detail?.message === 'string' ? res.detail.message : '';
        console.log(message ? `${outcome}: ${message}` : outcome);
        const tid = res.detail?.transaction_id;
        if (outcome === 'CHALLENGE' && typeof tid === 'string') console.log(`transaction_id: ${tid}`);
      }
      if (!res.value) process.exitCode = 1;
    });
  return validate;
}
