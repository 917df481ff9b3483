import { Command } from 'commander';
import {
  createUser,
  deleteUser,
  deleteUserAttribute,
  getUserAttributes,
  listUsers,
  setUserAttribute,
  targetUser,
  updateUser,
  userChanges,
} from '../../core/user/index.ts';
import { ParameterError } from '../../errors.ts';
import type { UserChanges } from '../../resolvers/index.ts';
import {
  assignments,
  audited,
  printJson,
  printTable,
  readNewPassword,
  readStdinLine,
  withContext,
} from '../common.ts';

/** FIELD=VALUE words, e.g. `email=*@example.com` or `givenname=Alice`. */
const fieldsOf = (words: string[]) => assignments(words, 'FIELD=VALUE');

/** User attributes to write; the password never comes from the command line (ps, shell history). */
function changesOf(words: string[]): UserChanges {
  const fields = fieldsOf(words);
  const changes = userChanges(fields);
  for (const key of Object.keys(fields)) {
    if (key === 'password') {
      throw new ParameterError(
        'The password is not given as a field: type it at the prompt or use --password-stdin',
      );
    }
    if (!(key in changes)) throw new ParameterError(`'${key}' cannot be set as a field`);
  }
  return changes;
}

const text = (v: unknown) => (Array.isArray(v) ? v.join(', ') : String(v ?? ''));

const realmOption = [
  '--realm <realm>',
  'the realm (default: the part after @, or the default realm)',
] as const;

export function userCommand(): Command {
  const user = new Command('user').description('users of the realms and resolvers');
  user
    .command('list [search...]')
    .description('list users (search: FIELD=PATTERN with * wildcards, e.g. username=a* email=*@example.com)')
    .option('--realm <realm>', 'only users of this realm')
    .option('--resolver <resolver>', 'only users of this resolver')
    .option('--json', 'print JSON')
    .action(
      async (words: string[], o: { realm?: string; resolver?: string; json?: boolean }, cmd: Command) => {
        const search = fieldsOf(words);
        const users = await withContext(cmd, (ctx) =>
          listUsers(ctx, { realm: o.realm, resolver: o.resolver, search }),
        );
        if (o.json) return printJson(users);
        printTable(
          ['Username', 'Resolver', 'Given name', 'Surname', 'Email', 'Phone', 'Mobile'],
          users.map((u) =>
            [u.username, u.resolver, u.givenname, u.surname, u.email, u.phone, u.mobile].map(text),
          ),
        );
      },
    );
  user
    .command('show <user>')
    .description('show a user (USER or USER@REALM) with the custom attributes')
    .option(...realmOption)
    .option('--json', 'print JSON')
    .action(async (name: string, o: { realm?: string; json?: boolean }, cmd: Command) => {
      const { u, attributes } = await withContext(cmd, async (ctx) => {
        const u = await targetUser(ctx, { user: name, realm: o.realm });
        return { u, attributes: (await getUserAttributes(ctx, u, undefined)) as Record<string, string> };
      });
      if (o.json) {
        return printJson({ ...u.info, realm: u.realm, resolver: u.resolver, custom_attributes: attributes });
      }
      printTable(
        ['Attribute', 'Value'],
        [
          ...Object.entries(u.info).map(([k, v]) => [k, text(v)]),
          ['realm', u.realm],
          ['resolver', u.resolver],
        ],
      );
      if (Object.keys(attributes).length > 0)
        printTable(['Custom attribute', 'Value'], Object.entries(attributes));
    });
  user
    .command('add <user> [fields...]')
    .description('create a user in an editable resolver (fields: FIELD=VALUE, e.g. email=alice@example.com)')
    .requiredOption('--resolver <resolver>', 'the editable resolver')
    .option('--password-stdin', 'read the password from standard input')
    .option('--no-password', 'create the user without a password')
    .action(
      async (
        name: string,
        words: string[],
        o: { resolver: string; passwordStdin?: boolean; password: boolean },
        cmd: Command,
      ) => {
        const changes = changesOf(words);
        if (!o.password && o.passwordStdin)
          throw new ParameterError('Give --password-stdin or --no-password, not both');
        let password: string | undefined;
        if (o.passwordStdin) password = await readStdinLine();
        else if (o.password) {
          if (!process.stdin.isTTY) {
            throw new ParameterError(
              'No terminal to ask for a password: pipe it in with --password-stdin, or use --no-password',
            );
          }
          password = await readNewPassword(false);
        }
        const userid = await withContext(cmd, (ctx) =>
          audited(
            ctx,
            'user add',
            `${name} ${o.resolver}`,
            () => createUser(ctx, o.resolver, name, changes, password),
            { user: name, resolver: o.resolver },
          ),
        );
        console.log(`User '${name}' created in resolver '${o.resolver}' (userid ${userid}).`);
      },
    );
  user
    .command('edit <user> [fields...]')
    .description('change a user of an editable resolver (fields: FIELD=VALUE; FIELD= clears one)')
    .requiredOption('--resolver <resolver>', 'the editable resolver')
    .option('--password', 'ask for a new password')
    .option('--password-stdin', 'read a new password from standard input')
    .action(
      async (
        name: string,
        words: string[],
        o: { resolver: string; password?: boolean; passwordStdin?: boolean },
        cmd: Command,
      ) => {
        const changes = changesOf(words);
        if (o.password && o.passwordStdin)
          throw new ParameterError('Give --password or --password-stdin, not both');
        if (Object.keys(changes).length === 0 && !o.password && !o.passwordStdin) {
          throw new ParameterError('Nothing to change: give FIELD=VALUE, --password or --password-stdin');
        }
        const password =
          o.password || o.passwordStdin ? await readNewPassword(o.passwordStdin === true) : undefined;
        await withContext(cmd, (ctx) =>
          audited(
            ctx,
            'user edit',
            `${name} ${o.resolver}`,
            () => updateUser(ctx, o.resolver, name, changes, password),
            { user: name, resolver: o.resolver },
          ),
        );
        console.log(`User '${name}' of resolver '${o.resolver}' changed.`);
      },
    );
  user
    .command('delete <user>')
    .description('delete a user from an editable resolver')
    .requiredOption('--resolver <resolver>', 'the editable resolver')
    .action(async (name: string, o: { resolver: string }, cmd: Command) => {
      await withContext(cmd, (ctx) =>
        audited(ctx, 'user delete', `${name} ${o.resolver}`, () => deleteUser(ctx, o.resolver, name), {
          user: name,
          resolver: o.resolver,
        }),
      );
      console.log(`User '${name}' deleted from resolver '${o.resolver}'.`);
    });
  user.addCommand(attributeCommand());
  return user;
}

