// What the Token handler module may do to the request's token: the token services of core, called
// as the server itself (an operator context: the definition was authorised when it was saved).
import type { TokenOperations } from '../../event-handlers/index.ts';
import type { Runtime } from '../context.ts';
import { withCaller } from '../context.ts';
import {
  deleteInfoOfToken,
  deleteTokens,
  enableTokens,
  setInfoOfToken,
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

export function tokenOperations(rt: Runtime, facts: EventFacts, serial: string): TokenOperations {
  const ctx = withCaller(rt, {
    role: 'admin',
    username: 'event handler',
    realm: '',
    authtype: 'local',
    client: facts.client,
  });
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
  };
}
