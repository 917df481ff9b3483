// `authsrv smsgateway`: the SMS gateway definitions of /smsgateway/ (list, set, delete), the
// providers with their parameters, and `test`, which sends a message through a gateway and exits 1
// when it was not sent. Secrets (options and headers whose key holds PASSWORD or SECRET, the
// Authorization header) never come from the command line: KEY=- or --secret KEY asks for them, or
// --password-stdin reads them, one a line. set and delete and test write an audit row.
import { Command } from 'commander';
import {
  deleteSmsGateway,
  isSmsGatewaySecret,
  listSmsGateways,
  type SmsGatewayView,
  saveSmsGateway,
  sendSms,
  smsProviders,
} from '../../core/smsgateway/index.ts';
import { CENSORED } from '../../core/system/index.ts';
import { ParameterError, ResourceNotFoundError } from '../../errors.ts';
import { assignments, printJson, printTable, runAudited, withContext } from '../common.ts';
import { readSecrets } from '../settings-commands.ts';

export function smsgatewayCommand(): Command {
  return new Command('smsgateway')
    .description('SMS gateways: where SMS one-time codes are sent (HTTP, SMPP, script)')
    .addCommand(listCommand())
    .addCommand(providersCommand())
    .addCommand(setCommand())
    .addCommand(deleteCommand())
    .addCommand(testCommand());
}

function entriesCell(view: SmsGatewayView): string {
  return [
    ...Object.entries(view.options).map(([k, v]) => `${k}=${v}`),
    ...Object.entries(view.headers).map(([k, v]) => `header.${k}=${v}`),
  ].join('\n');
}

function listCommand(): Command {
  return new Command('list')
    .argument('[name]', 'only the gateway of this name (or id)')
    .description('list SMS gateways with their options and headers (secrets censored)')
    .option('--json', 'print JSON (as GET /smsgateway/)')
    .action(async (name: string | undefined, o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => listSmsGateways(ctx, name));
      if (name !== undefined && all.length === 0)
        throw new ResourceNotFoundError(`There is no SMS gateway ${name}`);
      if (o.json) return printJson(all);
      printTable(
        ['Id', 'Name', 'Provider', 'Description', 'Options and headers'],
        all.map((g) => [g.id, g.name, g.providermodule, g.description, entriesCell(g)]),
      );
    });
}

function providersCommand(): Command {
  return new Command('providers')
    .description('list the SMS providers with their parameters (* required)')
    .option('--json', 'print JSON (as GET /smsgateway/providers)')
    .action((o: { json?: boolean }) => {
      const providers = smsProviders();
      if (o.json) return printJson(providers);
      const rows: string[][] = [];
      for (const [module, p] of Object.entries(providers)) {
        for (const [name, spec] of Object.entries(p.parameters)) {
          const values = spec.values ? ` (${spec.values.join('/')})` : '';
          rows.push([module, `${name}${spec.required ? '*' : ''}`, `${spec.description}${values}`]);
        }
        if (p.options_allowed)
          rows.push([module, '<any other>', 'sent as a request parameter, {otp} and {phone} replaced']);
      }
      printTable(['Provider', 'Parameter', 'Description'], rows);
    });
}

