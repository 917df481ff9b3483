// `authsrv smtpserver list|set|delete|test`: the SMTP server definitions of /smtpserver/ (reference
// 8.3) with the same services and messages. The password never comes from the command line (ps,
// shell history): --ask-password prompts for it hidden, --password-stdin reads it from standard
// input; left out, the stored one is kept (under the destination rule of the service).
import { Command } from 'commander';
import {
  deleteSmtpServer,
  listSmtpServers,
  type SmtpServerView,
  saveSmtpServer,
  testSmtpServer,
} from '../../core/smtpserver/index.ts';
import {
  notBoth,
  printJson,
  printTable,
  promptHidden,
  readStdinLine,
  readTextFile,
  runAudited,
  withContext,
} from '../common.ts';

export function smtpserverCommand(): Command {
  return new Command('smtpserver')
    .description('SMTP server definitions (the e-mail token and notifications send through them)')
    .addCommand(listCommand())
    .addCommand(withFieldOptions(setCommand()))
    .addCommand(deleteCommand())
    .addCommand(withFieldOptions(testCommand()));
}

interface FieldOptions {
  server?: string;
  port?: string;
  username?: string;
  sender?: string;
  tls?: boolean;
  timeout?: string;
  description?: string;
  caFile?: string;
  askPassword?: boolean;
  passwordStdin?: boolean;
}

/** The options that give a definition's fields, for set and test. */
function withFieldOptions(cmd: Command): Command {
  return cmd
    .option('--server <host>', 'host name or IP address of the SMTP server')
    .option('--port <port>', 'port (25 by default; 465 is implicit TLS)')
    .option('--username <name>', 'account to authenticate with (empty: none)')
    .option('--ask-password', 'ask for the password at a hidden prompt')
    .option('--password-stdin', 'read the password from the first line of standard input')
    .option('--sender <address>', 'the From address')
    .option('--tls', 'require STARTTLS')
    .option('--no-tls', 'plain SMTP (no STARTTLS)')
    .option('--timeout <seconds>', 'how long to wait for the server (10 by default)')
    .option('--description <text>', 'a description')
    .option('--ca-file <file>', 'PEM CA certificate(s) to verify the server with (default: the system CAs)');
}

/** The fields the options give, the password read last (prompt or stdin). */
async function fieldsOf(o: FieldOptions): Promise<Record<string, string>> {
  notBoth(o.askPassword, o.passwordStdin, '--ask-password', '--password-stdin');
  const out: Record<string, string> = {};
  for (const key of ['server', 'port', 'username', 'sender', 'timeout', 'description'] as const) {
    const value = o[key];
    if (value !== undefined) out[key] = value;
  }
  if (o.tls !== undefined) out.tls = o.tls ? 'True' : 'False';
  if (o.caFile !== undefined) out.cacertificate = o.caFile === '' ? '' : readTextFile(o.caFile);
  if (o.passwordStdin) out.password = await readStdinLine();
  else if (o.askPassword)
    out.password = await promptHidden(
      'SMTP password:',
      'No terminal to ask for the password: use --password-stdin',
    );
  return out;
}

function listCommand(): Command {
  return new Command('list')
    .argument('[identifier]', 'only this definition')
    .description('list the SMTP server definitions (password censored)')
    .option('--json', 'print JSON (the answer of GET /smtpserver/)')
    .action(async (identifier: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listSmtpServers(ctx, identifier));
      if (o.json) return printJson(all);
      printTable(
        ['Identifier', 'Server', 'Port', 'TLS', 'Username', 'Password', 'Sender', 'Timeout', 'Description'],
        Object.entries(all).map(([id, v]: [string, SmtpServerView]) => [
          id,
          v.server,
          v.port,
          v.tls ? 'yes' : 'no',
          v.username,
          v.password,
          v.sender,
          v.timeout,
          v.description,
        ]),
      );
    });
}

function setCommand(): Command {
  return new Command('set')
    .argument('<identifier>')
    .description('create an SMTP server definition or change the fields given (the others are kept)')
    .option('--json', 'print {"identifier", "created"}')
    .action(async (identifier: string, o: FieldOptions & { json?: boolean }, cmd: Command) => {
      const fields = await fieldsOf(o);
      const action = { command: 'smtpserver set', detail: identifier };
      const saved = await runAudited(cmd, action, (ctx) => saveSmtpServer(ctx, identifier, fields));
      if (o.json) return printJson(saved);
      console.log(`SMTP server '${identifier}' ${saved.created ? 'created' : 'updated'}.`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<identifier>')
    .description('delete an SMTP server definition')
    .option('--json', 'print {"deleted": IDENTIFIER}')
    .action(async (identifier: string, o: { json?: boolean }, cmd: Command) => {
      const action = { command: 'smtpserver delete', detail: identifier };
      await runAudited(cmd, action, (ctx) => deleteSmtpServer(ctx, identifier));
      if (o.json) return printJson({ deleted: identifier });
      console.log(`SMTP server '${identifier}' deleted.`);
    });
}

function testCommand(): Command {
  return new Command('test')
    .argument(
      '[identifier]',
      'start from this stored definition (its password included, for the same server)',
    )
    .requiredOption('--recipient <address>', 'where the test mail goes')
    .description('send a test mail (exit 1 when it cannot be sent, with the reason)')
    .option('--json', 'print {"value", "description"}')
    .action(
      async (
        identifier: string | undefined,
        o: FieldOptions & { recipient: string; json?: boolean },
        cmd: Command,
      ) => {
        const params = {
          ...(await fieldsOf(o)),
          recipient: o.recipient,
          ...(identifier ? { identifier } : {}),
        };
        const t = await withContext(cmd, (ctx) => testSmtpServer(ctx, params));
        if (o.json) printJson(t);
        else console.log(t.description);
        if (!t.value) process.exitCode = 1;
      },
    );
}
