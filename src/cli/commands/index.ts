// The commands of `authsrv`, one file each; src/cli/program.ts puts them together. Every file reads
// the same way: `<command>Command()` returns the command with its subcommands as a list of
// `.addCommand(<sub>Command())`; below it one builder per subcommand that declares its arguments
// and options and whose action parses them, calls one service (state-changing ones through
// runAudited, which writes the audit row) and prints the result. A subcommand with helpers of its
// own has a file of its own (token-init.ts, token-getserial.ts, token-group.ts, token-import.ts).
export { adminCommand } from './admin.ts';
export { auditCommand } from './audit.ts';
export { authitemCommand } from './authitem.ts';
export { caconnectorCommand } from './caconnector.ts';
export { clientCommand } from './client.ts';
export { configCommand } from './config.ts';
export { dbCommand } from './db.ts';
export { eventCommand } from './event.ts';
export { gpgCommand } from './gpg.ts';
export { hsmCommand } from './hsm.ts';
export { importCommand } from './import.ts';
export { machineCommand } from './machine.ts';
export { machineresolverCommand } from './machineresolver.ts';
export { policyCommand } from './policy.ts';
export { radiusCommand } from './radius.ts';
export { radiusserverCommand } from './radiusserver.ts';
export { realmCommand } from './realm.ts';
export { resolverCommand } from './resolver.ts';
export { serveCommand } from './serve.ts';
export { serviceidCommand } from './serviceid.ts';
export { setupCommand } from './setup.ts';
export { smsgatewayCommand } from './smsgateway.ts';
export { smtpserverCommand } from './smtpserver.ts';
export { statsCommand } from './stats.ts';
export { showStatus, statusCommand } from './status.ts';
export { taskCommand } from './task.ts';
export { throttleCommand } from './throttle.ts';
export { tokenCommand } from './token.ts';
export { tokengroupCommand } from './tokengroup.ts';
export { userCommand } from './user.ts';
export { validateCommand } from './validate.ts';
