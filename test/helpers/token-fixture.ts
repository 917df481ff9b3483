// The server most API tests of tokens share: one per describe block (dialect), with passwd-file
// realms and the first administrator's JWT, closed after the block and cleaned between its tests;
// and the calls those tests make again and again (/validate/check, /token/init, the token row).
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { deletePolicy, getPolicies } from '../../src/core/policy/index.ts';
import type { DialectName } from './dialects.ts';
import { deleteAllTokens, deleteTokensOverApi, passwdRealm } from './realms.ts';
import { type ApiResponse, startTestServer, type TestServer, type TestServerOptions } from './server.ts';
import { ok, type PasswdEntry } from './user-stores.ts';

export interface TokenServer {
  s: TestServer;
  /** The CLI operator: policies written as it never lock a test out. */
  op: Context;
  /** The first administrator's JWT. */
  admin: string;
}

/** What is removed after each test, in this order. */
export type Reset =
  /** every policy */
  | 'policies'
  /** every token group with its members */
  | 'tokengroups'
  /** every challenge */
  | 'challenges'
  /** every token, with its tokeninfo, owners, realms and challenges (from the tables) */
  | 'tokens'
  /** every token, deleted over the API by the administrator */
  | 'tokens over api'
  /** the audit log */
  | 'audit';

export interface TokenServerOptions extends Omit<TestServerOptions, 'dialect'> {
  /** Realms by name, each on a passwd-file resolver of its own holding these users. */
  realms?: Record<string, PasswdEntry[]>;
  /** The resolver of a realm where it is not `<realm>-res`. */
  resolvers?: Record<string, string>;
  reset?: Reset[];
}

/**
 * Registers beforeAll/afterAll/afterEach for a test server on `dialect` with `options.realms`;
 * `bind` receives the server, operator and administrator JWT once it runs (before any later
 * beforeAll of the block).
 */
export function useTokenServer(
  dialect: DialectName,
  options: TokenServerOptions,
  bind: (t: TokenServer) => void,
): void {
  const { realms = {}, resolvers = {}, reset = [], ...serverOptions } = options;
  let t: TokenServer | undefined;
  beforeAll(async () => {
    const s = await startTestServer({ dialect, ...serverOptions });
    t = { s, op: withCaller(s.rt, localOperator()), admin: await s.adminToken() };
    for (const [realm, users] of Object.entries(realms))
      await passwdRealm(s, t.admin, realm, users, resolvers[realm]);
    bind(t);
  });
  afterAll(async () => t?.s.close());
  if (reset.length > 0)
    afterEach(async () => {
      if (!t) return;
      for (const what of reset) {
        if (what === 'policies') await deleteAllPolicies(t.op);
        else if (what === 'tokengroups')
          for (const table of ['tokengroup_token', 'tokengroup'] as const)
            await t.s.rt.store.db.deleteFrom(table).execute();
        else if (what === 'challenges') await t.s.rt.store.db.deleteFrom('challenge').execute();
        else if (what === 'tokens') await deleteAllTokens(t.s);
        else if (what === 'audit') await t.s.rt.store.db.deleteFrom('audit').execute();
        else if (what === 'tokens over api') await deleteTokensOverApi(t.s, t.admin);
      }
    });
}

/** Deletes every policy as `op`. */
export async function deleteAllPolicies(op: Context): Promise<void> {
  for (const name of Object.keys(await getPolicies(op))) await deletePolicy(op, name);
}

/** POST /validate/check (or `path`) that must answer HTTP 200 with status true. */
export async function validateOk(
  s: TestServer,
  params: Record<string, string>,
  path = '/validate/check',
): Promise<ApiResponse> {
  const r = await s.call('POST', path, params);
  expect(r.status, r.text).toBe(200);
  expect(r.json.result.status, r.text).toBe(true);
  return r;
}

/** POST /token/init that must succeed; returns the answer. */
export async function initOk(
  s: TestServer,
  params: Record<string, string>,
  token: string,
): Promise<ApiResponse> {
  const r = await s.call('POST', '/token/init', params, token);
  expect(ok(r)).toBe(true);
  return r;
}

/** The token table's row of a serial. */
export const tokenRow = (s: TestServer, serial: string) =>
  s.rt.store.db.selectFrom('token').selectAll().where('serial', '=', serial).executeTakeFirstOrThrow();
