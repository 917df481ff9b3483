import { Command } from 'commander';
import { defaultRealm } from '../../core/directory/index.ts';
import {
  clearDefaultRealm,
  deleteRealm,
  listRealms,
  normaliseRealmName,
  type RealmView,
  setDefaultRealm,
  setRealm,
} from '../../core/realm/index.ts';
import { ParameterError } from '../../errors.ts';
import { audited, printJson, printTable, withContext } from '../common.ts';

/** RESOLVER or RESOLVER:PRIORITY words (resolver names have no ':'). */
function resolversOf(words: string[]): { names: string[]; priorities: Record<string, number> } {
  const names: string[] = [];
  const priorities: Record<string, number> = {};
  for (const w of words) {
    const i = w.lastIndexOf(':');
    const name = i < 0 ? w : w.slice(0, i);
    if (name === '') throw new ParameterError(`'${w}' is not of the form RESOLVER or RESOLVER:PRIORITY`);
    if (i >= 0) {
      const p = w.slice(i + 1);
      if (!/^\d+$/.test(p)) throw new ParameterError(`The priority in '${w}' is not a whole number`);
      priorities[name] = Number(p);
    }
    names.push(name);
  }
  return { names, priorities };
}

function resolversCell(view: RealmView): string {
  return view.resolver
    .map((r) => `${r.name} (${r.type}${r.priority === null ? '' : `, priority ${r.priority}`})`)
    .join('\n');
}

export function realmCommand(): Command {
  const realm = new Command('realm').description('realms: ordered groups of resolvers');
  realm
    .command('list')
    .description('list realms with their resolvers in the order users are looked up')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listRealms(ctx));
      if (o.json) return printJson(all);
      printTable(
        ['Realm', 'Default', 'Resolvers'],
        Object.entries(all).map(([name, v]) => [name, v.default ? 'yes' : '', resolversCell(v)]),
      );
    });
  realm
    .command('set <name> <resolvers...>')
    .description('create a realm or replace its resolvers (RESOLVER or RESOLVER:PRIORITY, lower first)')
    .action(async (rawName: string, words: string[], _o, cmd: Command) => {
      const name = normaliseRealmName(rawName);
      const { names, priorities } = resolversOf(words);
      const r = await withContext(cmd, (ctx) =>
        audited(
          ctx,
          'realm set',
          `${name} ${words.join(' ')}`,
          () => setRealm(ctx, name, names, priorities),
          {
            realm: name,
          },
        ),
      );
      console.log(`Realm '${name}': added ${r.added.join(', ')}`);
      if (r.failed.length > 0) {
        console.log(`Realm '${name}': failed ${r.failed.join(', ')} (no such resolver)`);
        process.exitCode = 1;
      }
    });
  realm
    .command('delete <name>')
    .description('delete a realm (its users keep their data in the resolvers)')
    .action(async (name: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(ctx, 'realm delete', name, () => deleteRealm(ctx, name), { realm: name }),
      );
      console.log(`Realm '${name.toLowerCase()}' deleted.`);
    });
  realm
    .command('default [name]')
    .description('show the default realm, or make NAME the default')
    .option('--clear', 'leave no realm as the default')
    .option('--json', 'print JSON (when showing)')
    .action(async (name: string | undefined, o: { clear?: boolean; json?: boolean }, cmd: Command) => {
      if (name !== undefined && o.clear) throw new ParameterError('Give a realm name or --clear, not both');
      if (o.clear) {
        const was = await withContext(cmd, async (ctx) => {
          const before = await defaultRealm(ctx);
          await audited(ctx, 'realm default', '--clear', () => clearDefaultRealm(ctx));
          return before;
        });
        console.log(was ? `Realm '${was}' is no longer the default.` : 'There was no default realm.');
        return;
      }
      if (name !== undefined) {
        await withContext(cmd, (ctx) =>
          audited(ctx, 'realm default', name, () => setDefaultRealm(ctx, name)),
        );
        console.log(`Realm '${name.toLowerCase()}' is now the default.`);
        return;
      }
      const current = await withContext(cmd, (ctx) => defaultRealm(ctx));
      if (o.json) printJson({ default: current ?? null });
      else console.log(current ?? 'No default realm.');
    });
  return realm;
}
