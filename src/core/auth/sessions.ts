// Sessions end when the administrator does: a JWT stands only while its account does and was issued
// after the account last ended its sessions. What every request checks, from memory:
// - a local administrator (realm ''): the name is still in the `admin` table, and the token was
//   issued at or after its `sessions_valid_after` (creation, password change, logout);
// - a realm user (an administrator of a superuser realm, or a user): the realm still exists with
//   the resolver that found the user (the `resolver` claim; tokens issued before it existed are
//   checked for the realm only), a realm administrator's realm is still in `superuser_realms`, and
//   the token was issued at or after the user's revocation in `session_revocation`, if any.
// Whether a realm user still exists in the user store is not asked per request (an LDAP or SQL
// round trip each time): deleting a user there ends no session; `authsrv admin logout --realm` does.
//
// Times compare in whole seconds, the JWT's `iat`: a token stands when iat >= the second of the
// change, so a login right after a password change works, and a token issued earlier in that same
// second stands too (until it expires).
//
// The tables are kept in memory behind the `session_version` change counter, read with the other
// counters (recentCounters: shared with the policy read of a request just before). A change made on
// this node is seen at once, on another node (or by the CLI) within REUSE_MS. A refusal is decided
// on counters read afresh, so that an account created on another node a moment ago is not refused.
import type { Transaction } from 'kysely';
import { AuthError, ERR, ParameterError, ResourceNotFoundError, UserError } from '../../errors.ts';
import type { Database, Store } from '../../store/index.ts';
import { runTransaction } from '../../store/index.ts';
import {
  bumpCounter,
  CountedCache,
  forgetCounters,
  readCounters,
  recentCounters,
  SESSION_VERSION_ROW,
} from '../change-counters.ts';
import type { Caller, Context, Runtime } from '../context.ts';
import { orderedResolvers, realmExists } from '../directory/index.ts';

/** The answer to a JWT whose session has ended: privacyIDEA's error of an invalid token (4304). */
export const SESSION_ENDED =
  'Authentication failure. Error decoding the Authorization token: the session has ended';

/** What a verified JWT says of its session. */
export interface Session {
  caller: Caller;
  /** The `iat` claim, in seconds (0 when absent). */
  issuedAt: number;
  /** The resolver that found a realm user at login, when the token names it. */
  resolver?: string | undefined;
}

/** The session tables in memory: the second from which tokens stand. */
interface SessionTables {
  admins: ReadonlyMap<string, number>;
  revoked: ReadonlyMap<string, number>;
}

const tables = new CountedCache<SessionTables>((c) => c.session, recentCounters);

/** A stored time as the second it falls in; an unreadable one refuses every token (NaN). */
function secondOf(iso: string): number {
  return Math.floor(Date.parse(iso) / 1000);
}

function userKey(realm: string, login: string): string {
  return `${realm.toLowerCase()}\u0000${login.toLowerCase()}`;
}

async function loadTables(store: Store): Promise<SessionTables> {
  const admins = await store.db.selectFrom('admin').select(['name', 'sessions_valid_after']).execute();
  const revoked = await store.db.selectFrom('session_revocation').selectAll().execute();
  return {
    admins: new Map(admins.map((a) => [a.name, secondOf(a.sessions_valid_after)])),
    revoked: new Map(revoked.map((r) => [userKey(r.realm, r.username), secondOf(r.valid_after)])),
  };
}

