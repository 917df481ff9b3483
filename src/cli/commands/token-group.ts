// `authsrv token group`: puts tokens into token groups and takes them out, as /token/group
// (reference 3.5). The groups themselves are managed with `authsrv tokengroup`.
import { Command } from 'commander';
import { addTokenToGroup, removeTokenFromGroup } from '../../core/token/index.ts';
import { audited, withContext } from '../common.ts';

export function tokenGroupCommand(): Command {
  const group = new Command('group').description('the token groups a token is in');
  group
    .command('add <serial> <group>')
    .description('add a token to a token group (nothing changes if it is already in it)')
    .action(async (serial: string, name: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(ctx, 'token group add', `${serial} ${name}`, () => addTokenToGroup(ctx, serial, name), {
          serial,
        }),
      );
      console.log(`Token '${serial}' is in token group '${name}'.`);
    });
  group
    .command('remove <serial> <group>')
    .description('take a token out of a token group')
    .action(async (serial: string, name: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(
          ctx,
          'token group remove',
          `${serial} ${name}`,
          () => removeTokenFromGroup(ctx, serial, name),
          { serial },
        ),
      );
      console.log(`Token '${serial}' is not in token group '${name}'.`);
    });
  return group;
}
