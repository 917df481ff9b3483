import { Command } from 'commander';
import {
  deleteResolver,
  getResolver,
  listResolvers,
  type ResolverView,
  saveResolver,
  testResolver,
} from '../../core/resolver/index.ts';
import { CENSORED } from '../../core/system/index.ts';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { resolverKind } from '../../resolvers/index.ts';
import { assignments, audited, printJson, printTable, withContext } from '../common.ts';

interface SettingOptions {
  type: string;
  secret: string[];
  passwordStdin?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The setting names (aliases included) a resolver type seals. */
function secretNames(type: string): Set<string> {
  const out = new Set<string>();
  for (const [name, spec] of Object.entries(resolverKind(type).settings)) {
    if (spec.type !== 'password') continue;
    out.add(name);
    for (const alias of spec.aliases ?? []) out.add(alias);
  }
  return out;
}

/**
 * KEY=VALUE words as settings. Secrets never come from the command line (ps, shell history): a
 * secret is named as KEY=- or --secret KEY and read afterwards; a key that the type does not seal
 * is then stored sealed too. KEY=__CENSORED__ (keep the stored secret) and KEY= (remove it) pass.
 */
function settingsOf(words: string[], o: SettingOptions): { params: Record<string, string>; ask: string[] } {
  const secret = secretNames(o.type);
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
  const out: Record<string, string> = {};
  if (keys.length === 0) return out;
  if (fromStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
    keys.forEach((key, n) => {
      const line = lines[n] ?? '';
      if (line === '') {
        throw new ParameterError(
          `No value for ${key} on standard input (expected ${keys.length === 1 ? 'one line' : `${keys.length} lines: ${keys.join(', ')}`})`,
        );
      }
      out[key] = line;
    });
    return out;
  }
  if (!process.stdin.isTTY) {
    throw new ParameterError(`No terminal to ask for ${keys.join(', ')}: pipe it in with --password-stdin`);
  }
  const { default: promptPassword } = await import('@inquirer/password');
  for (const key of keys) {
    const value = await promptPassword({ message: `${key}:`, mask: '*' });
    if (value === '') throw new ParameterError(`No value entered for ${key}`);
    out[key] = value;
  }
  return out;
}

function settingsCell(view: ResolverView): string {
  return Object.entries(view.data)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');
}

function addSettingOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--type <type>', 'passwdresolver, ldapresolver, sqlresolver or scimresolver')
    .option('--secret <key>', 'a secret setting to ask for (repeatable); same as KEY=-', collect, [])
    .option('--password-stdin', 'read the secrets from standard input, one a line');
}

export function resolverCommand(): Command {
  const resolver = new Command('resolver').description('user stores (passwd file, LDAP, SQL, SCIM)');
  resolver
    .command('list')
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
  resolver
    .command('show <name>')
    .description('show the settings of one resolver (secrets censored)')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const view = Object.values(await withContext(cmd, (ctx) => getResolver(ctx, name)))[0];
      if (!view) throw new ResourceNotFoundError(`The resolver '${name}' does not exist`);
      if (o.json) return printJson(view);
      console.log(`${view.resolvername} (${view.type})`);
      printTable(['Setting', 'Value'], Object.entries(view.data));
    });
  addSettingOptions(
    resolver
      .command('set <name> [settings...]')
      .description(
        'create a resolver or change its settings (KEY=VALUE; KEY= removes a setting, KEY=- asks for a secret)',
      ),
  ).action(async (name: string, words: string[], o: SettingOptions, cmd: Command) => {
    const { params, ask } = settingsOf(words, o);
    Object.assign(params, await readSecrets(ask, o.passwordStdin === true));
    const saved = await withContext(cmd, (ctx) =>
      audited(ctx, 'resolver set', `${name} ${o.type}`, () => saveResolver(ctx, name, params), {
        resolver: name,
      }),
    );
    console.log(`Resolver '${saved.name}' ${saved.created ? 'created' : 'updated'}.`);
    for (const warning of saved.warnings) console.error(`warning: ${warning}`);
  });
  addSettingOptions(
    resolver
      .command('test [settings...]')
      .description('try settings without saving them (exit 1 when they do not work)')
      .option('--resolver <name>', 'start from the settings of this stored resolver (its secrets included)')
      .option('--json', 'print JSON'),
  ).action(
    async (words: string[], o: SettingOptions & { resolver?: string; json?: boolean }, cmd: Command) => {
      const { params, ask } = settingsOf(words, o);
      Object.assign(params, await readSecrets(ask, o.passwordStdin === true));
      if (o.resolver) params.resolver = o.resolver;
      const r = await withContext(cmd, (ctx) => testResolver(ctx, params));
      if (o.json) printJson(r);
      else console.log(r.description);
      // privacyIDEA's value: true/false, or for SQL the number of users found and -1 on failure.
      if (r.value === false || (typeof r.value === 'number' && r.value < 0)) process.exitCode = 1;
    },
  );
  resolver
    .command('delete <name>')
    .description('delete a resolver that is in no realm')
    .action(async (name: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(ctx, 'resolver delete', name, async () => {
          if ((await deleteResolver(ctx, name)) === -1) {
            throw new ResourceNotFoundError(`The resolver '${name}' does not exist`);
          }
        }),
      );
      console.log(`Resolver '${name}' deleted.`);
    });
  return resolver;
}
