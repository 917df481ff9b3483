// What the conditions and the handler modules know of a request: who called, from where, with
// which parameters, and (post) what the endpoint answered. The token and the user are looked up
// lazily, once per event, and only when a condition or a tag asks for them.
import type { Caller, Runtime } from '../context.ts';
import { withCaller } from '../context.ts';
import { findUser, userStore } from '../directory/index.ts';
import { targetUser } from '../user/index.ts';

export type Position = 'pre' | 'post';

/** What a front end tells about the request an event fires for. */
export interface EventRequest {
  event: string;
  caller: Caller | undefined;
  client: string;
  /** The request's parameters as text. */
  params: Readonly<Record<string, string>>;
}

/** What the endpoint answered (post only). */
export interface EventResult {
  status: boolean;
  value: unknown;
  /** ACCEPT, REJECT, CHALLENGE … of an authentication. */
  authentication?: string | undefined;
  /** detail.message */
  message?: string | undefined;
  /** The error message of a failed request. */
  error?: string | undefined;
  /** detail.serial, when the answer names a token (e.g. one just enrolled). */
  serial?: string | undefined;
}

export interface TokenFacts {
  serial: string;
  type: string;
  description: string;
  realms: string[];
  failcount: number;
  maxfail: number;
  /** The OTP counter. */
  count: number;
  rolloutState: string;
  /** The tokeninfo entries, but for sealed ones. */
  info: Readonly<Record<string, string>>;
  hasOwner: boolean;
  owner?: { userid: string; resolver: string; realm: string } | undefined;
}

export interface UserFacts {
  login: string;
  realm: string;
  resolver: string;
  /** The user's id in its resolver, when known. */
  userid?: string | undefined;
  email?: string | undefined;
  /** False for a token owner its user store no longer knows (or cannot be asked about). */
  known?: boolean | undefined;
  /** The user store's `mobile` (UserNotification sendsms). */
  mobile?: string | undefined;
}

/** The challenge of the request's transaction_id. */
export interface ChallengeFacts {
  session: string;
  /** Its expiration, ISO-8601 UTC. */
  expiration: string;
}

export interface EventFacts {
  event: string;
  role: string | undefined;
  caller: Caller | undefined;
  client: string;
  params: Readonly<Record<string, string>>;
  /** The serial the request or its answer names. */
  serial: string | undefined;
  result: EventResult | undefined;
  token(): Promise<TokenFacts | undefined>;
  user(): Promise<UserFacts | undefined>;
  /** The owner of the request's token, with the e-mail address its user store gives. */
  owner(): Promise<UserFacts | undefined>;
  /** The logged-in user (not an administrator), with the e-mail address its user store gives. */
  loggedInUser(): Promise<UserFacts | undefined>;
  /** The number of tokens of the request's user (undefined: no user). */
  userTokenCount(): Promise<number | undefined>;
  /** The newest challenge of the request's transaction_id. */
  challenge(): Promise<ChallengeFacts | undefined>;
  /** The value of an event counter (0 when it does not exist). */
  counter(name: string): Promise<number>;
  /** The moment conditions compare dates with. */
  now: Date;
  /** Tags added by the definitions that ran before in the same request. */
  addedTags: Record<string, string>;
}

/** One lookup, made on the first ask and shared by the later ones; a failed lookup is "none". */
function once<T>(load: () => Promise<T | undefined>): () => Promise<T | undefined> {
  let promise: Promise<T | undefined> | undefined;
  return () => {
    promise ??= load().catch(() => undefined);
    return promise;
  };
}

async function loadToken(rt: Runtime, serial: string): Promise<TokenFacts | undefined> {
  const db = rt.store.db;
  const token = await db
    .selectFrom('token')
    .select(['id', 'serial', 'tokentype', 'description', 'failcount', 'maxfail', 'count', 'rollout_state'])
    .where('serial', '=', serial)
    .executeTakeFirst();
  if (!token) return undefined;
  const realms = await db
    .selectFrom('tokenrealm')
    .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
    .select('realm.name')
    .where('tokenrealm.token_id', '=', token.id)
    .execute();
  const owner = await db
    .selectFrom('tokenowner')
    .innerJoin('realm', 'realm.id', 'tokenowner.realm_id')
    .select(['tokenowner.user_id', 'tokenowner.resolver', 'realm.name'])
    .where('tokenowner.token_id', '=', token.id)
    .executeTakeFirst();
  const info = await db
    .selectFrom('tokeninfo')
    .select(['key', 'value'])
    .where('token_id', '=', token.id)
    .where('type', '!=', 'password')
    .execute();
  return {
    serial: token.serial,
    type: token.tokentype,
    description: token.description,
    realms: realms.map((r) => r.name),
    failcount: Number(token.failcount),
    maxfail: Number(token.maxfail),
    count: Number(token.count),
    rolloutState: token.rollout_state,
    info: Object.fromEntries(info.map((r) => [r.key, r.value])),
    hasOwner: owner !== undefined,
    owner: owner && { userid: owner.user_id, resolver: owner.resolver, realm: owner.name },
  };
}

