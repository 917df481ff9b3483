// `authsrv client list`: the client applications /validate has seen (GET /client/, reference 8.6),
// grouped by client type, with the same service as the API.
import { Command } from 'commander';
import { listClients } from '../../core/client/index.ts';
import { printJson, printTable, withContext } from '../common.ts';

export function clientCommand(): Command {
  return new Command('client')
    .description('the client applications (VPN, RADIUS, PAM …) that asked /validate')
    .addCommand(listCommand());
}

function listCommand(): Command {
  return new Command('list')
    .description('list the clients by type, most recently seen first')
    .option('--json', 'print JSON (the answer of GET /client/)')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const groups = await withContext(cmd, (ctx) => listClients(ctx));
      if (o.json) return printJson(groups);
      printTable(
        ['Type', 'IP', 'Hostname', 'Node', 'Last seen', 'User agent'],
        Object.values(groups)
          .flat()
          .map((c) => [c.clienttype, c.ip, c.hostname ?? '', c.node, c.lastseen, c.user_agent]),
      );
    });
}
