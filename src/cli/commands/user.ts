// `authsrv user`: the users of the realms and resolvers, editing users of editable resolvers, and
// the custom attributes authsrv keeps for them. Passwords never come from the command line.
import { Command } from 'commander';
import {
  createUser,
  deleteUser,
  deleteUserAttribute,
  getUserAttributes,
  listUsers,
  setUserAttribute,
  targetUser,
  type UserChanges,
  updateUser,
  userChanges,
} from '../../core/user/index.ts';
import { ParameterError } from '../../errors.ts';
import {
  assignments,
  cellText,
  notBoth,
  printJson,
  printTable,
  readNewPassword,
  runAudited,
  withContext,
} from '../common.ts';

export function userCommand(): Command {
  return new Command('user')
    .description('users of the realms and resolvers')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(addCommand())
    .addCommand(editCommand())
    .addCommand(deleteCommand())
    .addCommand(attributeCommand());
}

function attributeCommand(): Command {
  return new Command('attr')
    .description('custom user attributes kept by authsrv')
    .addCommand(attributeListCommand())
    .addCommand(attributeSetCommand())
    .addCommand(attributeDeleteCommand());
}

const realmOption = [
  '--realm <realm>',
  'the realm (default: the part after @, or the default realm)',
] as const;

/** The audit row of a change of a user in a resolver. */
const editAction = (verb: string, name: string, resolver: string) => ({
  command: `user ${verb}`,
  detail: `${name} ${resolver}`,
  fields: { user: name, resolver },
});

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

function listCommand(): Command {
  return new Command('list')
    .argument('[search...]')
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
            [u.username, u.resolver, u.givenname, u.surname, u.email, u.phone, u.mobile].map(cellText),
          ),
        );
      },
    );
}

function showCommand(): Command {
  return new Command('show')
    .argument('<user>')
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
          ...Object.entries(u.info).map(([k, v]) => [k, cellText(v)]),
          ['realm', u.realm],
          ['resolver', u.resolver],
        ],
      );
      if (Object.keys(attributes).length > 0)
        printTable(['Custom attribute', 'Value'], Object.entries(attributes));
    });
}

const NO_TERMINAL_FOR_ADD =
  'No terminal to ask for a password: pipe it in with --password-stdin, or use --no-password';

interface AddOptions {
  resolver: string;
  passwordStdin?: boolean;
  password: boolean;
}

function addCommand(): Command {
  return new Command('add')
    .argument('<user>')
    .argument('[fields...]')
    .description('create a user in an editable resolver (fields: FIELD=VALUE, e.g. email=alice@example.com)')
    .requiredOption('--resolver <resolver>', 'the editable resolver')
    .option('--password-stdin', 'read the password from standard input')
    .option('--no-password', 'create the user without a password')
    .action(async (name: string, words: string[], o: AddOptions, cmd: Command) => {
      const changes = changesOf(words);
      notBoth(o.passwordStdin, !o.password, '--password-stdin', '--no-password');
      const password =
        o.passwordStdin || o.password
          ? await readNewPassword(o.passwordStdin === true, NO_TERMINAL_FOR_ADD)
          : undefined;
      const userid = await runAudited(cmd, editAction('add', name, o.resolver), (ctx) =>
        createUser(ctx, o.resolver, name, changes, password),
      );
      console.log(`User '${name}' created in resolver '${o.resolver}' (userid ${userid}).`);
    });
}

interface EditOptions {
  resolver: string;
  password?: boolean;
  passwordStdin?: boolean;
}

function editCommand(): Command {
  return new Command('edit')
    .argument('<user>')
    .argument('[fields...]')
    .description('change a user of an editable resolver (fields: FIELD=VALUE; FIELD= clears one)')
    .requiredOption('--resolver <resolver>', 'the editable resolver')
    .option('--password', 'ask for a new password')
    .option('--password-stdin', 'read a new password from standard input')
    .action(async (name: string, words: string[], o: EditOptions, cmd: Command) => {
      const changes = changesOf(words);
      notBoth(o.password, o.passwordStdin, '--password', '--password-stdin');
      if (Object.keys(changes).length === 0 && !o.password && !o.passwordStdin) {
        throw new ParameterError('Nothing to change: give FIELD=VALUE, --password or --password-stdin');
      }
      const password =
        o.password || o.passwordStdin ? await readNewPassword(o.passwordStdin === true) : undefined;
      await runAudited(cmd, editAction('edit', name, o.resolver), (ctx) =>
        updateUser(ctx, o.resolver, name, changes, password),
      );
      console.log(`User '${name}' of resolver '${o.resolver}' changed.`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<user>')
    .description('delete a user from an editable resolver')
    .requiredOption('--resolver <resolver>', 'the editable resolver')
    .action(async (name: string, o: { resolver: string }, cmd: Command) => {
      await runAudited(cmd, editAction('delete', name, o.resolver), (ctx) =>
        deleteUser(ctx, o.resolver, name),
      );
      console.log(`User '${name}' deleted from resolver '${o.resolver}'.`);
    });
}

function attributeListCommand(): Command {
  return new Command('list')
    .argument('<user>')
    .argument('[key]')
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
}

function attributeSetCommand(): Command {
  return new Command('set')
    .argument('<user>')
    .argument('<key>')
    .argument('<value>')
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
        const action = { command: 'user attr set', detail: `${name} ${key}` };
        const who = await runAudited(cmd, action, async (ctx) => {
          const u = await targetUser(ctx, { user: name, realm: o.realm });
          await setUserAttribute(ctx, u, key, value, o.type);
          return `${u.login}@${u.realm}`;
        });
        console.log(`Attribute '${key}' of ${who} set.`);
      },
    );
}

function attributeDeleteCommand(): Command {
  return new Command('delete')
    .argument('<user>')
    .argument('<key>')
    .description('delete a custom attribute of a user')
    .option(...realmOption)
    .action(async (name: string, key: string, o: { realm?: string }, cmd: Command) => {
      const action = { command: 'user attr delete', detail: `${name} ${key}` };
      const who = await runAudited(cmd, action, async (ctx) => {
        const u = await targetUser(ctx, { user: name, realm: o.realm });
        if ((await deleteUserAttribute(ctx, key, u.login, u.realm)) === 0) {
          throw new ParameterError(`The attribute '${key}' is not set for ${u.login}@${u.realm}`);
        }
        return `${u.login}@${u.realm}`;
      });
      console.log(`Attribute '${key}' of ${who} deleted.`);
    });
}
