// `authsrv machine`: the machines of the machine resolvers, as GET /machine/ lists them, the
// tokens attached to them (`authsrv machine token`, as /machine/token and /machine/tokenoption)
// and the applications they are attached for (GET /application/).
import { Command } from 'commander';
import { applicationCatalogue, listMachines } from '../../core/machine/index.ts';
import { printJson, printTable, withContext } from '../common.ts';
import { machineTokenCommand } from './machine-token.ts';

export function machineCommand(): Command {
  return new Command('machine')
    .description('machines of the machine resolvers, and the tokens attached to them')
    .addCommand(listCommand())
    .addCommand(applicationsCommand())
    .addCommand(machineTokenCommand());
}

interface ListOptions {
  hostname?: string;
  ip?: string;
  id?: string;
  resolver?: string;
  any?: string;
  json?: boolean;
}

function listCommand(): Command {
  return new Command('list')
    .description('list machines (hostname, id, resolver and any match substrings; ip is exact)')
    .option('--hostname <text>', 'a host name contains TEXT')
    .option('--ip <address>', 'the address is ADDRESS')
    .option('--id <text>', 'the machine id contains TEXT')
    .option('--resolver <text>', "the machine resolver's name contains TEXT")
    .option('--any <text>', 'the id, a host name or the address contains TEXT')
    .option('--json', 'print JSON')
    .action(async (o: ListOptions, cmd: Command) => {
      const { json, ...query } = o;
      const machines = await withContext(cmd, (ctx) => listMachines(ctx, query));
      if (json) return printJson(machines);
      printTable(
        ['Resolver', 'Id', 'Hostname', 'IP'],
        machines.map((m) => [m.resolver_name, m.id, m.hostname.join(' '), m.ip]),
      );
    });
}

/** GET /application/: the applications tokens are attached for, and their options by token type. */
function applicationsCommand(): Command {
  return new Command('applications')
    .description('the applications tokens are attached for, with their options by token type')
    .option('--json', 'print JSON (the shape of GET /application/)')
    .action((o: { json?: boolean }) => {
      const catalogue = applicationCatalogue();
      if (o.json) return printJson(catalogue);
      const rows: string[][] = [];
      for (const [app, { options }] of Object.entries(catalogue))
        for (const [type, byName] of Object.entries(options))
          for (const [name, opt] of Object.entries(byName))
            rows.push([app, type, name, opt.type, opt.value?.join(' ') ?? '', opt.description]);
      printTable(['Application', 'Token type', 'Option', 'Type', 'Values', 'Description'], rows);
    });
}
