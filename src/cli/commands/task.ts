// `authsrv task`: the periodic task definitions of /periodictask/ (reference 7.2) with the same
// services and error messages, and `task run NAME`, which runs one task now on this node against
// the configured database whether or not a server runs. set, enable, disable and delete write an
// audit row; run writes its own (core's runPeriodicTaskNow).
import { Command } from 'commander';
import {
  deletePeriodicTask,
  getPeriodicTask,
  listPeriodicTasks,
  periodicTaskModules,
  periodicTaskOptions,
  runPeriodicTaskNow,
  savePeriodicTaskNamed,
  setPeriodicTaskActive,
  type TaskView,
  viewOf,
} from '../../core/periodictask/index.ts';
import {
  assignments,
  cellText,
  printFields,
  printJson,
  printTable,
  runAudited,
  withContext,
} from '../common.ts';
import { type SwitchableResource, switchSubcommands } from '../switch-commands.ts';

export function taskCommand(): Command {
  const cmd = new Command('task')
    .description('periodic tasks: housekeeping the server runs on a cron schedule on the nodes named')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(setCommand());
  for (const sub of switchSubcommands(TASKS)) cmd.addCommand(sub);
  return cmd.addCommand(runCommand()).addCommand(modulesCommand());
}

function lastRunsText(v: TaskView): string {
  return Object.entries(v.last_runs)
    .map(([node, at]) => `${node} ${at}`)
    .join(', ');
}

function listCommand(): Command {
  return new Command('list')
    .description('list the periodic tasks in their ordering')
    .option('--json', 'print JSON (as GET /periodictask/)')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const all = (await withContext(cmd, (ctx) => listPeriodicTasks(ctx))).map(viewOf);
      if (o.json) return printJson(all);
      printTable(
        ['Id', 'Name', 'Active', 'Module', 'Interval', 'Nodes', 'Ordering', 'Last runs'],
        all.map((v) => [
          v.id,
          v.name,
          v.active ? 'yes' : 'no',
          v.taskmodule,
          v.interval,
          cellText(v.nodes),
          v.ordering,
          lastRunsText(v),
        ]),
      );
    });
}

function showCommand(): Command {
  return new Command('show')
    .argument('<task>', 'name or id')
    .description('show one periodic task')
    .option('--json', 'print JSON (as GET /periodictask/<id>)')
    .action(async (task: string, o: { json?: boolean }, cmd: Command) => {
      const v = viewOf(await withContext(cmd, (ctx) => getPeriodicTask(ctx, task)));
      if (o.json) return printJson(v);
      printFields([
        ['id', String(v.id)],
        ['name', v.name],
        ['active', String(v.active)],
        ['retry_if_failed', String(v.retry_if_failed)],
        ['interval', v.interval],
        ['nodes', cellText(v.nodes)],
        ['taskmodule', v.taskmodule],
        ['ordering', String(v.ordering)],
        ['options', JSON.stringify(v.options)],
        ['last_update', v.last_update],
        ['last_runs', lastRunsText(v)],
      ]);
    });
}

interface SetOptions {
  interval: string;
  nodes: string;
  module: string;
  ordering?: string;
  active?: boolean;
  retry?: boolean;
  json?: boolean;
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .argument('[options...]', 'the task module options, KEY=VALUE')
    .description('create a periodic task or replace the one of that name completely')
    .requiredOption('--interval <cron>', "when it runs, in cron syntax, e.g. '*/10 * * * *'")
    .requiredOption('--nodes <list>', 'comma list of the nodes it runs on')
    .requiredOption('--module <taskmodule>', 'the task module (authsrv task modules)')
    .option('--ordering <n>', 'order among tasks due at once (default 0)', '0')
    .option('--inactive', 'store it disabled')
    .option('--no-retry', 'do not rerun a failed run at the next tick (retry_if_failed false)')
    .option('--json', 'print the saved task as JSON')
    .action(async (name: string, words: string[], o: SetOptions & { inactive?: boolean }, cmd: Command) => {
      const options = assignments(words, 'KEY=VALUE');
      const saved = await runAudited(cmd, { command: 'task set', detail: name }, async (ctx) => {
        const id = await savePeriodicTaskNamed(ctx, {
          name,
          interval: o.interval,
          nodes: o.nodes,
          taskmodule: o.module,
          ordering: o.ordering,
          active: o.inactive ? 'false' : 'true',
          retry_if_failed: o.retry === false ? 'false' : 'true',
          options,
        });
        return viewOf(await getPeriodicTask(ctx, id));
      });
      if (o.json) return printJson(saved);
      console.log(`Periodic task '${name}' saved (id ${saved.id}).`);
    });
}

function runCommand(): Command {
  return new Command('run')
    .argument('<task>', 'name or id')
    .description('run a periodic task now on this node (exit 1 when it fails), whether or not a server runs')
    .option('--json', 'print the outcome as JSON')
    .action(async (task: string, o: { json?: boolean }, cmd: Command) => {
      const outcome = await withContext(cmd, (ctx) => runPeriodicTaskNow(ctx, task));
      if (o.json) return printJson(outcome);
      console.log(
        `Periodic task '${outcome.task}' ran on node ${outcome.node}: ${JSON.stringify(outcome.summary)}`,
      );
    });
}

function modulesCommand(): Command {
  return new Command('modules')
    .description('list the task modules with their options')
    .option('--json', 'print JSON: module → options')
    .action((o: { json?: boolean }) => {
      const all = Object.fromEntries(periodicTaskModules().map((m) => [m, periodicTaskOptions(m)]));
      if (o.json) return printJson(all);
      printTable(
        ['Module', 'Option', 'Type', 'Required', 'Description'],
        Object.entries(all).flatMap(([m, opts]) =>
          Object.keys(opts).length === 0
            ? [[m, '', '', '', '']]
            : Object.entries(opts).map(([k, spec]) => [
                m,
                k,
                spec.type,
                spec.required ? 'yes' : 'no',
                spec.description,
              ]),
        ),
      );
    });
}

const TASKS: SwitchableResource = {
  command: 'task',
  argument: ['<task>', 'name or id'],
  what: 'a periodic task',
  deleteDetail: 'with its options and last runs',
  named: (task) => `Periodic task '${task}'`,
  setActive: setPeriodicTaskActive,
  remove: deletePeriodicTask,
};
