// `authsrv caconnector`: the CA connectors of /caconnector/ (reference 8.5) with the same services
// and error messages. The key password never comes from the command line (ps, shell history): a
// hidden prompt with --key-password, or the first line of standard input with --password-stdin.
// set, delete and crl write an audit row.
import { Command } from 'commander';
import {
  caConnectorNames,
  deleteCaConnector,
  listCaConnectors,
  setCaConnector,
  writeCaConnectorCrl,
} from '../../core/caconnector/index.ts';
import { ParameterError } from '../../errors.ts';
import { printJson, printTable, promptHidden, readStdinLine, runAudited, withContext } from '../common.ts';

export function caconnectorCommand(): Command {
  return new Command('caconnector')
    .description('CA connectors: the CAs that issue the certificates of certificate tokens')
    .addCommand(listCommand())
    .addCommand(showCommand())
    .addCommand(setCommand())
    .addCommand(deleteCommand())
    .addCommand(templatesCommand())
    .addCommand(crlCommand());
}

function listCommand(): Command {
  return new Command('list')
    .description('list the CA connectors (names, types and templates)')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }, cmd: Command) => {
      const all = await withContext(cmd, (ctx) => caConnectorNames(ctx));
      if (o.json) return printJson(all);
      printTable(
        ['Name', 'Type', 'Templates'],
        all.map((c) => [c.connectorname, c.type, Object.keys(c.templates).join(', ')]),
      );
    });
}

function showCommand(): Command {
  return new Command('show')
    .argument('<name>')
    .description('show a CA connector with its configuration (the key password censored)')
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const [c] = await withContext(cmd, (ctx) => listCaConnectors(ctx, name));
      if (!c) throw new ParameterError(`The CA connector ${name} does not exist.`);
      if (o.json) return printJson(c);
      console.log(`${c.connectorname} (${c.type})`);
      printTable(['Key', 'Value'], Object.entries(c.data));
      if (Object.keys(c.templates).length > 0)
        console.log(`templates: ${Object.keys(c.templates).join(', ')}`);
    });
}

interface SetOptions {
  type: string;
  cacert?: string;
  cakey?: string;
  templates?: string;
  crl?: string;
  option: string[];
  keyPassword?: boolean;
  passwordStdin?: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The configuration of the options: the named ones and every --option KEY=VALUE. */
function configOf(o: SetOptions): Record<string, string> {
  const config: Record<string, string> = {};
  for (const pair of o.option) {
    const at = pair.indexOf('=');
    if (at < 1) throw new ParameterError(`--option must be KEY=VALUE, not '${pair}'`);
    config[pair.slice(0, at)] = pair.slice(at + 1);
  }
  if (o.cacert !== undefined) config.cacert = o.cacert;
  if (o.cakey !== undefined) config.cakey = o.cakey;
  if (o.templates !== undefined) config.templates = o.templates;
  if (o.crl !== undefined) config.CRL = o.crl;
  if (Object.hasOwn(config, 'password'))
    throw new ParameterError(
      'The key password is not given on the command line: use --key-password or --password-stdin',
    );
  return config;
}

function setCommand(): Command {
  return new Command('set')
    .argument('<name>')
    .description('create a CA connector or replace its configuration (a stored key password is kept)')
    .requiredOption('--type <type>', 'the CA type: local')
    .option('--cacert <file>', 'local: the CA certificate (PEM)')
    .option('--cakey <file>', 'local: the CA private key (PEM)')
    .option('--templates <file>', 'local: the YAML file of certificate templates')
    .option('--crl <file>', 'local: where the CRL is written')
    .option(
      '--option <key=value>',
      'another setting (CRL_Validity_Period, CRL_Overlap_Period, WorkingDir, …); repeatable',
      collect,
      [],
    )
    .option('--key-password', 'ask for the password of an encrypted cakey')
    .option('--password-stdin', 'read the password of an encrypted cakey from standard input')
    .option('--json', 'print the saved connector as JSON')
    .action(async (name: string, o: SetOptions, cmd: Command) => {
      const config = configOf(o);
      if (o.passwordStdin) config.password = await readStdinLine();
      else if (o.keyPassword)
        config.password = await promptHidden(
          'Key password:',
          'No terminal to ask for the key password: pipe it in with --password-stdin',
        );
      const saved = await runAudited(cmd, { command: 'caconnector set', detail: name }, async (ctx) => {
        await setCaConnector(ctx, name, o.type, config);
        return listCaConnectors(ctx, name);
      });
      if (o.json) return printJson(saved[0]);
      console.log(`CA connector '${name}' saved.`);
    });
}

function deleteCommand(): Command {
  return new Command('delete')
    .argument('<name>')
    .description('delete a CA connector')
    .option('--json', 'print {"deleted": NAME}')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      await runAudited(cmd, { command: 'caconnector delete', detail: name }, (ctx) =>
        deleteCaConnector(ctx, name),
      );
      if (o.json) return printJson({ deleted: name });
      console.log(`CA connector '${name}' deleted.`);
    });
}

function templatesCommand(): Command {
  return new Command('templates')
    .argument('<name>')
    .description("list a CA connector's certificate templates")
    .option('--json', 'print JSON')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const [c] = await withContext(cmd, (ctx) => listCaConnectors(ctx, name));
      if (!c) throw new ParameterError(`The CA connector ${name} does not exist.`);
      if (o.json) return printJson(c.templates);
      printTable(
        ['Template', 'Days', 'Key usage', 'Extended key usage', 'Subject needs'],
        Object.entries(c.templates).map(([t, v]) => [
          t,
          v.days,
          v.key_usage.join(', '),
          v.extended_key_usage.join(', '),
          v.subject_required.join(', '),
        ]),
      );
    });
}

function crlCommand(): Command {
  return new Command('crl')
    .argument('<name>')
    .description("write a CA connector's CRL now (what the CRLRefresh task does when it is due)")
    .option('--json', 'print {"name", "next_update"}')
    .action(async (name: string, o: { json?: boolean }, cmd: Command) => {
      const next = await runAudited(cmd, { command: 'caconnector crl', detail: name }, (ctx) =>
        writeCaConnectorCrl(ctx, name),
      );
      if (o.json) return printJson({ name, next_update: next ?? null });
      console.log(next ? `CRL of '${name}' written; next update ${next}.` : `'${name}' names no CRL file.`);
    });
}
