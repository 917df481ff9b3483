// `authsrv serviceid`: the service IDs of /serviceid/ (reference 6.5), with the same services and
// error messages; set and delete write an audit row.
import { Command } from 'commander';
import { deleteServiceId, listServiceIds, setServiceId } from '../../core/serviceid/index.ts';
import { printJson, printTable, runAudited, withContext } from '../common.ts';

export function serviceidCommand(): Command {
  return new Command('serviceid')
    .description('service IDs: the services applspec tokens and SSH keys are used for')
    .addCommand(listCommand())
    .addCommand(setCommand())
    .addCommand(deleteCommand());
}

function listCommand(): Command {
  return new Command('list')
    .argument('[name]')
    .description('list service IDs (NAME: only that one)')
    .option('--json', 'print JSON')
    .action(async (name: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listServiceIds(ctx, name || undefined));
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Id', 'Description'],
        Object.entries(all).map(([n, s]) => [n, s.id, s.description]),
      );
    });
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .description('create a service ID, or change its description')
    .option('--description <text>', 'description (default: kept, or empty for a new service ID)')
    .option('--json', 'print the saved service ID as JSON')
    .action(async (name: string, o: { description?: string; json?: boolean }, cmd: Command) => {
      const action = { command: 'serviceid set', detail: name };
      const saved = await runAudited(cmd, action, async (ctx) => {
        await setServiceId(ctx, name, o.description);
        return listServiceIds(ctx, name.trim());
      });
      if (o.json) return printJson(saved);
      console.log(`Service ID '${name.trim()}' saved.`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete a service ID (refused while tokens use it)')
    .option('--json', 'print {"deleted": NAME}')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      await runAudited(cmd, { command: 'serviceid delete', detail: name }, (ctx) =>
        deleteServiceId(ctx, name),
      );
      if (o.json) return printJson({ deleted: name });
      console.log(`Service ID '${name}' deleted.`);
    });
}
