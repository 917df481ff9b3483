// `authsrv throttle`: the brute-force throttling's counts (docs/security.md): which accounts and
// client addresses wait or are blocked, and forgetting them.
import { Command } from 'commander';
import { clearThrottles, listThrottles } from '../../core/throttle/index.ts';
import { printJson, printTable, runAudited, withContext } from '../common.ts';

export function throttleCommand(): Command {
  return new Command('throttle')
    .description('brute-force throttling: list and clear the failure counts of accounts and addresses')
    .addCommand(listCommand())
    .addCommand(clearCommand());
}

function listCommand(): Command {
  return new Command('list')
    .description('list the accounts (from an address) and addresses with failures, blocked ones first')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const entries = await withContext(cmd, (ctx) => listThrottles(ctx));
      if (o.json) return printJson(entries);
      printTable(
        ['Kind', 'Account', 'Address', 'Failures', 'Last failure', 'Refused until'],
        entries.map((e) => [e.kind, e.account, e.address, e.failures, e.lastFailure, e.blockedUntil || '-']),
      );
    });
}

function clearCommand(): Command {
  return new Command('clear')
    .description(
      'forget failure counts: of an account (login or login@realm) from every address or, with --address, from one; of an address; or all',
    )
    .option('--account <account>', 'the account: an administrator name or login@realm')
    .option('--address <address>', 'the client address')
    .option('--all', 'every count')
    .option('--json', 'print JSON')
    .action(
      async (o: { account?: string; address?: string; all?: boolean; json?: boolean }, cmd: Command) => {
        const request = { account: o.account, address: o.address, all: o.all };
        const detail = o.all ? 'all' : [o.account, o.address].filter(Boolean).join(' from ');
        const res = await runAudited(
          cmd,
          { command: 'throttle clear', detail, fields: { client: '' } },
          (ctx) => clearThrottles(ctx, request),
        );
        if (o.json) return printJson(res);
        console.log(`Cleared ${res.cleared} failure count${res.cleared === 1 ? '' : 's'}.`);
      },
    );
}
