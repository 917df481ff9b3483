// `authsrv resolver`: the user stores (passwd file, LDAP, SQL, SCIM) and their settings. Secrets
// never come from the command line (ps, shell history): they are asked for or read from stdin.
import { Command } from 'commander';
import {
  deleteResolver,
  getResolver,
  listResolvers,
  type ResolverView,
  saveResolver,
  secretSettingNames,
  testResolver,
} from '../../core/resolver/index.ts';
import { CENSORED } from '../../core/system/index.ts';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import {
  assignments,
  printJson,
  printTable,
  promptHidden,
  readStdinLines,
  runAudited,
  withContext,
} from '../common.ts';

export function resolverCommand(): Command {
  return new Command('resolver')
    .description('user stores (passwd file, LDAP, SQL, SCIM)')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(setCommand())
    .addCommand(testCommand())
    .addCommand(deleteCommand());
}

const notFound = (name: string) => new ResourceNotFoundError(`The resolver '${name}' does not exist`);

function listCommand(): Command {
  return new Command('list')
    .description('list resolvers (secrets censored)')
    .option('--type <type>', 'only resolvers of this type')
    .option('--editable', 'only resolvers whose users can be edited')
    .option('--json', 'print JSON')
    .action(async (o: { type?: string; editable?: boolean; json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) =>
        listResolvers(ctx, { type: o.type, editable: o.editable === true }),
      );
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Type', 'Settings'],
        Object.values(all).map((v) => [v.resolvername, v.type, settingsCell(v)]),
      );
    });
}

function settingsCell(view: ResolverView): string {
  return Object.entries(view.data)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

function showCommand(): Command {
  return new Command('show')
    .argument('<name>')
    .description('show the settings of one resolver (secrets censored)')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const view = Object.values(await withContext(cmd, (ctx) => getResolver(ctx, name)))[0];
      if (!view) throw notFound(name);
      if (o.json) return printJson(view);
      console.log(`${view.resolvername} (${view.type})`);
      printTable(['Setting', 'Value'], Object.entries(view.data));
    });
}

function setCommand(): Command {
  return withSettingOptions(
    new Command('set')
      .argument('<name>')
      .argument('[settings...]')
      .description(
        'create a resolver or change its settings (KEY=VALUE; KEY= removes a setting, KEY=- asks for a secret)',
      ),
  ).action(async (name: string, words: string[], o: SettingOptions, cmd: Command) => {
    const params = await settingsWithSecrets(words, o);
    const action = { command: 'resolver set', detail: `${name} ${o.type}`, fields: { resolver: name } };
    const saved = await runAudited(cmd, action, (ctx) => saveResolver(ctx, name, params));
    console.log(`Resolver '${saved.name}' ${saved.created ? 'created' : 'updated'}.`);
    for (const warning of saved.warnings) console.error(`warning: ${warning}`);
  });
}

function testCommand(): Command {
  return withSettingOptions(
    new Command('test')
      .argument('[settings...]')
      .description('try settings without saving them (exit 1 when they do not work)')
      .option(
        '--resolver <name>',
        'start from the settings of this stored resolver (its secrets included while their server and account are unchanged)',
      )
      .option('--json', 'print JSON'),
  ).action(
    async (words: string[], o: SettingOptions & { resolver?: string; json?: boolean }, cmd: Command) => {
      const params = await settingsWithSecrets(words, o);
      if (o.resolver) params.resolver = o.resolver;
      const r = await withContext(cmd, (ctx) => testResolver(ctx, params));
      if (o.json) printJson({ value: r.value, description: r.description });
      else console.log(r.description);
      if (!r.succeeded) process.exitCode = 1;
    },
  );
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete a resolver that is in no realm')
    .action(async (name: string, _o, cmd: Command) => {
      await runAudited(cmd, { command: 'resolver delete', detail: name }, async (ctx) => {
        if ((await deleteResolver(ctx, name)) === -1) throw notFound(name);
      });
      console.log(`Resolver '${name}' deleted.`);
    });
}

interface SettingOptions {
  type: string;
  secret: string[];
  passwordStdin?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The options of the commands that take settings: the type, and how secrets are given. */
function withSettingOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--type <type>', 'passwdresolver, ldapresolver, sqlresolver or scimresolver')
    .option('--secret <key>', 'a secret setting to ask for (repeatable); same as KEY=-', collect, [])
    .option('--password-stdin', 'read the secrets from standard input, one a line');
}

/** The settings of the words and options, the secrets they name read afterwards. */
async function settingsWithSecrets(words: string[], o: SettingOptions): Promise<Record<string, string>> {
  const { params, ask } = settingsOf(words, o);
  return Object.assign(params, await readSecrets(ask, o.passwordStdin === true));
}

/**
 * KEY=VALUE words as settings. A secret is named as KEY=- or --secret KEY and read afterwards; a
 * key that the type does not seal is then stored sealed too. KEY=__CENSORED__ (keep the stored
 * secret) and KEY= (remove it) pass.
 */
function settingsOf(words: string[], o: SettingOptions): { params: Record<string, string>; ask: string[] } {
  const secret = secretSettingNames(o.type);
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
async function readSecrets(keys: string[], fromStdin: boolean): Promise<Record<string, string>> {
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
