// What every service function receives: the runtime (database, config, keys, clock, logger) and
// the caller on whose behalf it acts. Services never look at Koa or commander.
import type { Logger } from 'pino';
import type { Config } from '../config/index.ts';
import type { Random, SecurityModule, ServerKeys } from '../crypto/index.ts';
import type { AllowedFiles } from '../files/index.ts';
import type { Store } from '../store/index.ts';

export type { Random };

export type Role = 'admin' | 'user';

export interface Caller {
  role: Role;
  username: string;
  /** '' for local administrators. */
  realm: string;
  /** How the caller proved who it is: password (JWT login), local (the CLI operator). */
  authtype: 'password' | 'local' | 'pi' | 'remote_user';
  /** Client address as seen after trusted-proxy handling; '' for the CLI. */
  client: string;
}

export interface Runtime {
  store: Store;
  config: Config;
  hsm: SecurityModule;
  keys: ServerKeys;
  log: Logger;
  /** Current time; replaced in tests. */
  clock: () => Date;
  random: Random;
  /** Node name of this server among those sharing the database. */
  node: string;
  /** The rule for every file a setting names (files.allowed_dirs). */
  files: AllowedFiles;
}

export interface Context extends Runtime {
  caller: Caller;
}

/** The operator running the CLI on the server itself: an administrator by virtue of shell access. */
export function localOperator(): Caller {
  const user = process.env.SUDO_USER ?? process.env.USER ?? 'root';
  return { role: 'admin', username: `${user}@cli`, realm: '', authtype: 'local', client: '' };
}

export function withCaller(runtime: Runtime, caller: Caller): Context {
  return { ...runtime, caller };
}
