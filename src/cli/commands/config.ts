// `authsrv config`: the system configuration, as /system/ of the API.
import { Command } from 'commander';
import { documentation } from '../../core/documentation/index.ts';
import { deleteConfig, getConfigValue, listConfig, setConfig, setDefaults } from '../../core/system/index.ts';
import { ParameterError } from '../../errors.ts';
import { assignments, printJson, printTable, runAudited, withContext } from '../common.ts';

export function configCommand(): Command {
  return new Command('config')
    .description('system configuration (as /system/ of the API)')
    .addCommand(listCommand())
    .addCommand(getCommand())
    .addCommand(setCommand())
    .addCommand(deleteCommand())
    .addCommand(setDefaultCommand())
    .addCommand(documentCommand());
}

function listCommand(): Command {
  return new Command('list')
    .description('show all configuration entries')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listConfig(ctx));
      if (o.json) return printJson(all);
      printTable(['Key', 'Value'], Object.entries(all));
    });
}

function getCommand(): Command {
  return new Command('get')
    .argument('<key>')
    .description('print one value')
    .action(async (key: string, _o, cmd: Command) => {
      const value = await withContext(cmd, (ctx) => getConfigValue(ctx, key));
      if (value === null) throw new ParameterError(`The configuration key '${key}' is not set`);
      console.log(value);
    });
}

function setCommand(): Command {
  return new Command('set')
    .argument('<key>')
    .argument('<value>')
    .description('set one value')
    .option('--type <type>', 'int, string, text, password (stored encrypted) or public')
    .option('--description <text>', 'what the entry is for')
    .action(async (key: string, value: string, o: { type?: string; description?: string }, cmd: Command) => {
      const entry = { key, value, type: o.type, description: o.description };
      const r = await runAudited(cmd, { command: 'config set', detail: key }, (ctx) =>
        setConfig(ctx, [entry]),
      );
      console.log(`${key}: ${r[key]}`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<key>')
    .description('delete one entry')
    .action(async (key: string, _o, cmd: Command) => {
      await runAudited(cmd, { command: 'config delete', detail: key }, (ctx) => deleteConfig(ctx, key));
      console.log(`${key} deleted.`);
    });
}

function setDefaultCommand(): Command {
  return new Command('set-default')
    .argument('<assignments...>')
    .description('token defaults, e.g. DefaultOtpLen=8 DefaultMaxFailCount=5')
    .action(async (words: string[], _o, cmd: Command) => {
      const params = assignments(words, 'Name=value');
      const action = { command: 'config set-default', detail: words.join(' ') };
      const r = await runAudited(cmd, action, (ctx) => setDefaults(ctx, params));
      for (const [k, v] of Object.entries(r)) console.log(`${k}: ${v}`);
    });
}

function documentCommand(): Command {
  return new Command('document')
    .description(
      'print the whole configuration as a reStructuredText document (GET /system/documentation), secrets censored',
    )
    .action(async (_o, cmd: Command) => {
      process.stdout.write(await withContext(cmd, (ctx) => documentation(ctx)));
    });
}
