// The subcommands of a resource made of named, typed settings (`authsrv resolver`, `authsrv
// machineresolver`): list, show, set, test and delete, built once for every such resource. Secrets
// never come from the command line (ps, shell history): they are asked for or read from stdin.
import { Command } from 'commander';
import type { Context } from '../core/context.ts';
import { CENSORED } from '../core/system/index.ts';
import { ParameterError, ResourceNotFoundError } from '../errors.ts';
import {
  assignments,
  printJson,
  printTable,
  promptHidden,
  readStdinLines,
  runAudited,
  withContext,
} from './common.ts';

/** A stored object as the services show it (secrets censored). */
export interface SettingsObjectView {
  resolvername: string;
  type: string;
  data: Record<string, string>;
}

/** What the subcommands need of a resource's services, and how they name it. */
export interface SettingsResource<ListOptions> {
  /** The command's name, also in the audit rows (`resolver set`). */
  command: string;
  /** The resource in messages, capitalised: `Resolver`, `Machine resolver`. */
  label: string;
  /** The help of --type: the type names. */
  types: string;
  /** Options of `list` beyond --type and --json. */
  listOptions?: (cmd: Command) => Command;
  list(ctx: Context, o: ListOptions & { type?: string }): Promise<Record<string, SettingsObjectView>>;
  get(ctx: Context, name: string): Promise<Record<string, SettingsObjectView>>;
  save(
    ctx: Context,
    name: string,
    params: Record<string, string>,
  ): Promise<{ name: string; created: boolean; warnings: string[] }>;
  test(
    ctx: Context,
    params: Record<string, string>,
  ): Promise<{ description: string; value: unknown; succeeded: boolean }>;
  /** Deletes; throws when there is none of that name. */
  remove(ctx: Context, name: string): Promise<void>;
  /** The setting names the type seals. */
  secretSettingNames(type: string): Set<string>;
  /** What `delete` refuses, for its help: `a resolver that is in no realm`. */
  deleteHelp: string;
}

/** The not-found error of a name, as `show` and `delete` give it. */
export function notFoundError(label: string, name: string): ResourceNotFoundError {
  return new ResourceNotFoundError(`The ${label.toLowerCase()} '${name}' does not exist`);
}

/** list, show, set, test and delete of a settings resource, in that order. */
export function settingsSubcommands<O>(r: SettingsResource<O>): Command[] {
  return [listCommand(r), showCommand(r), setCommand(r), testCommand(r), deleteCommand(r)];
}

function listCommand<O>(r: SettingsResource<O>): Command {
  const cmd = new Command('list')
    .description(`list ${r.label.toLowerCase()}s (secrets censored)`)
    .option('--type <type>', `only ${r.label.toLowerCase()}s of this type`)
    .option('--json', 'print JSON');
  return (r.listOptions?.(cmd) ?? cmd).action(
    async (o: O & { type?: string; json?: boolean }, c: Command) => {
      const all = await withContext(c, (ctx) => r.list(ctx, o));
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Type', 'Settings'],
        Object.values(all).map((v) => [v.resolvername, v.type, settingsCell(v)]),
      );
    },
  );
}

function settingsCell(view: SettingsObjectView): string {
  return Object.entries(view.data)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

function showCommand<O>(r: SettingsResource<O>): Command {
  return new Command('show')
    .argument('<name>')
    .description(`show the settings of one ${r.label.toLowerCase()} (secrets censored)`)
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const view = Object.values(await withContext(cmd, (ctx) => r.get(ctx, name)))[0];
      if (!view) throw notFoundError(r.label, name);
      if (o.json) return printJson(view);
      console.log(`${view.resolvername} (${view.type})`);
      printTable(['Setting', 'Value'], Object.entries(view.data));
    });
}

function setCommand<O>(r: SettingsResource<O>): Command {
  return withSettingOptions(
    r,
    new Command('set')
      .argument('<name>')
      .argument('[settings...]')
      .description(
        `create a ${r.label.toLowerCase()} or change its settings (KEY=VALUE; KEY= removes a setting, KEY=- asks for a secret)`,
      )
      .option('--json', 'print {"name", "created", "warnings"} as JSON'),
  ).action(async (name: string, words: string[], o: SettingOptions & { json?: boolean }, cmd: Command) => {
    const params = await settingsWithSecrets(r, words, o);
    const action = { command: `${r.command} set`, detail: `${name} ${o.type}`, fields: { resolver: name } };
    const saved = await runAudited(cmd, action, (ctx) => r.save(ctx, name, params));
    if (o.json) return printJson({ name: saved.name, created: saved.created, warnings: saved.warnings });
    console.log(`${r.label} '${saved.name}' ${saved.created ? 'created' : 'updated'}.`);
    for (const warning of saved.warnings) console.error(`warning: ${warning}`);
  });
}

