import { Command } from 'commander';
import { addAdmin, deleteAdmin, listAdmins, setAdminPassword } from '../../core/auth/index.ts';
import { audited, printJson, printTable, readNewPassword, withContext } from '../common.ts';

export function adminCommand(): Command {
  const admin = new Command('admin').description('manage local administrators');
  admin
    .command('add <name>')
    .description('create an administrator (asks for the password)')
    .option('--password-stdin', 'read the password from standard input')
    .action(async (name: string, o: { passwordStdin?: boolean }, cmd: Command) => {
      const password = await readNewPassword(o.passwordStdin === true);
      await withContext(cmd, (ctx) => audited(ctx, 'admin add', name, () => addAdmin(ctx, name, password)));
      console.log(`Administrator '${name}' created.`);
    });
  admin
    .command('list')
    .description('list administrators')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const admins = await withContext(cmd, (ctx) => listAdmins(ctx));
      if (o.json) printJson(admins);
      else
        printTable(
          ['Name', 'Created'],
          admins.map((a) => [a.name, a.createdAt]),
        );
    });
  admin
    .command('delete <name>')
    .description('delete an administrator')
    .action(async (name: string, _o, cmd: Command) => {
      await withContext(cmd, (ctx) => audited(ctx, 'admin delete', name, () => deleteAdmin(ctx, name)));
      console.log(`Administrator '${name}' deleted.`);
    });
  admin
    .command('passwd <name>')
    .description("change an administrator's password")
    .option('--password-stdin', 'read the password from standard input')
    .action(async (name: string, o: { passwordStdin?: boolean }, cmd: Command) => {
      const password = await readNewPassword(o.passwordStdin === true);
      await withContext(cmd, (ctx) =>
        audited(ctx, 'admin passwd', name, () => setAdminPassword(ctx, name, password)),
      );
      console.log(`Password of '${name}' changed.`);
    });
  return admin;
}
