// `authsrv machineresolver`: where machines are listed (hosts file, LDAP), with the subcommands
// every settings resource shares (src/cli/settings-commands.ts) and the services of
// /machineresolver/.
import { Command } from 'commander';
import {
  deleteMachineResolver,
  getMachineResolver,
  listMachineResolvers,
  machineResolverSecretNames,
  saveMachineResolver,
  testMachineResolver,
} from '../../core/machineresolver/index.ts';
import { settingsSubcommands } from '../settings-commands.ts';

export function machineresolverCommand(): Command {
  const command = new Command('machineresolver').description('machine resolvers (hosts file, LDAP)');
  const subcommands = settingsSubcommands<object>({
    command: 'machineresolver',
    label: 'Machine resolver',
    types: 'hosts or ldap',
    list: (ctx, o) => listMachineResolvers(ctx, { type: o.type }),
    get: getMachineResolver,
    save: saveMachineResolver,
    async test(ctx, params) {
      const t = await testMachineResolver(ctx, params);
      return { ...t, succeeded: t.value === true };
    },
    async remove(ctx, name) {
      await deleteMachineResolver(ctx, name);
    },
    secretSettingNames: machineResolverSecretNames,
    deleteHelp: 'a machine resolver',
  });
  for (const sub of subcommands) command.addCommand(sub);
  return command;
}
