// `authsrv admin`: the local administrators who log in to the API and the web UI.
import { Command } from 'commander';
import { addAdmin, deleteAdmin, endSessions, listAdmins, setAdminPassword } from '../../core/auth/index.ts';
import { printJson, printTable, readNewPassword, runAudited, withContext } from '../common.ts';

export function adminCommand(): Command {
  return new Command('admin')
    .description('manage local administrators')
    .addCommand(addCommand())
    .addCommand(listCommand())
    .addCommand(deleteCommand())
    .addCommand(passwdCommand())
    .addCommand(logoutCommand());
}

function addCommand(): Command {
  return new Command('add')
    .argument('<name>')
    .description('create an administrator (asks for the password)')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (name: string, o: { passwordStdin?: boolean }, cmd: Command) => {
      const password = await readNewPassword(o.passwordStdin === true);
      await runAudited(cmd, { command: 'admin add', detail: name }, (ctx) => addAdmin(ctx, name, password));
      console.log(`Administrator '${name}' created.`);
    });
}

function listCommand(): Command {
  return new Command('list')
    .description('list administrators')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const admins = await withContext(cmd, (ctx) => listAdmins(ctx));
      if (o.json) return printJson(admins);
      printTable(
        ['Name', 'Created'],
        admins.map((a) => [a.name, a.createdAt]),
      );
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete an administrator')
    .action(async (name: string, _o, cmd: Command) => {
      await runAudited(cmd, { command: 'admin delete', detail: name }, (ctx) => deleteAdmin(ctx, name));
      console.log(`Administrator '${name}' deleted.`);
    });
}

function passwdCommand(): Command {
  return new Command('passwd')
    .argument('<name>')
    .description("change an administrator's password")
    .option('--password-stdin', 'read the password from standard input')
    .action(async (name: string, o: { passwordStdin?: boolean }, cmd: Command) => {
      const password = await readNewPassword(o.passwordStdin === true);
      await runAudited(cmd, { command: 'admin passwd', detail: name }, (ctx) =>
        setAdminPassword(ctx, name, password),
      );
      console.log(`Password of '${name}' changed.`);
    });
}

function logoutCommand(): Command {
  return new Command('logout')
    .argument('<name>')
    .description(
      'end every session (JWT) of a local administrator, or with --realm of a realm user (administrator or user)',
    )
    .option('--realm <realm>', 'the realm of the user (an administrator of a superuser realm or a user)')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { realm?: string; json?: boolean }, cmd: Command) => {
      const fields = o.realm ? { user: name, realm: o.realm } : {};
      const ended = await runAudited(
        cmd,
        { command: 'admin logout', detail: name, fields },
        (ctx) => endSessions(ctx, name, o.realm),
        (e) => (e.realm ? { realm: e.realm } : {}),
      );
      if (o.json) return printJson(ended);
      const who = ended.realm ? `${ended.name}@${ended.realm}` : `'${ended.name}'`;
      console.log(`Sessions of ${who} ended: tokens issued before ${ended.validAfter} are refused.`);
    });
}
