// `authsrv realm`: realms, the ordered groups of resolvers users are looked up in, and the default.
import { Command } from 'commander';
import { auditedCliAction } from '../../core/audit/index.ts';
import { defaultRealm } from '../../core/directory/index.ts';
import {
  clearDefaultRealm,
  deleteRealm,
  listRealms,
  normaliseRealmName,
  type RealmView,
  setDefaultRealm,
  setRealm,
  storedRealmName,
} from '../../core/realm/index.ts';
import { ParameterError } from '../../errors.ts';
import { notBoth, printJson, printTable, runAudited, withContext } from '../common.ts';

export function realmCommand(): Command {
  return new Command('realm')
    .description('realms: ordered groups of resolvers')
    .addCommand(listCommand())
    .addCommand(setCommand())
    .addCommand(deleteCommand())
    .addCommand(defaultCommand());
}

function listCommand(): Command {
  return new Command('list')
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
}

function resolversCell(view: RealmView): string {
  return view.resolver
    .map((r) => `${r.name} (${r.type}${r.priority === null ? '' : `, priority ${r.priority}`})`)
    .join('\n');
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .argument('<resolvers...>')
    .description('create a realm or replace its resolvers (RESOLVER or RESOLVER:PRIORITY, lower first)')
    .action(async (rawName: string, words: string[], _o, cmd: Command) => {
      const name = normaliseRealmName(rawName);
      const { names, priorities } = resolversOf(words);
      const action = { command: 'realm set', detail: `${name} ${words.join(' ')}`, fields: { realm: name } };
      const r = await runAudited(cmd, action, (ctx) => setRealm(ctx, name, names, priorities));
      console.log(`Realm '${name}': added ${r.added.join(', ')}`);
      if (r.failed.length > 0) {
        console.log(`Realm '${name}': failed ${r.failed.join(', ')} (no such resolver)`);
        process.exitCode = 1;
      }
    });
}

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

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete a realm (its users keep their data in the resolvers)')
    .action(async (name: string, _o, cmd: Command) => {
      const action = { command: 'realm delete', detail: name, fields: { realm: name } };
      await runAudited(cmd, action, (ctx) => deleteRealm(ctx, name));
      console.log(`Realm '${storedRealmName(name)}' deleted.`);
    });
}

function defaultCommand(): Command {
  return new Command('default')
    .argument('[name]')
    .description('show the default realm, or make NAME the default')
    .option('--clear', 'leave no realm as the default')
    .option('--json', 'print JSON (when showing)')
    .action(async (name: string | undefined, o: { clear?: boolean; json?: boolean }, cmd: Command) => {
      notBoth(name !== undefined, o.clear, 'a realm name', '--clear');
      if (o.clear) return clearDefault(cmd);
      if (name !== undefined) return makeDefault(cmd, name);
      const current = await withContext(cmd, (ctx) => defaultRealm(ctx));
      if (o.json) printJson({ default: current ?? null });
      else console.log(current ?? 'No default realm.');
    });
}

async function clearDefault(cmd: Command): Promise<void> {
  const was = await withContext(cmd, async (ctx) => {
    const before = await defaultRealm(ctx);
    await auditedCliAction(ctx, { command: 'realm default', detail: '--clear' }, () =>
      clearDefaultRealm(ctx),
    );
    return before;
  });
  console.log(was ? `Realm '${was}' is no longer the default.` : 'There was no default realm.');
}

async function makeDefault(cmd: Command, name: string): Promise<void> {
  await runAudited(cmd, { command: 'realm default', detail: name }, (ctx) => setDefaultRealm(ctx, name));
  console.log(`Realm '${storedRealmName(name)}' is now the default.`);
}
