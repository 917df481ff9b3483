// The commands of `authsrv`, one file each; src/cli/program.ts puts them together.
export { adminCommand } from './admin.ts';
export { auditCommand } from './audit.ts';
export { configCommand } from './config.ts';
export { dbCommand } from './db.ts';
export { hsmCommand } from './hsm.ts';
export { policyCommand } from './policy.ts';
export { realmCommand } from './realm.ts';
export { resolverCommand } from './resolver.ts';
export { serveCommand } from './serve.ts';
export { tokenCommand } from './token.ts';
export { tokengroupCommand } from './tokengroup.ts';
export { userCommand } from './user.ts';
export { validateCommand } from './validate.ts';
