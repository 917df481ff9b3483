// Enumeration at /auth (issue 16 item 8): under the authentication policy
// hide_specific_error_message every refused login is answered alike (unknown administrator,
// unknown realm user, wrong password, unknown realm, login disabled), the real reason going only to
// the audit; and, with or without the policy, a login name nobody has costs the password hashes a
// known one costs, so that the time of the answer does not tell either.
import { decoyHash, verifyPassword } from '../../crypto/index.ts';
import { AuthError, type AuthsrvError, ERR, PolicyError } from '../../errors.ts';
import type { Runtime } from '../context.ts';
import { orderedResolvers, userStoreOf } from '../directory/index.ts';
import { compiledPolicies } from '../policy/index.ts';

/** The one answer of a refused login under hide_specific_error_message (privacyIDEA 3.13's text). */
export const HIDDEN_LOGIN_MESSAGE = 'Authentication failed.';

/** A refused login answered generically; `reason` is what the audit row's info records. */
export class HiddenLoginError extends AuthError {
  readonly reason: string;
  constructor(reason: string) {
    super(HIDDEN_LOGIN_MESSAGE, ERR.WrongCredentials);
    this.reason = reason;
  }
}

/** Failures that tell who exists or what was wrong: wrong credentials, unknown realm, login disabled. */
function telling(e: unknown): e is AuthsrvError {
  return (e instanceof AuthError && e.code === ERR.WrongCredentials) || e instanceof PolicyError;
}

/** Who tried to log in, as far as the request says (the policy is matched on this). */
export interface LoginWho {
  login: string;
  realm: string;
  client: string;
}

async function hidesFailures(rt: Runtime, who: LoginWho): Promise<boolean> {
  const set = await compiledPolicies(rt);
  if (!set.hasActive('authentication')) return false;
  return set.isSet({
    scope: 'authentication',
    action: 'hide_specific_error_message',
    user: who.login,
    realm: who.realm,
    client: who.client,
    servicenode: rt.node,
    time: rt.clock(),
    conditionData: {},
  });
}

/**
 * Runs a login; under hide_specific_error_message (matched on the login name and realm tried) a
 * telling failure becomes HiddenLoginError: HTTP 401, code 4031, message `Authentication failed.`,
 * no detail.
 */
export async function hidingLoginFailures<T>(
  rt: Runtime,
  who: () => Promise<LoginWho>,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (!telling(e) || !(await hidesFailures(rt, await who()))) throw e;
    throw new HiddenLoginError(e.message);
  }
}

/** A verification against the decoy argon2id hash: what checking a local administrator costs. */
async function argon2Decoy(password: string): Promise<void> {
  await verifyPassword(password, await decoyHash());
}

/**
 * What checking a known realm user's password would have cost, spent for a login name the realm
 * does not know: a check against a decoy of the same kind and cost as the hashes of the realm's
 * first user store that can imitate its check (passwd and SQL stores), else one against the argon2id
 * decoy. A store that fails is passed over (the login is refused anyway).
 */
export async function spendAsForAUser(
  rt: Runtime,
  realm: string | undefined,
  password: string,
): Promise<void> {
  for (const row of realm ? await orderedResolvers(rt, realm) : []) {
    try {
      const { store } = await userStoreOf(rt, row);
      if (store.checkPasswordOfNobody) return await store.checkPasswordOfNobody(password);
    } catch {
      // A store that cannot be opened or read: the next one, else the argon2id decoy.
    }
  }
  await argon2Decoy(password);
}

/**
 * An unknown realm: what a login to a known one costs (the local administrator's check and a
 * user store's), as two checks against the argon2id decoy.
 */
export async function spendAsForARealm(password: string): Promise<void> {
  await argon2Decoy(password);
  await argon2Decoy(password);
}
