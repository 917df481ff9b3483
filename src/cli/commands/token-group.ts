// `authsrv token group`: puts tokens into token groups and takes them out, as /token/group
// (reference 3.5). The groups themselves are managed with `authsrv tokengroup`.
import { Command } from 'commander';
import { addTokenToGroup, removeTokenFromGroup } from '../../core/token/index.ts';
import { runAudited } from '../common.ts';

/** The `group` subcommand, attached under `authsrv token`. */
export function tokenGroupCommand(): Command {
  return new Command('group')
    .description('the token groups a token is in')
    .addCommand(addCommand())
    .addCommand(removeCommand());
}

const groupAction = (verb: string, serial: string, group: string) => ({
  command: `token group ${verb}`,
  detail: `${serial} ${group}`,
  fields: { serial },
});

function addCommand(): Command {
  return new Command('add')
    .argument('<serial>')
    .argument('<group>')
    .description('add a token to a token group (nothing changes if it is already in it)')
    .action(async (serial: string, group: string, _o, cmd: Command) => {
      await runAudited(cmd, groupAction('add', serial, group), (ctx) => addTokenToGroup(ctx, serial, group));
      console.log(`Token '${serial}' is in token group '${group}'.`);
    });
}

function removeCommand(): Command {
  return new Command('remove')
    .argument('<serial>')
    .argument('<group>')
    .description('take a token out of a token group')
    .action(async (serial: string, group: string, _o, cmd: Command) => {
      await runAudited(cmd, groupAction('remove', serial, group), (ctx) =>
        removeTokenFromGroup(ctx, serial, group),
      );
      console.log(`Token '${serial}' is not in token group '${group}'.`);
    });
}
