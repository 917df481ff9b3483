// The statements of a GET /token/ page (issue "benchmark", speed): the page with its tokeninfo,
// owners, realms and token groups comes in one statement besides the count, and answers exactly
// what the separate queries (loadRows, the token groups of tokenViews) give for the same rows:
// owned tokens with several realms and groups (mixed case and non-ASCII names, whose order is the
// database's collation), odd and sealed tokeninfo, an owner whose realm is gone and a bare token.
// AUTHSRV_LOG_STATEMENTS=1 prints the statements.
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { addTokenToGroup, setTokenGroup } from '../../src/core/token/groups.ts';
import { assignToken } from '../../src/core/token/lifecycle.ts';
import { loadRows, setTokenInfo, setTokenRealms } from '../../src/core/token/store/index.ts';
import { tokenViews } from '../../src/core/token/view.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { tokenRow, useTokenServer } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

const KEY = '3132333435363738393031323334353637383930';
const TOKEN_TABLES = /\b(token|token_count|tokeninfo|tokenowner|tokenrealm|tokengroup|tokengroup_token)\b/;
const GROUPS = ['zeta', 'Alpha', 'beta', 'Grüße', 'a b', 'a-b', '_x', '日本'];

/**
 * Records the SQL of the statements `s`'s store runs from now on. Only statements that return count:
 * a subquery built from the store's own query builder passes transformQuery too, under its own id.
 */
function recordStatements(s: TestServer): { take(): string[] } {
  const compiled = new Map<unknown, string>();
  let seen: string[] = [];
  const executor = s.rt.store.db.getExecutor();
  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs) {
      compiled.set(args.queryId, executor.compileQuery(args.node, args.queryId).sql);
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs) {
      seen.push(compiled.get(args.queryId) ?? '?');
      return args.result;
    },
  };
  s.rt.store.db = s.rt.store.db.withPlugin(plugin);
  return {
    take() {
      const out = seen;
      seen = [];
      compiled.clear();
      return out;
    },
  };
}

function print(title: string, list: readonly string[]): void {
  if (!process.env.AUTHSRV_LOG_STATEMENTS) return;
  const lines = list.map((x, i) => `${String(i + 1).padStart(2)}. ${x.slice(0, 240)}`);
  process.stdout.write(`\n${title}: ${list.length} statements\n${lines.join('\n')}\n`);
}

describe.each(testDialects())('statements of GET /token/ on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  let rec: { take(): string[] };

  useTokenServer(
    dialect,
    { realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)], arealm: [], zrealm: [] } },
    (t) => {
      ({ s, op, admin } = t);
    },
  );
  beforeAll(async () => {
    const db = s.rt.store.db;
    for (const g of GROUPS) await setTokenGroup(op, g, `group ${g}`);
    for (let i = 1; i <= 7; i++) {
      const serial = `LIST${i}`;
      await initToken(op, i % 2 ? { type: 'hotp', otpkey: KEY, serial } : { type: 'spass', serial });
      const id = (await tokenRow(s, serial)).id;
      if (i <= 4) await assignToken(op, { serial, user: i % 2 ? 'alice' : 'bob', realm: 'realm1' });
      if (i <= 3) await setTokenRealms(db, id, ['zrealm', 'realm1', 'arealm']);
      if (i <= 5) for (const g of GROUPS.slice(0, i + 3)) await addTokenToGroup(op, serial, g);
      await setTokenInfo(s.rt, db, id, { quote: `it's "x" \\ ${i}`, unicode: 'Grüße 🔐', lines: 'a\nb' });
      if (i % 3 === 0) await setTokenInfo(s.rt, db, id, { secret: `s3cr3t ${i}` }, 'password');
    }
    // An owner whose realm is gone, and a token without tokeninfo, realms, owner or groups.
    await db
      .insertInto('tokenowner')
      .values({
        token_id: (await tokenRow(s, 'LIST6')).id,
        resolver: 'realm1-res',
        user_id: '1001',
        realm_id: 999_999,
      })
      .execute();
    await db
      .deleteFrom('tokeninfo')
      .where('token_id', '=', (await tokenRow(s, 'LIST7')).id)
      .execute();
    rec = recordStatements(s);
    // One listing first: start-up reads (policies, resolvers) are done, as on a busy server.
    ok(await s.call('GET', '/token/', {}, admin));
    rec.take();
  });

  /** What the separate queries give for the rows of the page, in the answer's JSON form. */
  async function separately(sortby: 'serial' | 'tokentype', desc: boolean, limit: number, offset: number) {
    const rows = await s.rt.store.db
      .selectFrom('token')
      .selectAll()
      .orderBy(sortby, desc ? 'desc' : 'asc')
      .orderBy('id')
      .limit(limit)
      .offset(offset)
      .execute();
    return JSON.parse(JSON.stringify(await tokenViews(s.rt, await loadRows(s.rt, rows))));
  }

  for (const [name, params, sortby, desc, limit, offset] of [
    ['the first page', {}, 'serial', false, 15, 0],
    [
      'a later page sorted descending',
      { pagesize: '3', page: '2', sortby: 'tokentype', sortdir: 'desc' },
      'tokentype',
      true,
      3,
      3,
    ],
  ] as const) {
    it(`${name} is the count and one statement, answering what the separate queries give`, async () => {
      rec.take();
      const r = await s.call('GET', '/token/', params, admin);
      const value = ok(r) as { tokens: Record<string, unknown>[]; count: number };
      const list = rec.take();
      print(`${dialect} ${name}`, list);
      const tokenPart = list.filter((x) => TOKEN_TABLES.test(x));
      expect(tokenPart.length, tokenPart.join('\n')).toBeLessThanOrEqual(2);
      expect(value.count).toBe(7);
      expect(value.tokens).toEqual(await separately(sortby, desc, limit, offset));
    });
  }

  it('lists names in the order of the database, and sealed tokeninfo as __CENSORED__', async () => {
    const { tokens } = ok(await s.call('GET', '/token/', { serial: 'LIST3' }, admin)) as {
      tokens: Record<string, unknown>[];
    };
    expect(tokens[0]).toMatchObject({
      realms: ['arealm', 'realm1', 'zrealm'],
      username: 'alice',
      user_realm: 'realm1',
      // A sealed (password-typed) value is a secret: it leaves only as __CENSORED__.
      info: { quote: `it's "x" \\ 3`, unicode: 'Grüße 🔐', lines: 'a\nb', secret: '__CENSORED__' },
    });
    expect([...(tokens[0]!.tokengroup as string[])].sort()).toEqual([...GROUPS.slice(0, 6)].sort());
  });
});
