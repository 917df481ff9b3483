// `authsrv radius`: authsrv's own RADIUS server. `radius client add|list|delete` manages its
// clients (the NAS devices, /radiusclient/) with the same services and error messages. The secret
// never comes from the command line (ps, shell history): a hidden prompt on a terminal, or the
// first line of standard input with --secret-stdin. add and delete write an audit row.
import { Command } from 'commander';
import { deleteRadiusClient, listRadiusClients, setRadiusClient } from '../../core/radiusclient/index.ts';
import { printJson, printTable, promptHidden, readStdinLine, runAudited, withContext } from '../common.ts';

export function radiusCommand(): Command {
  return new Command('radius')
    .description("authsrv's own RADIUS server (radius.listen): its clients, the NAS devices")
    .addCommand(clientCommand());
}

function clientCommand(): Command {
  return new Command('client')
    .description('RADIUS clients: the NAS devices (VPN, firewall, Wi-Fi) allowed to ask authsrv')
    .addCommand(listCommand())
    .addCommand(addCommand())
    .addCommand(deleteCommand());
}

function listCommand(): Command {
  return new Command('list')
    .argument('[name]')
    .description('list RADIUS clients (secrets censored; NAME: only that one)')
    .option('--json', 'print JSON')
    .action(async (name: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listRadiusClients(ctx, name || undefined));
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Address', 'Message-Authenticator', 'Description'],
        Object.entries(all).map(([n, v]) => [
          n,
          v.address,
          v.require_message_authenticator ? 'required' : 'optional',
          v.description,
        ]),
      );
    });
}

interface AddOptions {
  address?: string;
  description?: string;
  secretStdin?: boolean;
  messageAuthenticator?: boolean;
  json?: boolean;
}

function addCommand(): Command {
  return new Command('add')
    .argument('<name>')
    .description(
      'add a RADIUS client, or replace one (the secret is always asked; a missing --address keeps the stored one)',
    )
    .option('--address <cidr>', 'IPv4/IPv6 address or subnet in CIDR notation (required for a new client)')
    .option('--description <text>', 'description')
    .option('--secret-stdin', 'read the shared secret from the first line of standard input')
    .option(
      '--no-message-authenticator',
      'accept requests without Message-Authenticator (only for old devices: BlastRADIUS, CVE-2024-3596)',
    )
    .option('--json', 'print the saved client as JSON')
    .action(async (name: string, o: AddOptions, cmd: Command) => {
      const secret = o.secretStdin
        ? await readStdinLine()
        : await promptHidden('Secret:', 'No terminal to ask for the secret: pipe it in with --secret-stdin');
      const saved = await runAudited(cmd, { command: 'radius client add', detail: name }, async (ctx) => {
        await setRadiusClient(ctx, name, {
          address: o.address,
          secret,
          description: o.description,
          require_message_authenticator: o.messageAuthenticator !== false,
        });
        return listRadiusClients(ctx, name);
      });
      if (o.json) return printJson(saved);
      console.log(`RADIUS client '${name}' saved.`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete a RADIUS client')
    .option('--json', 'print {"deleted": NAME}')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      await runAudited(cmd, { command: 'radius client delete', detail: name }, (ctx) =>
        deleteRadiusClient(ctx, name),
      );
      if (o.json) return printJson({ deleted: name });
      console.log(`RADIUS client '${name}' deleted.`);
    });
}
