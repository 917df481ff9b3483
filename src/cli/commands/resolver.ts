// `authsrv resolver`: the user stores (passwd file, LDAP, SQL, SCIM) and their settings, with the
// subcommands every settings resource shares (src/cli/settings-commands.ts).
import { Command } from 'commander';
import {
  deleteResolver,
  getResolver,
  listResolvers,
  saveResolver,
  secretSettingNames,
  testResolver,
} from '../../core/resolver/index.ts';
import { notFoundError, settingsSubcommands } from '../settings-commands.ts';

export function resolverCommand(): Command {
  const command = new Command('resolver').description('user stores (passwd file, LDAP, SQL, SCIM)');
  const subcommands = settingsSubcommands<{ editable?: boolean }>({
    command: 'resolver',
    label: 'Resolver',
    types: 'passwdresolver, ldapresolver, sqlresolver or scimresolver',
    listOptions: (cmd) => cmd.option('--editable', 'only resolvers whose users can be edited'),
    list: (ctx, o) => listResolvers(ctx, { type: o.type, editable: o.editable === true }),
    get: getResolver,
    save: saveResolver,
    test: testResolver,
    async remove(ctx, name) {
      if ((await deleteResolver(ctx, name)) === -1) throw notFoundError('Resolver', name);
    },
    secretSettingNames,
    deleteHelp: 'a resolver that is in no realm',
  });
  for (const sub of subcommands) command.addCommand(sub);
  return command;
}