/** Why the session of a token has ended (for the log), or undefined while it stands. */
async function endReason(rt: Runtime, s: Session): Promise<string | undefined> {
  const { caller } = s;
  const t = await tables.get(rt.store, () => loadTables(rt.store));
  if (caller.realm === '') {
    const after = caller.role === 'admin' ? t.admins.get(caller.username) : undefined;
    if (after === undefined) return 'no such local administrator';
    return s.issuedAt >= after ? undefined : 'sessions ended (password change or logout)';
  }
  if (caller.role === 'admin' && !rt.config.security.superuserRealms.includes(caller.realm))
    return 'the realm is no longer a superuser realm';
  const resolvers = await orderedResolvers(rt, caller.realm);
  if (resolvers.length === 0) return 'the realm no longer exists or holds no resolver';
  const resolver = s.resolver?.toLowerCase();
  if (resolver !== undefined && !resolvers.some((r) => r.name.toLowerCase() === resolver))
    return "the user's resolver is no longer in the realm";
  const after = t.revoked.get(userKey(caller.realm, caller.username));
  return after === undefined || s.issuedAt >= after ? undefined : 'sessions ended (logout)';
}

/** Refuses (AuthError 4304) the token of a session that has ended. */
export async function checkSession(rt: Runtime, s: Session): Promise<void> {
  if ((await endReason(rt, s)) === undefined) return;
  // The tables may be up to REUSE_MS old: decide a refusal on counters read now.
  await readCounters(rt.store);
  const reason = await endReason(rt, s);
  if (reason === undefined) return;
  rt.log.info(
    { username: s.caller.username, realm: s.caller.realm, reason },
    'JWT of an ended session refused',
  );
  throw new AuthError(SESSION_ENDED, ERR.JwtInvalid);
}

/**
 * Runs a write of the session tables in one transaction that moves `session_version` first (so
 * that writers on every node take turns on its row), then forgets this node's tables and counters.
 */
export async function writeSessionTables<T>(
  store: Store,
  write: (trx: Transaction<Database>) => Promise<T>,
): Promise<T> {
  try {
    return await runTransaction(store, async (trx) => {
      await bumpCounter(trx, store, SESSION_VERSION_ROW);
      return await write(trx);
    });
  } finally {
    // Also after a failure: a commit whose outcome is unknown must not leave stale tables.
    tables.forget(store);
    forgetCounters(store);
  }
}

/** The longest name a revocation row holds. */
const MAX_NAME_LENGTH = 255;

/** Thrown inside a write's transaction, which then changes nothing (the counter stays). */
export function noSuchAdmin(name: string): ResourceNotFoundError {
  return new ResourceNotFoundError(`Administrator '${name}' does not exist`);
}

/** Whose sessions `endSessions` ended, and the time from which new tokens stand. */
export interface EndedSessions {
  name: string;
  /** '' for a local administrator. */
  realm: string;
  validAfter: string;
}

/**
 * Ends every session of the local administrator `name` (no realm), or of the realm user `name` of
 * `realm` (an administrator of a superuser realm or a user; whether the user store still knows
 * the name is not asked, so that a user deleted there can be logged out too).
 */
export async function endSessions(ctx: Context, name: string, realm?: string): Promise<EndedSessions> {
  if (!name) throw new ParameterError('Missing parameter: name');
  if (name.length > MAX_NAME_LENGTH)
    throw new ParameterError(`The name must have at most ${MAX_NAME_LENGTH} characters`);
  const validAfter = ctx.clock().toISOString();
  if (!realm) {
    await writeSessionTables(ctx.store, async (trx) => {
      const r = await trx
        .updateTable('admin')
        .set({ sessions_valid_after: validAfter })
        .where('name', '=', name)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) === 0) throw noSuchAdmin(name);
    });
    return { name, realm: '', validAfter };
  }
  const lower = realm.toLowerCase();
  if (!(await realmExists(ctx, lower))) throw new UserError(`The realm '${realm}' does not exist.`);
  const row = { realm: lower, username: name.toLowerCase(), valid_after: validAfter };
  // The counter's row lock makes concurrent writers take turns: the delete sees a row committed by another.
  await writeSessionTables(ctx.store, async (trx) => {
    await trx
      .deleteFrom('session_revocation')
      .where('realm', '=', row.realm)
      .where('username', '=', row.username)
      .execute();
    await trx.insertInto('session_revocation').values(row).execute();
  });
  return { name, realm: lower, validAfter };
}
