// `authsrv radiusserver`: the RADIUS server definitions of /radiusserver/ (reference 8.4) with the
// same services and error messages. The secret and the test password never come from the command
// line (ps, shell history): a hidden prompt on a terminal, or the first line of standard input
// with --password-stdin. set, delete and test write an audit row.
import { Command } from 'commander';
import {
  deleteRadiusServer,
  listRadiusServers,
  setRadiusServer,
  testRadiusRequest,
} from '../../core/radiusserver/index.ts';
import { printJson, printTable, promptHidden, readStdinLine, runAudited, withContext } from '../common.ts';

export function radiusserverCommand(): Command {
  return new Command('radiusserver')
    .description('RADIUS server definitions: where radius tokens and passthru send their requests')
    .addCommand(listCommand())
    .addCommand(setCommand())
    .addCommand(deleteCommand())
    .addCommand(testCommand());
}

const NO_TERMINAL = 'No terminal to ask for the secret: pipe it in with --password-stdin';

/** A secret from the hidden prompt, or the first line of stdin. */
async function readSecret(label: string, fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdinLine();
  return promptHidden(`${label}:`, NO_TERMINAL.replace('the secret', `the ${label.toLowerCase()}`));
}

function listCommand(): Command {
  return new Command('list')
    .argument('[identifier]')
    .description('list RADIUS server definitions (secrets censored; IDENTIFIER: only that one)')
    .option('--json', 'print JSON')
    .action(async (identifier: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listRadiusServers(ctx, identifier || undefined));
      if (o.json) return printJson(all);
      printTable(
        ['Identifier', 'Server', 'Port', 'Timeout', 'Retries', 'Description'],
        Object.entries(all).map(([id, v]) => [id, v.server, v.port, v.timeout, v.retries, v.description]),
      );
    });
}

interface SetOptions {
  server?: string;
  port?: string;
  timeout?: string;
  retries?: string;
  description?: string;
  secret?: boolean;
  passwordStdin?: boolean;
  json?: boolean;
}

function setCommand(): Command {
  return new Command('set')
    .argument('<identifier>')
    .description('create a RADIUS server definition or change it (what is not given is kept)')
    .option('--server <host>', 'host name or address (required for a new definition)')
    .option('--port <port>', 'UDP port (default 1812)')
    .option('--timeout <seconds>', 'seconds to wait for an answer to each try (default 5)')
    .option('--retries <n>', 'retransmissions after the first try (default 3)')
    .option('--description <text>', 'description')
    .option(
      '--secret',
      'ask for the shared secret (required for a new definition, or with a new server or port)',
    )
    .option('--password-stdin', 'read the shared secret from the first line of standard input')
    .option('--json', 'print the saved definition as JSON')
    .action(async (identifier: string, o: SetOptions, cmd: Command) => {
      const secret =
        o.secret || o.passwordStdin ? await readSecret('Secret', o.passwordStdin === true) : undefined;
      const saved = await runAudited(
        cmd,
        { command: 'radiusserver set', detail: identifier },
        async (ctx) => {
          await setRadiusServer(ctx, identifier, {
            server: o.server,
            port: o.port,
            timeout: o.timeout,
            retries: o.retries,
            description: o.description,
            secret,
          });
          return listRadiusServers(ctx, identifier);
        },
      );
      if (o.json) return printJson(saved);
      console.log(`RADIUS server '${identifier}' saved.`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<identifier>')
    .description('delete a RADIUS server definition')
    .option('--json', 'print {"deleted": IDENTIFIER}')
    .action(async (identifier: string, o: { json?: boolean }, cmd: Command) => {
      await runAudited(cmd, { command: 'radiusserver delete', detail: identifier }, (ctx) =>
        deleteRadiusServer(ctx, identifier),
      );
      if (o.json) return printJson({ deleted: identifier });
      console.log(`RADIUS server '${identifier}' deleted.`);
    });
}

function testCommand(): Command {
  return new Command('test')
    .argument('<identifier>')
    .description('send an Access-Request through a stored definition (exit 1 unless it is accepted)')
    .requiredOption('--username <name>', 'the user name to send')
    .option('--password-stdin', 'read the password from the first line of standard input')
    .option('--json', 'print JSON')
    .action(
      async (
        identifier: string,
        o: { username: string; passwordStdin?: boolean; json?: boolean },
        cmd: Command,
      ) => {
        const password = await readSecret('Password', o.passwordStdin === true);
        const result = await runAudited(
          cmd,
          { command: 'radiusserver test', detail: identifier },
          (ctx) => testRadiusRequest(ctx, { identifier, username: o.username, password }),
          (r) => ({ success: r.value }),
        );
        if (o.json) printJson({ value: result.value, description: result.description });
        else console.log(`${result.value ? 'Accepted' : 'Not accepted'}: ${result.description}`);
        if (!result.value) process.exitCode = 1;
      },
    );
}
