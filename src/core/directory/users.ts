// Finding a user: the login and realm a user name means, and the first resolver of the realm (by
// priority) that knows the login.
import { UserError } from '../../errors.ts';
import type { UserRecord, UserStore } from '../../resolvers/index.ts';
import type { Runtime } from '../context.ts';
import { configFlag } from '../system/index.ts';
import { defaultRealm, orderedResolvers, realmExists } from './realms.ts';
import { userStoreOf } from './user-stores.ts';

export interface ResolvedUser {
  login: string;
  realm: string;
  resolver: string;
  userid: string;
  info: UserRecord;
  /** The open store of the resolver that knows the user. */
  store: UserStore;
}

/**
 * The login and realm meant by a user name, as privacyIDEA's split_user and get_user_from_param do:
 * `user@realm` is split at the last '@' when what follows is a realm and splitAtSign is on;
 * `realm\user` (no '@' at all) at the last backslash. An explicit realm parameter then replaces the
 * realm part; without any realm the default realm applies.
 */
export async function splitLogin(
  rt: Runtime,
  username: string,
  realmParam: string | undefined,
): Promise<{ login: string; realm: string }> {
  let login = username;
  let realm = '';
  const at = username.lastIndexOf('@');
  if (at >= 0) {
    if (at > 0 && (await configFlag(rt, 'splitAtSign', true))) {
      const candidate = username.slice(at + 1).toLowerCase();
      if (candidate !== '' && (await realmExists(rt, candidate))) {
        login = username.slice(0, at);
        realm = candidate;
      }
    }
  } else {
    const slash = username.lastIndexOf('\\');
    if (slash > 0 && slash < username.length - 1) {
      login = username.slice(slash + 1);
      realm = username.slice(0, slash).toLowerCase();
    }
  }
  if (realmParam) realm = realmParam.toLowerCase();
  if (!realm) realm = (await defaultRealm(rt)) ?? '';
  return { login, realm };
}

/** Finds a login in a realm: the first resolver (by priority) that knows it wins. */
export async function findUser(rt: Runtime, login: string, realm: string): Promise<ResolvedUser | undefined> {
  for (const row of await orderedResolvers(rt, realm)) {
    const { store } = await userStoreOf(rt, row);
    const info = await store.findByLogin(login);
    if (info) {
      return {
        login: info.username,
        realm: realm.toLowerCase(),
        resolver: row.name,
        userid: info.userid,
        info,
        store,
      };
    }
  }
  return undefined;
}

/** The names of every resolver of the realm that knows the login, in priority order (check_all_resolvers). */
export async function resolversOfUser(rt: Runtime, login: string, realm: string): Promise<string[]> {
  const out: string[] = [];
  for (const row of await orderedResolvers(rt, realm)) {
    const { store } = await userStoreOf(rt, row);
    if (await store.findByLogin(login)) out.push(row.name);
  }
  return out;
}

/** Like findUser, but an unknown user is an error (904). */
export async function requireUser(rt: Runtime, login: string, realm: string): Promise<ResolvedUser> {
  const u = await findUser(rt, login, realm);
  if (!u) throw new UserError(`User <${login}@${realm}> does not exist.`);
  return u;
}
