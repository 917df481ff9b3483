// GET /token/ filters of reference 3.4 beyond the basic ones: type_list, infokey + infovalue,
// userid and resolver (with `*` wildcards), container_serial, wildcard rollout_state, stable paging
// on ties, the hide_tokeninfo policy (hidden_tokeninfo is never taken from the request), bad values
// (ERR905, never a server error) and the restrictions of users and realm-restricted administrators.
import { beforeAll, describe, expect, it } from 'vitest';
import { addAdmin } from '../../src/core/auth/admins.ts';
import type { Context } from '../../src/core/context.ts';
import { type PolicyInput, setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok, userToken } from '../helpers/user-stores.ts';

type Listed = { serial: string; info: Record<string, string> };
const ALL = ['A1', 'A2', 'B1', 'C1', 'F1', 'F2'];

describe.each(testDialects())('GET /token/ filters on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;

  useTokenServer(
    dialect,
    {
      realms: { realm1: [pwUser('alice', 1001), pwUser('bob', 1002)], realm2: [pwUser('carol', 2001)] },
      reset: ['policies'],
    },
    (t) => ({ s, op, admin } = t),
  );
  beforeAll(async () => {
    await addAdmin(op, 'helper', 'Helper-pass-1');
    const init = async (params: Record<string, string>) =>
      expect(ok(await s.call('POST', '/token/init', params, admin))).toBe(true);
    await init({ serial: 'A1', type: 'hotp', genkey: '1', user: 'alice', realm: 'realm1' });
    await init({ serial: 'A2', type: 'totp', genkey: '1', user: 'alice', realm: 'realm1' });
    await init({ serial: 'B1', type: 'hotp', genkey: '1', user: 'bob', realm: 'realm1' });
    await init({ serial: 'C1', type: 'totp', genkey: '1', user: 'carol', realm: 'realm2' });
    await init({ serial: 'F1', type: 'spass', pin: 'abcd', realm: 'realm1' });
    await init({ serial: 'F2', type: 'hotp', genkey: '1' });
    for (const [serial, dept] of [
      ['A1', 'sales'],
      ['A2', 'it'],
      ['B1', 'sales'],
      ['C1', 'sales'],
      ['F2', 'sales'],
    ] as const)
      ok(await s.call('POST', `/token/info/${serial}/dept`, { value: dept }, admin));
    // `key` is a reserved word in MySQL: the column must be quoted.
    ok(await s.call('POST', '/token/info/F1/key', { value: 'x' }, admin));
  });

  const policy = (name: string, input: PolicyInput) => setPolicy(op, name, input);
  const list = async (params: Record<string, string>, token = admin) =>
    ok(await s.call('GET', '/token/', params, token));
  const serials = async (params: Record<string, string>, token = admin) =>
    ((await list(params, token)).tokens as Listed[]).map((t) => t.serial);

  it('type_list: comma-separated exact types, case-insensitive, with paging and other filters', async () => {
    expect(await serials({ type_list: 'hotp,spass' })).toEqual(['A1', 'B1', 'F1', 'F2']);
    expect(await serials({ type_list: ' TOTP , ' })).toEqual(['A2', 'C1']);
    expect(await serials({ type_list: 'hot*' })).toEqual([]);
    expect(await serials({ type_list: 'nosuchtype' })).toEqual([]);
    expect(await serials({ type_list: 'hotp,totp', assigned: 'false' })).toEqual(['F2']);
    const page2 = await list({ type_list: 'hotp,totp', pagesize: '2', page: '2' });
    expect(page2).toMatchObject({ count: 5, prev: 1, next: 3 });
    expect(page2.tokens.map((t: Listed) => t.serial)).toEqual(['B1', 'C1']);
    const last = await list({ type_list: 'hotp,totp', pagesize: '2', page: '3' });
    expect(last).toMatchObject({ count: 5, prev: 2, next: null });
    expect(last.tokens.map((t: Listed) => t.serial)).toEqual(['F2']);
  });

  it('infokey + infovalue: tokens whose tokeninfo has exactly that value', async () => {
    expect(await serials({ infokey: 'dept', infovalue: 'sales' })).toEqual(['A1', 'B1', 'C1', 'F2']);
    expect(await serials({ infokey: 'dept', infovalue: 'it' })).toEqual(['A2']);
    expect(await serials({ infokey: 'key', infovalue: 'x' })).toEqual(['F1']);
    // Exact match: no wildcards, no prefix matching.
    expect(await serials({ infokey: 'dept', infovalue: 'sal*' })).toEqual([]);
    expect(await serials({ infokey: 'dept', infovalue: 'sale' })).toEqual([]);
    expect(await serials({ infokey: 'nokey', infovalue: 'sales' })).toEqual([]);
    expect(await serials({ infokey: 'dept', infovalue: 'sales', type_list: 'totp' })).toEqual(['C1']);
    const page = await list({ infokey: 'dept', infovalue: 'sales', pagesize: '3', page: '2' });
    expect(page).toMatchObject({ count: 4, prev: 1, next: null });
    expect(page.tokens.map((t: Listed) => t.serial)).toEqual(['F2']);
    // The filter does not change what is shown of the token.
    const [a1] = (await list({ infokey: 'dept', infovalue: 'sales', serial: 'A1' })).tokens as Listed[];
    expect(a1!.info.dept).toBe('sales');
    expect(a1!.info.tokenkind).toBeDefined();
  });

  it('userid and resolver: the owner, exact or with * wildcards (* alone filters nothing)', async () => {
    expect(await serials({ userid: '1001' })).toEqual(['A1', 'A2']);
    expect(await serials({ userid: '100*' })).toEqual(['A1', 'A2', 'B1']);
    expect(await serials({ userid: '*' })).toEqual(ALL);
    expect(await serials({ userid: '**' })).toEqual(ALL);
    expect(await serials({ userid: '100' })).toEqual([]);
    // LIKE special characters are literal: `_` is not "any character".
    expect(await serials({ userid: '1_01*' })).toEqual([]);
    expect(await serials({ userid: '100%' })).toEqual([]);
    expect(await serials({ resolver: 'realm2-res' })).toEqual(['C1']);
    expect(await serials({ resolver: 'realm1*' })).toEqual(['A1', 'A2', 'B1']);
    expect(await serials({ resolver: '*-res' })).toEqual(['A1', 'A2', 'B1', 'C1']);
    expect(await serials({ resolver: '*' })).toEqual(ALL);
    // Both on the same owner.
    expect(await serials({ resolver: 'realm1-res', userid: '1002' })).toEqual(['B1']);
    expect(await serials({ resolver: 'realm1-res', userid: '2001' })).toEqual([]);
    // With user: both must hold.
    expect(await serials({ user: 'alice', realm: 'realm1', resolver: 'realm1-res' })).toEqual(['A1', 'A2']);
    expect(await serials({ user: 'alice', realm: 'realm1', resolver: 'realm2-res' })).toEqual([]);
    const page = await list({ userid: '100*', pagesize: '2', page: '2' });
    expect(page).toMatchObject({ count: 3, prev: 1, next: null });
    expect(page.tokens.map((t: Listed) => t.serial)).toEqual(['B1']);
  });

  it('container_serial: no containers here, so any container serial lists nothing', async () => {
    expect(await list({ container_serial: 'CONT0001' })).toMatchObject({ count: 0, tokens: [] });
    expect(await serials({ container_serial: '' })).toEqual(ALL);
  });

  it('rollout_state accepts * wildcards; ties in the sort column do not move rows between pages', async () => {
    expect(await serials({ rollout_state: '*' })).toEqual(ALL);
    expect(await serials({ rollout_state: 'client*' })).toEqual([]);
    for (const sortby of ['active', 'failcount', 'tokentype', 'locked']) {
      const seen: string[] = [];
      for (let page = 1; page <= 3; page++)
        seen.push(...(await serials({ sortby, pagesize: '2', page: String(page) })));
      expect([...seen].sort()).toEqual(ALL);
    }
  });

  it('rejects bad values with ERR905, never a server error', async () => {
    expectServiceError(
      await s.call('GET', '/token/', { type_list: ',' }, admin),
      905,
      "'type_list' must name at least one token type",
    );
    expectServiceError(
      await s.call('GET', '/token/', { infokey: 'dept' }, admin),
      905,
      "Missing parameter: 'infovalue'",
    );
    expectServiceError(
      await s.call('GET', '/token/', { infovalue: 'sales' }, admin),
      905,
      "Missing parameter: 'infokey'",
    );
    for (const name of ['userid', 'resolver', 'infovalue', 'type_list', 'serial', 'description'])
      expectServiceError(
        await s.call('GET', '/token/', { infokey: 'dept', infovalue: 'x', [name]: 'a\u0000b' }, admin),
        905,
        `The value of '${name}' contains a NUL character`,
      );
    expectServiceError(await s.call('GET', '/token/', { pagesize: '-1', userid: '1001' }, admin), 905);
    // Filter values are capped (issue 16 item 7); infovalue, compared and never a pattern, only at
    // the length of a stored tokeninfo value. Odd values are just values that match nothing.
    const long = 'x'.repeat(5000);
    for (const name of ['userid', 'resolver', 'type_list', 'infokey'])
      expectServiceError(
        await s.call('GET', '/token/', { infokey: 'k', infovalue: 'v', [name]: long }, admin),
        905,
        `The parameter '${name}' is longer than 1024 characters`,
      );
    expect(await list({ infokey: 'dept', infovalue: long })).toMatchObject({ count: 0 });
    expectServiceError(
      await s.call('GET', '/token/', { infokey: 'dept', infovalue: 'x'.repeat(10_001) }, admin),
      905,
      "The parameter 'infovalue' is longer than 10000 characters",
    );
    expect(await list({ userid: "1001' OR '1'='1", resolver: '%' })).toMatchObject({ count: 0 });
    expect(await list({ userid: 'ä€😀*' })).toMatchObject({ count: 0 });
  });

  it('hides tokeninfo keys by the hide_tokeninfo policy; the hidden_tokeninfo parameter is ignored', async () => {
    const [plain] = (await list({ serial: 'A1', hidden_tokeninfo: 'dept' })).tokens as Listed[];
    expect(plain!.info.dept).toBe('sales');
    await policy('admin', { scope: 'admin', action: 'tokenlist, hide_tokeninfo=dept tokenkind' });
    const [hidden] = (await list({ serial: 'A1' })).tokens as Listed[];
    expect(hidden!.info.dept).toBeUndefined();
    expect(hidden!.info.tokenkind).toBeUndefined();
    expect(hidden!.info.hashlib).toBe('sha1');
    // Hidden from the answer, still usable as a filter (as in privacyIDEA).
    expect(await serials({ infokey: 'dept', infovalue: 'it' })).toEqual(['A2']);
    // Users: a user-scope policy of their realm.
    await policy('user', { scope: 'user', action: 'hide_tokeninfo=dept', realm: 'realm1' });
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    const mine = (await list({}, alice)).tokens as Listed[];
    expect(mine.map((t) => t.serial)).toEqual(['A1', 'A2']);
    for (const t of mine) {
      expect(t.info.dept).toBeUndefined();
      expect(t.info.tokenkind).toBeDefined();
    }
    const carol = await userToken(s, 'carol', 'carolpw', 'realm2');
    expect(((await list({}, carol)).tokens as Listed[])[0]!.info.dept).toBe('sales');
  });

  it('keeps users to their own tokens whatever the filters', async () => {
    const alice = await userToken(s, 'alice', 'alicepw', 'realm1');
    expect(await serials({}, alice)).toEqual(['A1', 'A2']);
    expect(await serials({ userid: '1002' }, alice)).toEqual([]);
    expect(await serials({ userid: '*' }, alice)).toEqual(['A1', 'A2']);
    expect(await serials({ resolver: 'realm2-res' }, alice)).toEqual([]);
    expect(await serials({ resolver: 'realm1-res' }, alice)).toEqual(['A1', 'A2']);
    expect(await serials({ type_list: 'hotp,totp,spass' }, alice)).toEqual(['A1', 'A2']);
    expect(await serials({ type_list: 'hotp' }, alice)).toEqual(['A1']);
    expect(await serials({ infokey: 'dept', infovalue: 'sales' }, alice)).toEqual(['A1']);
    expect(
      await serials({ user: 'bob', realm: 'realm1', infokey: 'dept', infovalue: 'sales' }, alice),
    ).toEqual(['A1']);
  });

  it('keeps a realm-restricted administrator to the tokens of his realms whatever the filters', async () => {
    await policy('all', { scope: 'admin', action: '*', adminuser: 'admin' });
    await policy('helpdesk', { scope: 'admin', action: 'tokenlist', adminuser: 'helper', realm: 'realm1' });
    const helper = await userToken(s, 'helper', 'Helper-pass-1');
    expect(await serials({}, helper)).toEqual(['A1', 'A2', 'B1', 'F1']);
    expect(await serials({ type_list: 'totp' }, helper)).toEqual(['A2']);
    // Naming a resolver of another realm names that realm: refused like `realm` (check_base_action).
    expectServiceError(
      await s.call('GET', '/token/', { resolver: 'realm2-res' }, helper),
      303,
      'Admin actions are defined, but the action tokenlist is not allowed!',
    );
    expect(await serials({ resolver: 'realm1-res' }, helper)).toEqual(['A1', 'A2', 'B1']);
    expect(await serials({ resolver: '*-res' }, helper)).toEqual(['A1', 'A2', 'B1']);
    expect(await serials({ userid: '2001' }, helper)).toEqual([]);
    expect(await serials({ infokey: 'dept', infovalue: 'sales' }, helper)).toEqual(['A1', 'B1']);
    const page = await list({ infokey: 'dept', infovalue: 'sales', pagesize: '1', page: '2' }, helper);
    expect(page).toMatchObject({ count: 2, prev: 1, next: null });
    expect(page.tokens.map((t: Listed) => t.serial)).toEqual(['B1']);
    // The unrestricted administrator still sees everything.
    expect(await serials({ infokey: 'dept', infovalue: 'sales' })).toEqual(['A1', 'B1', 'C1', 'F2']);
  });
});
