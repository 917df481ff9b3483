// What is set up in this installation, for `authsrv status`: the realms with their users, the
// tokens and the administrators, counted through the services that own them, and the next step
// a new operator takes (a first realm, a first token, a first login).
import { listAdmins } from '../auth/index.ts';
import type { Context } from '../context.ts';
import { listRealms } from '../realm/index.ts';
import { listTokens } from '../token/index.ts';
import { listUsers } from '../user/index.ts';

export interface RealmCount {
  name: string;
  default: boolean;
  /** null when a resolver of the realm could not be asked (the error says why). */
  users: number | null;
  error?: string;
}

export interface InstallationStatus {
  realms: RealmCount[];
  tokens: number;
  administrators: number;
  /** The next thing to do, as a command line; undefined once a token exists. */
  next: { why: string; command: string } | undefined;
}

async function realmCount(ctx: Context, name: string, isDefault: boolean): Promise<RealmCount> {
  try {
    const users = await listUsers(ctx, { realm: name, search: {}, attributes: ['username'] });
    return { name, default: isDefault, users: users.length };
  } catch (e) {
    return { name, default: isDefault, users: null, error: (e as Error).message };
  }
}

function nextStep(realms: readonly RealmCount[], tokens: number): InstallationStatus['next'] {
  if (realms.length === 0)
    return {
      why: 'no realm yet: a realm is where authsrv finds the users who log in',
      command: 'authsrv setup',
    };
  if (tokens === 0) {
    const realm = (realms.find((r) => r.default) ?? realms[0]!).name;
    return {
      why: `no token yet: enroll one for a user of realm ${realm} and scan its QR code`,
      command: `authsrv token init --type totp --user USER@${realm}`,
    };
  }
  return undefined;
}

/** The counts of this installation as the local operator sees them. */
export async function installationStatus(ctx: Context): Promise<InstallationStatus> {
  const realms: RealmCount[] = [];
  for (const [name, view] of Object.entries(await listRealms(ctx)))
    realms.push(await realmCount(ctx, name, view.default));
  const { count: tokens } = await listTokens(ctx, { page: 1, pagesize: 1 });
  const administrators = (await listAdmins(ctx)).length;
  return { realms, tokens, administrators, next: nextStep(realms, tokens) };
}
