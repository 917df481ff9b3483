// What the Token handler module may do to the request's token: the token services of core, called
// as the server itself (an operator context: the definition was authorised when it was saved).
import type { EventEnrollment, TokenOperations } from '../../event-handlers/index.ts';
import { randomPin } from '../../policy/index.ts';
import type { Context, Runtime } from '../context.ts';
import { withCaller } from '../context.ts';
import { findUser } from '../directory/index.ts';
import { attachToken } from '../machine/index.ts';
import {
  addTokenToGroup,
  changeFailcountOfToken,
  deleteInfoOfToken,
  deleteTokens,
  enableTokens,
  increaseInfoOfToken,
  initToken,
  removeTokenFromGroup,
  setFailcountOfToken,
  setInfoOfToken,
  setPins,
  setRealmsOfToken,
  setTokenAttributes,
  unassignTokens,
} from '../token/index.ts';
import type { EventFacts } from './facts.ts';

async function realmsOf(rt: Runtime, serial: string): Promise<string[]> {
  const rows = await rt.store.db
    .selectFrom('tokenrealm')
    .innerJoin('token', 'token.id', 'tokenrealm.token_id')
    .innerJoin('realm', 'realm.id', 'tokenrealm.realm_id')
    .select('realm.name')
    .where('token.serial', '=', serial)
    .execute();
  return rows.map((r) => r.name);
}

/** The server itself, acting for a definition (an operator: no admin policy applies). */
function asServer(rt: Runtime, facts: EventFacts): Context {
  return withCaller(rt, {
    role: 'admin',
    username: 'event handler',
    realm: '',
    authtype: 'local',
    client: facts.client,
  });
}

export function tokenOperations(rt: Runtime, facts: EventFacts, serial: string): TokenOperations {
  const ctx = asServer(rt, facts);
  const sel = { serial };
  return {
    setActive: async (active) => {
      await enableTokens(ctx, sel, active);
    },
    remove: async () => {
      await deleteTokens(ctx, sel);
    },
    unassign: async () => {
      await unassignTokens(ctx, sel);
    },
    setAttributes: async (values) => {
      await setTokenAttributes(ctx, sel, values);
    },
    setInfo: async (key, value) => {
      await setInfoOfToken(ctx, serial, key, value);
    },
    deleteInfo: async (key) => {
      await deleteInfoOfToken(ctx, serial, key);
    },
    setRealm: async (realm, onlyRealm) => {
      // Read afresh: an earlier definition of the same request may have changed them.
      const current = onlyRealm ? [] : await realmsOf(rt, serial);
      await setRealmsOfToken(ctx, serial, [...new Set([...current, realm])]);
    },
    setRandomPin: async (length) => {
      // privacyIDEA's generate_password: letters and digits, no PIN policy.
      const pin = randomPin(length, '', (max) => rt.random.int(max));
      await setPins(ctx, sel, pin);
      return pin;
    },
    setFailcount: (value) => setFailcountOfToken(ctx, serial, value),
    changeFailcount: (delta) => changeFailcountOfToken(ctx, serial, delta),
    increaseInfo: (key, increment) => increaseInfoOfToken(ctx, serial, key, increment),
    addToGroup: async (group) => {
      await addTokenToGroup(ctx, serial, group);
    },
    removeFromGroup: async (group) => {
      await removeTokenFromGroup(ctx, serial, group);
    },
    attach: async (a) => {
      await attachToken(ctx, {
        serial,
        application: a.application,
        machineid: a.machineId,
        resolver: a.resolver,
        options: { ...a.options },
      });
    },
  };
}

/**
 * The `enroll` action: a token init as the server itself, for the request's user (the owner of its
 * token, else the user it names) or for nobody; parameters the module wants from the user's entry
 * (an SMS token's phone: its mobile) are read from the user store. The realm option, for a user,
 * is one more realm of the token. Returns the new serial.
 */
export async function enrollForEvent(rt: Runtime, facts: EventFacts, e: EventEnrollment): Promise<string> {
  const ctx = asServer(rt, facts);
  const params: Record<string, string> = { ...e.params };
  let moreRealm: string | undefined;
  if (e.forUser) {
    const user = (await facts.owner()) ?? (await facts.user());
    if (!user) throw new Error(`enroll: the event ${facts.event} names no user`);
    moreRealm = params.realm && params.realm !== user.realm ? params.realm : undefined;
    Object.assign(params, { user: user.login, realm: user.realm, resolver: user.resolver });
    const wanted = Object.entries(e.fromUser ?? {});
    if (wanted.length > 0) {
      const entry = await findUser(rt, user.login, user.realm);
      for (const [param, attribute] of wanted) {
        const value = entry?.info[attribute];
        const text = Array.isArray(value) ? value[0] : value;
        if (text) params[param] = text;
      }
    }
  }
  const { serial } = await initToken(ctx, params);
  if (moreRealm) await setRealmsOfToken(ctx, serial, [...(await realmsOf(rt, serial)), moreRealm]);
  return serial;
}