interface SetOptions {
  module?: string;
  description?: string;
  secret: string[];
  passwordStdin?: boolean;
  replace?: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `header.NAME` is a header, `option.KEY` or a bare KEY an option. */
function splitKey(key: string): { type: 'option' | 'header'; name: string } {
  if (key.startsWith('header.')) return { type: 'header', name: key.slice('header.'.length) };
  if (key.startsWith('option.')) return { type: 'option', name: key.slice('option.'.length) };
  return { type: 'option', name: key };
}

/** The words' options and headers, secrets asked for or read from stdin afterwards. */
async function entriesOf(words: string[], o: SetOptions) {
  const entries = { option: {} as Record<string, string>, header: {} as Record<string, string> };
  const ask: string[] = [];
  for (const [key, value] of Object.entries(assignments(words, 'KEY=VALUE or header.NAME=VALUE'))) {
    const { type, name } = splitKey(key);
    if (value === '-') ask.push(key);
    else if (isSmsGatewaySecret(type, name) && value !== '' && value !== CENSORED) {
      throw new ParameterError(
        `${key} is a secret: give it as ${key}=- or --secret ${key} and type it at the prompt or pipe it in with --password-stdin`,
      );
    } else entries[type][name] = value;
  }
  for (const key of o.secret) if (!ask.includes(key)) ask.push(key);
  if (o.passwordStdin && ask.length === 0) {
    throw new ParameterError('--password-stdin reads secrets only: name them as KEY=- or --secret KEY');
  }
  for (const [key, value] of Object.entries(await readSecrets(ask, o.passwordStdin === true))) {
    const { type, name } = splitKey(key);
    if (!isSmsGatewaySecret(type, name)) {
      throw new ParameterError(
        `${key} is not a secret (only keys holding PASSWORD or SECRET are): give it as ${key}=VALUE`,
      );
    }
    entries[type][name] = value;
  }
  return entries;
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .argument(
      '[settings...]',
      'KEY=VALUE (an option), header.NAME=VALUE (a header); KEY= removes one, KEY=- asks for a secret',
    )
    .description('create an SMS gateway or change it (what is not named is kept, unless --replace)')
    .option(
      '--module <module>',
      'the provider: its module (authsrv smsgateway providers) or http, smtp, smpp, script; default: the stored one',
    )
    .option('--description <text>', 'a description')
    .option('--secret <key>', 'a secret option or header to ask for (repeatable); same as KEY=-', collect, [])
    .option('--password-stdin', 'read the secrets from standard input, one a line')
    .option('--replace', 'replace all options and headers with those given (as POST /smsgateway does)')
    .option('--json', 'print {"id", "name", "created"} as JSON')
    .action(async (name: string, words: string[], o: SetOptions, cmd: Command) => {
      const entries = await entriesOf(words, o);
      const action = { command: 'smsgateway set', detail: `${name} ${o.module ?? ''}`.trim() };
      const saved = await runAudited(cmd, action, (ctx) =>
        saveSmsGateway(ctx, {
          name,
          module: o.module,
          description: o.description,
          ...entries,
          keepOmitted: o.replace !== true,
        }),
      );
      if (o.json) return printJson({ id: saved.id, name, created: saved.created });
      console.log(`SMS gateway '${name}' ${saved.created ? 'created' : 'updated'} (id ${saved.id}).`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete an SMS gateway')
    .option('--json', 'print {"deleted": NAME, "id": ID}')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const id = await runAudited(cmd, { command: 'smsgateway delete', detail: name }, (ctx) =>
        deleteSmsGateway(ctx, name),
      );
      if (o.json) return printJson({ deleted: name, id });
      console.log(`SMS gateway '${name}' deleted.`);
    });
}

const TEST_MESSAGE = 'This is a test message from authsrv.';

function testCommand(): Command {
  return new Command('test')
    .argument('<name>', 'the gateway')
    .argument('<phone>', 'the phone number to send to')
    .description('send a message through an SMS gateway (exit 1 when it was not sent)')
    .option('--message <text>', 'the message', TEST_MESSAGE)
    .option('--json', 'print {"success", "reason"?} as JSON')
    .action(async (name: string, phone: string, o: { message: string; json?: boolean }, cmd: Command) => {
      const detail = `${name} ${phone}`;
      const result = await runAudited(
        cmd,
        { command: 'smsgateway test', detail },
        (ctx) => sendSms(ctx, name, phone, o.message),
        (r) => (r.success ? {} : { success: false, info: `${detail} ${r.reason}` }),
      );
      if (o.json) printJson(result);
      else console.log(result.success ? `Sent through '${name}'.` : `Not sent: ${result.reason}`);
      if (!result.success) process.exitCode = 1;
    });
}
