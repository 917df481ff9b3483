// The `list|set|delete` commands of a resource that is a name with a description (token groups,
// service IDs): one builder, so that each such resource reads and behaves the same. The services
// and their error messages are the resource's own.
import { Command } from 'commander';
import type { Context } from '../core/context.ts';
import { printJson, printTable, runAudited, withContext } from './common.ts';

export interface NamedEntry {
  id: number;
  description: string;
}

export interface NamedResource {
  /** The command, e.g. `serviceid`; audit rows are `CLI <command> set|delete`. */
  command: string;
  description: string;
  /** What one is called in messages: `service ID`, `token group`. */
  noun: string;
  /** When a delete is refused, e.g. `while tokens use it`. */
  inUse: string;
  list(ctx: Context, name?: string): Promise<Record<string, NamedEntry>>;
  set(ctx: Context, name: string, description: string | undefined): Promise<unknown>;
  remove(ctx: Context, name: string): Promise<unknown>;
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function namedResourceCommand(r: NamedResource): Command {
  return new Command(r.command)
    .description(r.description)
    .addCommand(listCommand(r))
    .addCommand(setCommand(r))
    .addCommand(deleteCommand(r));
}

function listCommand(r: NamedResource): Command {
  return new Command('list')
    .argument('[name]')
    .description(`list ${r.noun}s (NAME: only that one)`)
    .option('--json', 'print JSON')
    .action(async (name: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => r.list(ctx, name || undefined));
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Id', 'Description'],
        Object.entries(all).map(([n, e]) => [n, e.id, e.description]),
      );
    });
}

function setCommand(r: NamedResource): Command {
  return new Command('set')
    .argument('<name>')
    .description(`create a ${r.noun}, or change its description`)
    .option('--description <text>', `description (default: kept, or empty for a new ${r.noun})`)
    .option('--json', `print the saved ${r.noun} as JSON`)
    .action(async (raw: string, o: { description?: string; json?: boolean }, cmd: Command) => {
      const name = raw.trim();
      const action = { command: `${r.command} set`, detail: name };
      const saved = await runAudited(cmd, action, async (ctx) => {
        await r.set(ctx, raw, o.description);
        return r.list(ctx, name);
      });
      if (o.json) return printJson(saved);
      console.log(`${capitalised(r.noun)} '${name}' saved (id ${saved[name]?.id}).`);
    });
}

function deleteCommand(r: NamedResource): Command {
  return new Command('delete')
    .argument('<name>')
    .description(`delete a ${r.noun} (refused ${r.inUse})`)
    .option('--json', 'print {"deleted": NAME}')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      await runAudited(cmd, { command: `${r.command} delete`, detail: name }, (ctx) => r.remove(ctx, name));
      if (o.json) return printJson({ deleted: name });
      console.log(`${capitalised(r.noun)} '${name}' deleted.`);
    });
}