/** The user of the request: the caller when a user, else the `user`/`realm` parameters. */
async function loadUser(rt: Runtime, request: EventRequest): Promise<UserFacts | undefined> {
  const { caller, params } = request;
  if (caller?.role !== 'user' && !params.user) return undefined;
  const ctx = withCaller(
    rt,
    caller ?? { role: 'admin', username: '', realm: '', authtype: 'local', client: '' },
  );
  const u = await targetUser(ctx, { user: params.user, realm: params.realm, resolver: params.resolver });
  return {
    login: u.login,
    realm: u.realm,
    resolver: u.resolver,
    email: u.info.email,
    userid: u.userid,
    mobile: u.info.mobile,
  };
}

/** A token owner with the login its user store knows it by (its user id when it knows it no more). */
async function ownerFacts(rt: Runtime, owner: NonNullable<TokenFacts['owner']>): Promise<UserFacts> {
  const found = await userStore(rt, owner.resolver)
    .then((handle) => handle.store.findById(owner.userid))
    .catch(() => undefined);
  return {
    login: found?.username ?? owner.userid,
    realm: owner.realm,
    resolver: owner.resolver,
    userid: owner.userid,
    email: found?.email,
    known: found !== undefined,
    mobile: found?.mobile,
  };
}

/** How many tokens a user owns. */
async function tokenCount(rt: Runtime, user: UserFacts): Promise<number | undefined> {
  if (user.userid === undefined) return undefined;
  const row = await rt.store.db
    .selectFrom('tokenowner')
    .select((eb) => eb.fn.countAll<number | string | bigint>().as('n'))
    .where('resolver', '=', user.resolver)
    .where('user_id', '=', user.userid)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function loadChallenge(rt: Runtime, transactionId: string): Promise<ChallengeFacts | undefined> {
  return rt.store.db
    .selectFrom('challenge')
    .select(['session', 'expiration'])
    .where('transaction_id', '=', transactionId)
    .orderBy('id', 'desc')
    .executeTakeFirst();
}

export function eventFacts(rt: Runtime, request: EventRequest, result?: EventResult): EventFacts {
  const serial = request.params.serial || result?.serial || undefined;
  const token = once(() => (serial ? loadToken(rt, serial) : Promise.resolve(undefined)));
  const requestUser = once(() => loadUser(rt, request));
  const owner = once(async () => {
    const found = (await token())?.owner;
    return found && ownerFacts(rt, found);
  });
  return {
    event: request.event,
    role: request.caller?.role,
    caller: request.caller,
    client: request.client,
    params: request.params,
    serial,
    result,
    token,
    // The request's user; without one, the owner of the request's token.
    user: once(async () => (await requestUser()) ?? owner()),
    owner,
    loggedInUser: once(async () => {
      const caller = request.caller;
      if (caller?.role !== 'user') return undefined;
      const u = await findUser(rt, caller.username, caller.realm);
      return (
        u && {
          login: u.login,
          realm: u.realm,
          resolver: u.resolver,
          email: u.info.email,
          userid: u.userid,
          mobile: u.info.mobile,
        }
      );
    }),
    userTokenCount: once(async () => {
      const u = (await requestUser()) ?? (await owner());
      return u && tokenCount(rt, u);
    }),
    challenge: once(async () =>
      request.params.transaction_id ? loadChallenge(rt, request.params.transaction_id) : undefined,
    ),
    counter: async (name) => {
      const row = await rt.store.db
        .selectFrom('eventcounter')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirst();
      return row ? Number(row.value) : 0;
    },
    now: rt.clock(),
    addedTags: {},
  };
}
