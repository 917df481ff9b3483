// The `authsrv` command tree. Every subcommand calls the same services as the REST API.
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/index.ts';
import { AuthsrvError } from '../errors.ts';
import { VERSION } from '../version.ts';
import {
  adminCommand,
  auditCommand,
  authitemCommand,
  caconnectorCommand,
  clientCommand,
  configCommand,
  dbCommand,
  eventCommand,
  gpgCommand,
  hsmCommand,
  importCommand,
  machineCommand,
  machineresolverCommand,
  policyCommand,
  radiusCommand,
  radiusserverCommand,
  realmCommand,
  resolverCommand,
  serveCommand,
  serviceidCommand,
  setupCommand,
  showStatus,
  smsgatewayCommand,
  smtpserverCommand,
  statsCommand,
  statusCommand,
  taskCommand,
  throttleCommand,
  tokenCommand,
  tokengroupCommand,
  userCommand,
  validateCommand,
} from './commands/index.ts';

export function buildProgram(): Command {
  const program = new Command('authsrv')
    .description('Multi-factor authentication server')
    .version(VERSION)
    .option('-c, --config <file>', 'configuration file (default: $AUTHSRV_CONFIG or ./authsrv.toml)')
    .option('-d, --data-dir <dir>', 'data directory (overrides data_dir)')
    .showHelpAfterError()
    .exitOverride()
    // `authsrv` alone: the status, which ends with what to do next.
    .allowExcessArguments()
    .action((_opts, cmd: Command) => {
      if (cmd.args.length > 0) cmd.error(`error: unknown command '${cmd.args[0]}'`);
      return showStatus(cmd, false);
    });
  for (const make of [
    serveCommand,
    statusCommand,
    setupCommand,
    dbCommand,
    adminCommand,
    throttleCommand,
    auditCommand,
    configCommand,
    hsmCommand,
    gpgCommand,
    resolverCommand,
    realmCommand,
    userCommand,
    policyCommand,
    tokenCommand,
    tokengroupCommand,
    serviceidCommand,
    importCommand,
    eventCommand,
    smsgatewayCommand,
    radiusCommand,
    radiusserverCommand,
    caconnectorCommand,
    taskCommand,
    statsCommand,
    machineresolverCommand,
    smtpserverCommand,
    machineCommand,
    authitemCommand,
    validateCommand,
    clientCommand,
  ]) {
    program.addCommand(make());
  }
  return program;
}

export async function main(argv: string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv);
    // A command may set its own status (audit verify: 2 when the log is damaged).
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode;
    const known = e instanceof AuthsrvError || e instanceof ConfigError;
    process.stderr.write(`authsrv: ${oneLine(e)}\n`);
    if (!known && process.env.AUTHSRV_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    return 1;
  }
}

/** An error as one line: never empty (network errors may have no message), never multi-line. */
function oneLine(e: unknown): string {
  let text = e instanceof Error ? e.message : String(e);
  if (text === '' && e instanceof AggregateError) text = e.errors.map((x) => oneLine(x)).join('; ');
  if (text === '' && e instanceof Error) text = (e as NodeJS.ErrnoException).code ?? e.name;
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}
