import { Command } from 'commander';
import { deleteConfig, getConfigValue, listConfig, setConfig, setDefaults } from '../../core/system/index.ts';
import { ParameterError } from '../../errors.ts';
import { audited, assignments as parseAssignments, printJson, printTable, withContext } from '../common.ts';

export function configCommand(): Command {
  const config = new Command('config').description('system configuration (as /system/ of the API)');
  config
    .command('list')
    .description('show all configuration entries')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listConfig(ctx));
      if (o.json) printJson(all);
      else printTable(['Key', 'Value'], Object.entries(all));
    });
  config
    .command('get <key>')
    .description('print one value')
    .action(async (key: string, _o, cmd: Command) => {
      const value = await withContext(cmd, (ctx) => getConfigValue(ctx, key));
      if (value === null) throw new ParameterError(`The configuration key '${key}' is not set`);
      console.log(value);
    });
  config
    .command('set <key> <value>')
    .description('set one value')
    .option('--type <type>', 'int, string, text, password (stored encrypted) or public')
    .option('--description <text>', 'what the entry is for')
    .action(async (key: string, value: string, o: { type?: string; description?: string }, cmd: Command) => {
      const r = await withContext(cmd, (ctx) =>
        audited(ctx, 'config set', key, () =>
          setConfig(ctx, [{ key, value, type: o.type, description: o.description }]),
        ),
      );
      console.log(`${key}: ${r[key]}`);
    });
  config
    .command('delete <key>')
    .description('delete one entry')
    .action(async (key: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) => audited(ctx, 'config delete', key, () => deleteConfig(ctx, key)));
      console.log(`${key} deleted.`);
    });
  config
    .command('set-default <assignments...>')
    .description('token defaults, e.g. DefaultOtpLen=8 DefaultMaxFailCount=5')
    .action(async (assignments: string[], _o, cmd: Command) => {
      const params = parseAssignments(assignments, 'Name=value');
      const r = await withContext(cmd, (ctx) =>
        audited(ctx, 'config set-default', assignments.join(' '), () => setDefaults(ctx, params)),
      );
      for (const [k, v] of Object.entries(r)) console.log(`${k}: ${v}`);
    });
  return config;
}
