// `authsrv authitem ssh`: the authentication items of GET /machine/authitem/ssh, printed as
// authorized_keys lines, for OpenSSH's AuthorizedKeysCommand (docs/machines.md).
import { Command } from 'commander';
import { authItems } from '../../core/machine/index.ts';
import { printJson, withContext } from '../common.ts';

export function authitemCommand(): Command {
  return new Command('authitem')
    .description('authentication items of the tokens attached to machines')
    .addCommand(sshCommand());
}

interface SshOptions {
  hostname?: string;
  serviceId?: string;
  user?: string;
  json?: boolean;
}

function sshCommand(): Command {
  return new Command('ssh')
    .description('the SSH public keys for a host or a service ID, one authorized_keys line each')
    .option('--hostname <name>', 'keys attached to the machine of this host name')
    .option('--service-id <name>', 'keys attached for this service ID (the host name is then not used)')
    .option('--user <login>', "only keys whose attachment's user option is LOGIN (sshd: %u)")
    .option('--json', 'print the items as JSON')
    .action(async (o: SshOptions, cmd: Command) => {
      const filter: Record<string, string> = {};
      if (o.user) filter.user = o.user;
      if (o.serviceId) filter.service_id = o.serviceId;
      const items = await withContext(cmd, (ctx) =>
        authItems(ctx, { application: 'ssh', hostname: o.hostname, filter }),
      );
      const ssh = items.ssh ?? [];
      if (o.json) return printJson(ssh);
      for (const item of ssh) console.log(String(item.sshkey));
    });
}
