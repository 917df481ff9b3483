// `authsrv event`: the event handling definitions of /event/ (reference 7.1) with the same services
// and error messages, and what the handler modules offer. set, enable, disable and delete write an
// audit row.
import { Command } from 'commander';
import {
  deleteEventDefinition,
  type EventDefinition,
  handlerActions,
  handlerConditions,
  handlerModules,
  handlerPositions,
  listEventDefinitions,
  saveEventDefinition,
  setEventDefinitionActive,
} from '../../core/event/index.ts';
import { ParameterError } from '../../errors.ts';
import {
  assignments,
  cellText,
  configFrom,
  printFields,
  printJson,
  printTable,
  runAudited,
  withContext,
} from '../common.ts';
import { type SwitchableResource, switchSubcommands } from '../switch-commands.ts';

export function eventCommand(): Command {
  const cmd = new Command('event')
    .description('event handling: handler module actions bound to the events of the endpoints')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(setCommand());
  for (const sub of switchSubcommands(EVENTS)) cmd.addCommand(sub);
  return cmd.addCommand(modulesCommand());
}

function idOf(text: string): number {
  if (!/^\d+$/.test(text)) throw new ParameterError(`'${text}' is not an event definition id`);
  return Number(text);
}

function listCommand(): Command {
  return new Command('list')
    .description('list the event handling definitions in their ordering')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listEventDefinitions(ctx));
      if (o.json) return printJson(all);
      printTable(
        ['Id', 'Name', 'Active', 'Events', 'Module', 'Action', 'Position', 'Ordering'],
        all.map((d) => [
          d.id,
          d.name,
          d.active ? 'yes' : 'no',
          cellText(d.event),
          d.handlermodule,
          d.action,
          d.position,
          d.ordering,
        ]),
      );
    });
}

function printDefinition(d: EventDefinition): void {
  printFields([
    ['Id', String(d.id)],
    ['Name', d.name],
    ['Active', d.active ? 'yes' : 'no'],
    ['Events', cellText(d.event)],
    ['Module', d.handlermodule],
    ['Action', d.action],
    ['Position', d.position],
    ['Ordering', String(d.ordering)],
    ...Object.entries(d.options).map(([k, v]) => [`Option ${k}`, v] as const),
    ...Object.entries(d.conditions).map(([k, v]) => [`Condition ${k}`, v] as const),
  ]);
}

function showCommand(): Command {
  return new Command('show')
    .argument('<id>')
    .description('show one definition with its options and conditions')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { json?: boolean }, cmd: Command) => {
      const [d] = await withContext(cmd, (ctx) => listEventDefinitions(ctx, idOf(id)));
      if (!d) throw new ParameterError(`The event handling definition ${id} does not exist.`);
      if (o.json) return printJson(d);
      printDefinition(d);
    });
}

interface SetOptions {
  id?: string;
  event: string;
  module: string;
  action: string;
  position?: string;
  ordering?: string;
  inactive?: boolean;
  conditions?: string;
  json?: boolean;
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .argument('[options...]', "the action's options as name=value")
    .description('create a definition, or with --id replace it whole (options and conditions too)')
    .option('--id <id>', 'the definition to replace')
    .requiredOption('--event <events>', 'comma-separated event names (see GET /event/available)')
    .requiredOption('--module <module>', 'handler module (see `authsrv event modules`)')
    .requiredOption('--action <action>', "the module's action")
    .option('--position <position>', 'pre or post (default post)')
    .option('--ordering <n>', 'order among the definitions of an event (default 0)')
    .option('--inactive', 'save it disabled')
    .option('--conditions <json>', 'conditions as a JSON object, e.g. {"tokentype":"hotp"}')
    .option('--json', 'print the saved definition as JSON')
    .action(async (name: string, words: string[], o: SetOptions, cmd: Command) => {
      const ordering = o.ordering === undefined ? undefined : Number(o.ordering);
      if (ordering !== undefined && !Number.isInteger(ordering))
        throw new ParameterError('ordering must be an integer.');
      const saved = await runAudited(cmd, { command: 'event set', detail: name }, async (ctx) => {
        const id = await saveEventDefinition(ctx, {
          id: o.id === undefined ? undefined : idOf(o.id),
          name,
          event: o.event,
          handlermodule: o.module,
          action: o.action,
          position: o.position,
          ordering,
          active: !o.inactive,
          conditions: o.conditions,
          options: assignments(words, 'option=value'),
        });
        return (await listEventDefinitions(ctx, id))[0] as EventDefinition;
      });
      if (o.json) return printJson(saved);
      console.log(`Event handling definition '${name}' saved (id ${saved.id}).`);
    });
}

function modulesCommand(): Command {
  return new Command('modules')
    .argument('[module]')
    .description("list the handler modules, or one module's positions, actions and conditions")
    .option('--json', 'print JSON')
    .action((module: string | undefined, o: { json?: boolean }, cmd: Command) => {
      if (!module) {
        if (o.json) return printJson(handlerModules());
        for (const m of handlerModules()) console.log(m);
        return;
      }
      const about = {
        positions: handlerPositions(module),
        actions: handlerActions(module, configFrom(cmd)),
        conditions: handlerConditions(module),
      };
      if (o.json) return printJson(about);
      printFields([
        ['Positions', cellText(about.positions)],
        ...Object.entries(about.actions).map(
          ([action, options]) =>
            [
              `Action ${action}`,
              Object.entries(options)
                .map(([k, v]) => (v.required ? `${k}*` : k))
                .join(', '),
            ] as const,
        ),
        ['Conditions', Object.keys(about.conditions).join(', ')],
      ]);
    });
}

const EVENTS: SwitchableResource = {
  command: 'event',
  argument: ['<id>'],
  what: 'a definition',
  named: (id) => `Event handling definition ${id}`,
  setActive: (ctx, id, active) => setEventDefinitionActive(ctx, idOf(id), active),
  remove: (ctx, id) => deleteEventDefinition(ctx, idOf(id)),
};
