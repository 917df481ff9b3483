// `authsrv machine token attach|detach|list|option`: the tokens attached to machines for an
// application, with the services, rules and error messages of /machine/token and
// /machine/tokenoption; every change writes an audit row.
import { Command } from 'commander';
import {
  type AttachmentSelector,
  attachToken,
  detachToken,
  listMachineTokens,
  setAttachmentOptions,
} from '../../core/machine/index.ts';
import { assignments, printJson, printTable, runAudited, withContext } from '../common.ts';

export function machineTokenCommand(): Command {
  return new Command('token')
    .description('tokens attached to machines for an application (ssh)')
    .addCommand(attachCommand())
    .addCommand(detachCommand())
    .addCommand(listCommand())
    .addCommand(optionCommand());
}

interface MachineOptions {
  hostname?: string;
  machineid?: string;
  resolver?: string;
  json?: boolean;
}

const withMachine = (c: Command) =>
  c
    .option('--hostname <name>', 'the machine of this host name')
    .option('--machineid <id>', 'the machine of this id (with --resolver)')
    .option('--resolver <name>', 'the machine resolver of --machineid');

function attachCommand(): Command {
  return withMachine(new Command('attach'))
    .argument('<serial>')
    .argument('<application>', 'ssh')
    .argument('[options...]', 'options as name=value (ssh: user=…, service_id=…)')
    .description('attach a token to a machine (or, for ssh, to any machine) for an application')
    .option('--json', 'print {"id": MTID}')
    .action(async (serial: string, application: string, words: string[], o: MachineOptions, cmd: Command) => {
      const options = assignments(words, 'name=value');
      const { json, ...machine } = o;
      const id = await runAudited(
        cmd,
        { command: 'machine token attach', detail: application, fields: { serial } },
        (ctx) => attachToken(ctx, { serial, application, ...machine, options }),
      );
      if (json) return printJson({ id });
      console.log(`Token ${serial} attached for ${application} (machine token ${id}).`);
    });
}

function detachCommand(): Command {
  return withMachine(new Command('detach'))
    .argument('<serial>')
    .argument('<application>')
    .option('--mtid <id>', 'the machine token of this id')
    .description('detach a token: the machine token --mtid, or the one on the machine named')
    .option('--json', 'print {"detached": N}')
    .action(
      async (serial: string, application: string, o: MachineOptions & { mtid?: string }, cmd: Command) => {
        const { json, ...rest } = o;
        const detached = await runAudited(
          cmd,
          { command: 'machine token detach', detail: application, fields: { serial } },
          (ctx) => detachToken(ctx, { serial, application, ...rest }),
        );
        if (json) return printJson({ detached });
        console.log(`${detached} machine token(s) of ${serial} detached.`);
      },
    );
}

interface ListOptions extends MachineOptions {
  serial?: string;
  application?: string;
  option: string[];
  sortby?: string;
  sortdir?: string;
}

function listCommand(): Command {
  return withMachine(new Command('list'))
    .description('list machine tokens (serial and --option values may hold * wildcards)')
    .option('--serial <serial>', 'the serial, * matching any text')
    .option('--application <name>', 'of this application')
    .option(
      '--option <name=value>',
      'an option matches (case-insensitive, * wildcards); repeatable',
      collect,
      [],
    )
    .option(
      '--sortby <key>',
      'serial (default), id, type, application, machine_id, resolver or an option name',
    )
    .option('--sortdir <dir>', 'asc (default) or desc')
    .option('--json', 'print JSON')
    .action(async (o: ListOptions, cmd: Command) => {
      const { json, option, ...query } = o;
      const options = assignments(option, 'name=value');
      const records = await withContext(cmd, (ctx) => listMachineTokens(ctx, { ...query, options }));
      if (json) return printJson(records);
      printTable(
        ['Id', 'Serial', 'Type', 'Application', 'Machine', 'Resolver', 'Options'],
        records.map((r) => [
          r.id,
          r.serial,
          r.type,
          r.application,
          r.machine_id ?? '(any)',
          r.resolver ?? '',
          Object.entries(r.options)
            .map(([k, v]) => `${k}=${v}`)
            .join(' '),
        ]),
      );
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function optionCommand(): Command {
  return withMachine(new Command('option'))
    .argument('<options...>', 'name=value to set, name= to delete')
    .option('--mtid <id>', 'the machine token of this id')
    .option('--serial <serial>', 'the token (with --application and the machine)')
    .option('--application <name>', 'the application')
    .description('set or delete options of a machine token')
    .option('--json', 'print {"added": N, "deleted": M}')
    .action(async (words: string[], o: MachineOptions & AttachmentSelector, cmd: Command) => {
      const { json, ...selector } = o;
      const options = assignments(words, 'name=value');
      const result = await runAudited(
        cmd,
        {
          command: 'machine token option',
          detail: Object.keys(options).join(', '),
          fields: { serial: selector.serial ?? '' },
        },
        (ctx) => setAttachmentOptions(ctx, selector, options),
      );
      if (json) return printJson(result);
      console.log(`${result.added} option(s) set, ${result.deleted} deleted.`);
    });
}
