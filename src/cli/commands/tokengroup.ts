// `authsrv tokengroup`: the groups of /tokengroup/ (reference 6.5). The tokens in a group are
// managed with `authsrv token group`.
import { Command } from 'commander';
import { deleteTokenGroup, listTokenGroups, setTokenGroup } from '../../core/token/index.ts';
import { printJson, printTable, runAudited, withContext } from '../common.ts';

export function tokengroupCommand(): Command {
  return new Command('tokengroup')
    .description('token groups: named groups of tokens')
    .addCommand(listCommand())
    .addCommand(setCommand())
    .addCommand(deleteCommand());
}

function listCommand(): Command {
  return new Command('list')
    .argument('[name]')
    .description('list token groups (NAME: only that one)')
    .option('--json', 'print JSON')
    .action(async (name: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listTokenGroups(ctx, name || undefined));
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Id', 'Description'],
        Object.entries(all).map(([n, g]) => [n, g.id, g.description]),
      );
    });
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .description('create a token group, or change its description')
    .option('--description <text>', 'description (default: kept, or empty for a new group)')
    .action(async (name: string, o: { description?: string }, cmd: Command) => {
      const action = { command: 'tokengroup set', detail: name };
      const id = await runAudited(cmd, action, (ctx) => setTokenGroup(ctx, name, o.description));
      console.log(`Token group '${name}' saved (id ${id}).`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete a token group (refused while tokens are in it)')
    .action(async (name: string, _o, cmd: Command) => {
      await runAudited(cmd, { command: 'tokengroup delete', detail: name }, (ctx) =>
        deleteTokenGroup(ctx, name),
      );
      console.log(`Token group '${name}' deleted.`);
    });
}
