// The enable, disable and delete subcommands of a resource whose entries are switched on and off
// and deleted by one key (`authsrv event`, `authsrv task`): each calls one service through
// runAudited (an audit row `CLI <command> <verb>`), prints `{"enabled": ID}` … with --json, else a
// sentence naming the entry.
import { Command } from 'commander';
import type { Context } from '../core/context.ts';
import { printJson, runAudited } from './common.ts';

export interface SwitchableResource {
  /** The command's name, also in the audit rows (`event enable`). */
  command: string;
  /** The argument that names an entry, e.g. `<id>` or `<task>`, with its help. */
  argument: readonly [string, string?];
  /** What one entry is, for the help texts: `a definition`, `a periodic task`. */
  what: string;
  /** Extra words of delete's help: `with its options and last runs`. */
  deleteDetail?: string;
  /** The entry in the printed sentence: `Periodic task 'nightly'`. */
  named(key: string): string;
  /** Switches the entry; its id for --json. */
  setActive(ctx: Context, key: string, active: boolean): Promise<number | string>;
  /** Deletes the entry; its id for --json. */
  remove(ctx: Context, key: string): Promise<number | string>;
}

export function switchSubcommands(r: SwitchableResource): Command[] {
  return [activeCommand(r, 'enable', true), activeCommand(r, 'disable', false), deleteCommand(r)];
}

function activeCommand(r: SwitchableResource, verb: 'enable' | 'disable', active: boolean): Command {
  return new Command(verb)
    .argument(...r.argument)
    .description(`${verb} ${r.what}`)
    .option('--json', `print {"${verb}d": ID}`)
    .action(async (key: string, o: { json?: boolean }, cmd: Command) => {
      const id = await runAudited(cmd, { command: `${r.command} ${verb}`, detail: key }, (ctx) =>
        r.setActive(ctx, key, active),
      );
      if (o.json) return printJson({ [`${verb}d`]: id });
      console.log(`${r.named(key)} ${verb}d.`);
    });
}

function deleteCommand(r: SwitchableResource): Command {
  return new Command('delete')
    .argument(...r.argument)
    .description(`delete ${r.what}${r.deleteDetail ? ` ${r.deleteDetail}` : ''}`)
    .option('--json', 'print {"deleted": ID}')
    .action(async (key: string, o: { json?: boolean }, cmd: Command) => {
      const id = await runAudited(cmd, { command: `${r.command} delete`, detail: key }, (ctx) =>
        r.remove(ctx, key),
      );
      if (o.json) return printJson({ deleted: id });
      console.log(`${r.named(key)} deleted.`);
    });
}