function attributeCommand(): Command {
  const attr = new Command('attr').description('custom user attributes kept by authsrv');
  attr
    .command('list <user> [key]')
    .description('show the custom attributes of a user (USER or USER@REALM), or one of them')
    .option(...realmOption)
    .option('--json', 'print JSON')
    .action(
      async (name: string, key: string | undefined, o: { realm?: string; json?: boolean }, cmd: Command) => {
        const value = await withContext(cmd, async (ctx) =>
          getUserAttributes(ctx, await targetUser(ctx, { user: name, realm: o.realm }), key),
        );
        if (o.json) return printJson(value);
        if (key === undefined) printTable(['Key', 'Value'], Object.entries(value as Record<string, string>));
        else if (value === null) throw new ParameterError(`The attribute '${key}' is not set for ${name}`);
        else console.log(value);
      },
    );
  attr
    .command('set <user> <key> <value>')
    .description('set a custom attribute of a user')
    .option(...realmOption)
    .option('--type <type>', 'a type noted with the value')
    .action(
      async (
        name: string,
        key: string,
        value: string,
        o: { realm?: string; type?: string },
        cmd: Command,
      ) => {
        const who = await withContext(cmd, (ctx) =>
          audited(ctx, 'user attr set', `${name} ${key}`, async () => {
            const u = await targetUser(ctx, { user: name, realm: o.realm });
            await setUserAttribute(ctx, u, key, value, o.type);
            return `${u.login}@${u.realm}`;
          }),
        );
        console.log(`Attribute '${key}' of ${who} set.`);
      },
    );
  attr
    .command('delete <user> <key>')
    .description('delete a custom attribute of a user')
    .option(...realmOption)
    .action(async (name: string, key: string, o: { realm?: string }, cmd: Command) => {
      const who = await withContext(cmd, (ctx) =>
        audited(ctx, 'user attr delete', `${name} ${key}`, async () => {
          const u = await targetUser(ctx, { user: name, realm: o.realm });
          if ((await deleteUserAttribute(ctx, key, u.login, u.realm)) === 0) {
            throw new ParameterError(`The attribute '${key}' is not set for ${u.login}@${u.realm}`);
          }
          return `${u.login}@${u.realm}`;
        }),
      );
      console.log(`Attribute '${key}' of ${who} deleted.`);
    });
  return attr;
}