function testCommand<O>(r: SettingsResource<O>): Command {
  const label = r.label.toLowerCase();
  return withSettingOptions(
    r,
    new Command('test')
      .argument('[settings...]')
      .description('try settings without saving them (exit 1 when they do not work)')
      .option(
        '--resolver <name>',
        `start from the settings of this stored ${label} (its secrets included while their server and account are unchanged)`,
      )
      .option('--json', 'print JSON'),
  ).action(
    async (words: string[], o: SettingOptions & { resolver?: string; json?: boolean }, cmd: Command) => {
      const params = await settingsWithSecrets(r, words, o);
      if (o.resolver) params.resolver = o.resolver;
      const t = await withContext(cmd, (ctx) => r.test(ctx, params));
      if (o.json) printJson({ value: t.value, description: t.description });
      else console.log(t.description);
      if (!t.succeeded) process.exitCode = 1;
    },
  );
}

function deleteCommand<O>(r: SettingsResource<O>): Command {
  return new Command('delete')
    .argument('<name>')
    .description(`delete ${r.deleteHelp}`)
    .option('--json', 'print {"deleted": NAME}')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      await runAudited(cmd, { command: `${r.command} delete`, detail: name }, (ctx) => r.remove(ctx, name));
      if (o.json) return printJson({ deleted: name });
      console.log(`${r.label} '${name}' deleted.`);
    });
}

interface SettingOptions {
  type: string;
  secret: string[];
  passwordStdin?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The options of the commands that take settings: the type, and how secrets are given. */
function withSettingOptions<O>(r: SettingsResource<O>, cmd: Command): Command {
  return cmd
    .requiredOption('--type <type>', r.types)
    .option('--secret <key>', 'a secret setting to ask for (repeatable); same as KEY=-', collect, [])
    .option('--password-stdin', 'read the secrets from standard input, one a line');
}

/** The settings of the words and options, the secrets they name read afterwards. */
async function settingsWithSecrets<O>(
  r: SettingsResource<O>,
  words: string[],
  o: SettingOptions,
): Promise<Record<string, string>> {
  const { params, ask } = settingsOf(r.secretSettingNames(o.type), words, o);
  return Object.assign(params, await readSecrets(ask, o.passwordStdin === true));
}

/**
 * KEY=VALUE words as settings. A secret is named as KEY=- or --secret KEY and read afterwards; a
 * key that the type does not seal is then stored sealed too. KEY=__CENSORED__ (keep the stored
 * secret) and KEY= (remove it) pass.
 */
function settingsOf(
  secret: Set<string>,
  words: string[],
  o: SettingOptions,
): { params: Record<string, string>; ask: string[] } {
  const params: Record<string, string> = { type: o.type };
  const ask: string[] = [];
  for (const [key, value] of Object.entries(assignments(words, 'KEY=VALUE'))) {
    if (value === '-') ask.push(key);
    else if (secret.has(key) && value !== '' && value !== CENSORED) {
      throw new ParameterError(
        `${key} is a secret setting: give it as ${key}=- or --secret ${key} and type it at the prompt or pipe it in with --password-stdin`,
      );
    } else params[key] = value;
  }
  for (const key of o.secret) if (!ask.includes(key)) ask.push(key);
  for (const key of ask) if (!secret.has(key)) params[`type.${key}`] = 'password';
  if (o.passwordStdin && ask.length === 0) {
    throw new ParameterError('--password-stdin reads secrets only: name them as KEY=- or --secret KEY');
  }
  return { params, ask };
}

/** Secret values: a hidden prompt each on a terminal, or one line each from stdin with --password-stdin. */
export async function readSecrets(keys: string[], fromStdin: boolean): Promise<Record<string, string>> {
  if (keys.length === 0) return {};
  return fromStdin ? secretsFromStdin(keys) : secretsFromPrompts(keys);
}

async function secretsFromStdin(keys: string[]): Promise<Record<string, string>> {
  const lines = await readStdinLines();
  const expected = keys.length === 1 ? 'one line' : `${keys.length} lines: ${keys.join(', ')}`;
  const out: Record<string, string> = {};
  keys.forEach((key, n) => {
    const line = lines[n] ?? '';
    if (line === '') throw new ParameterError(`No value for ${key} on standard input (expected ${expected})`);
    out[key] = line;
  });
  return out;
}

async function secretsFromPrompts(keys: string[]): Promise<Record<string, string>> {
  const noTerminal = `No terminal to ask for ${keys.join(', ')}: pipe it in with --password-stdin`;
  const out: Record<string, string> = {};
  for (const key of keys) {
    const value = await promptHidden(`${key}:`, noTerminal);
    if (value === '') throw new ParameterError(`No value entered for ${key}`);
    out[key] = value;
  }
  return out;
}
