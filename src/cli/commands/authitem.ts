// `authsrv authitem ssh|luks|offline`: the authentication items of GET /machine/authitem/<app>.
// ssh prints authorized_keys lines for OpenSSH's AuthorizedKeysCommand, luks the challenge and
// response for a LUKS key slot, offline the tokens attached for offline use (docs/machines.md).
import { Command } from 'commander';
import { authItems, effectiveOptions, listMachineTokens } from '../../core/machine/index.ts';
import { printJson, printTable, withContext } from '../common.ts';

export function authitemCommand(): Command {
  return new Command('authitem')
    .description('authentication items of the tokens attached to machines')
    .addCommand(sshCommand())
    .addCommand(luksCommand())
    .addCommand(offlineCommand());
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

interface LuksOptions {
  hostname?: string;
  challenge?: string;
  json?: boolean;
}

function luksCommand(): Command {
  return new Command('luks')
    .description('the challenge and HMAC response of each YubiKey attached to a host for LUKS')
    .option('--hostname <name>', 'tokens attached to the machine of this host name')
    .option('--challenge <hex>', 'the challenge (hexadecimal, at most 64 bytes); default 32 random bytes')
    .option('--json', 'print the items as JSON')
    .action(async (o: LuksOptions, cmd: Command) => {
      const filter: Record<string, string> = o.challenge ? { challenge: o.challenge } : {};
      const items = await withContext(cmd, (ctx) =>
        authItems(ctx, { application: 'luks', hostname: o.hostname, filter }),
      );
      const luks = items.luks ?? [];
      if (o.json) return printJson(luks);
      printTable(
        ['Serial', 'Slot', 'Partition', 'Challenge', 'Response'],
        luks.map((i) => [
          String(i.serial),
          String(i.slot),
          String(i.partition ?? ''),
          String(i.challenge),
          String(i.response),
        ]),
      );
    });
}

interface OfflineOptions {
  serial?: string;
  json?: boolean;
}

/**
 * The offline attachments with their effective count and rounds: what a successful login with
 * each token hands out (the hashed values themselves come only with /validate/check).
 */
function offlineCommand(): Command {
  return new Command('offline')
    .description('the tokens attached for offline use, with the count and rounds a login hands out')
    .option('--serial <serial>', 'only this token (* as a wildcard)')
    .option('--json', 'print the attachments as JSON')
    .action(async (o: OfflineOptions, cmd: Command) => {
      const rows = await withContext(cmd, (ctx) =>
        listMachineTokens(ctx, { application: 'offline', ...(o.serial ? { serial: o.serial } : {}) }),
      );
      const items = rows.map((r) => ({
        id: r.id,
        serial: r.serial,
        options: effectiveOptions('offline', r.options),
      }));
      if (o.json) return printJson(items);
      printTable(
        ['Id', 'Serial', 'Count', 'Rounds'],
        items.map((i) => [i.id, i.serial, i.options.count ?? '', i.options.rounds ?? '']),
      );
    });
}
