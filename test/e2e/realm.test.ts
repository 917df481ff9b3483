import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { expectServiceError, jsonCall, ok, userToken, writePasswdFile } from '../helpers/user-stores.ts';

describe.each(testDialects())('/realm and /defaultrealm on %s', (dialect) => {
  let s: TestServer;
  let admin: string;

  beforeAll(async () => {
    s = await startTestServer({ dialect, config: { 'security.superuser_realms': 'SuperRealm, other' } });
    admin = await s.adminToken();
    // Two stores that both know "alice", with different passwords and ids.
    const a = await writePasswdFile(s.dataDir, 'passwd-a', [
      { login: 'alice', password: 'from-a', uid: 1001, gecos: 'Alice A' },
      { login: 'anna', password: 'anna', uid: 1003 },
    ]);
    const b = await writePasswdFile(s.dataDir, 'passwd-b', [
      { login: 'alice', password: 'from-b', uid: 2001, gecos: 'Alice B' },
      { login: 'bert', password: 'bert', uid: 2002 },
    ]);
    ok(await s.call('POST', '/resolver/resA', { type: 'passwdresolver', Filename: a }, admin));
    ok(await s.call('POST', '/resolver/resB', { type: 'passwdresolver', Filename: b }, admin));
  });
  afterAll(async () => s?.close());

  async function realms() {
    return ok(await s.call('GET', '/realm/', {}, admin));
  }
  async function realmCount() {
    return (await s.rt.store.db.selectFrom('realm').select('id').execute()).length;
  }

  it('has no realms and no default realm at first', async () => {
    expect(await realms()).toEqual({});
    expect(ok(await s.call('GET', '/defaultrealm', {}, admin))).toEqual({});
  });

  it('creates a realm from a comma string; the first realm becomes the default', async () => {
    const v = ok(await s.call('POST', '/realm/first', { resolvers: 'resA, resB' }, admin));
    expect(v).toEqual({ added: ['resA', 'resB'], failed: [] });
    const all = await realms();
    expect(all.first).toEqual({
      id: expect.any(Number),
      default: true,
      resolver: [
        { name: 'resA', type: 'passwdresolver', priority: null, node: '' },
        { name: 'resB', type: 'passwdresolver', priority: null, node: '' },
      ],
    });
    const d = ok(await s.call('GET', '/defaultrealm', {}, admin));
    expect(d).toEqual({ first: all.first });
  });

  it('creates a realm from a JSON list with JSON integer priorities', async () => {
    const v = ok(
      await jsonCall(
        s,
        'POST',
        '/realm/second',
        { resolvers: ['resA', 'resB'], 'priority.resA': 2, 'priority.resB': 1 },
        admin,
      ),
    );
    expect(v).toEqual({ added: ['resA', 'resB'], failed: [] });
    const r = (await realms()).second;
    expect(r.default).toBe(false);
    expect(r.resolver).toEqual([
      { name: 'resB', type: 'passwdresolver', priority: 1, node: '' },
      { name: 'resA', type: 'passwdresolver', priority: 2, node: '' },
    ]);
  });

  it('takes priorities from form strings too and replaces the resolver list', async () => {
    ok(await s.call('POST', '/realm/second', { resolvers: 'resA', 'priority.resA': '5' }, admin));
    expect((await realms()).second.resolver).toEqual([
      { name: 'resA', type: 'passwdresolver', priority: 5, node: '' },
    ]);
    expectServiceError(
      await s.call('POST', '/realm/second', { resolvers: 'resA', 'priority.resA': 'high' }, admin),
      905,
    );
    expectServiceError(
      await jsonCall(s, 'POST', '/realm/second', { resolvers: 'resA', 'priority.resA': 1.5 }, admin),
      905,
    );
    expect((await realms()).second.resolver[0].priority).toBe(5);
    // A blank form field or a JSON null is no priority.
    ok(await s.call('POST', '/realm/second', { resolvers: 'resA', 'priority.resA': '' }, admin));
    expect((await realms()).second.resolver[0].priority).toBeNull();
    ok(await jsonCall(s, 'POST', '/realm/second', { resolvers: ['resA'], 'priority.resA': null }, admin));
    expect((await realms()).second.resolver[0].priority).toBeNull();
    // Priorities of resolvers not in the list are ignored; names match case-insensitively.
    const v = ok(
      await s.call(
        'POST',
        '/realm/second',
        { resolvers: 'RESA', 'priority.resa': '5', 'priority.resB': '1' },
        admin,
      ),
    );
    expect(v).toEqual({ added: ['resA'], failed: [] });
    expect((await realms()).second.resolver).toEqual([
      { name: 'resA', type: 'passwdresolver', priority: 5, node: '' },
    ]);
  });

  it('reports unknown resolvers in failed, and refuses a realm of only unknown resolvers', async () => {
    const v = ok(await s.call('POST', '/realm/third', { resolvers: 'resB,nosuch' }, admin));
    expect(v).toEqual({ added: ['resB'], failed: ['nosuch'] });
    expect((await realms()).third.resolver.map((r: { name: string }) => r.name)).toEqual(['resB']);
    const n = await realmCount();
    const r = await s.call('POST', '/realm/fourth', { resolvers: 'nosuch,other' }, admin);
    expect(r.status).toBe(200);
    expect(r.json.result.status).toBe(false);
    expect(r.json.result.error.message).toMatch(/^ERR\d+: /);
    expect(await realmCount()).toBe(n);
    expectServiceError(await s.call('POST', '/realm/fourth', {}, admin), 905);
    expectServiceError(await s.call('POST', '/realm/fourth', { resolvers: '' }, admin), 905);
    expect(await realmCount()).toBe(n);
  });

  it('lower-cases realm names, turns spaces into dashes and refuses invalid names', async () => {
    const v = ok(await s.call('POST', '/realm/My%20Big%20Realm', { resolvers: 'resA' }, admin));
    expect(v.added).toEqual(['resA']);
    const all = await realms();
    expect(all).toHaveProperty('my-big-realm');
    expect(all).not.toHaveProperty('My Big Realm');
    const n = await realmCount();
    expectServiceError(await s.call('POST', '/realm/bad!name', { resolvers: 'resA' }, admin), 905);
    expectServiceError(await s.call('POST', '/realm/b%C3%A4d', { resolvers: 'resA' }, admin), 905);
    expect(await realmCount()).toBe(n);
    // The same realm in other spelling is the same realm.
    ok(await s.call('POST', '/realm/MY-BIG-REALM', { resolvers: 'resB' }, admin));
    expect((await realms())['my-big-realm'].resolver.map((r: { name: string }) => r.name)).toEqual(['resB']);
    expect(await realmCount()).toBe(n);
  });

  it('finds a user in the resolver of the lowest priority number first', async () => {
    // second: only resA (priority 5). third: only resB. Now both, resB first.
    ok(
      await jsonCall(
        s,
        'POST',
        '/realm/second',
        { resolvers: ['resA', 'resB'], 'priority.resA': 2, 'priority.resB': 1 },
        admin,
      ),
    );
    const r = await s.call('POST', '/auth', { username: 'alice@second', password: 'from-b' });
    expect(r.status).toBe(200);
    expect(r.json.result.value.realm).toBe('second');
    expect((await s.call('POST', '/auth', { username: 'alice@second', password: 'from-a' })).status).toBe(
      401,
    );
    // Turned round, resA wins.
    ok(
      await s.call(
        'POST',
        '/realm/second',
        { resolvers: 'resA,resB', 'priority.resA': '1', 'priority.resB': '2' },
        admin,
      ),
    );
    expect((await s.call('POST', '/auth', { username: 'alice@second', password: 'from-a' })).status).toBe(
      200,
    );
    expect((await s.call('POST', '/auth', { username: 'alice@second', password: 'from-b' })).status).toBe(
      401,
    );
    // Users only one resolver knows are found whatever the order.
    expect((await s.call('POST', '/auth', { username: 'bert@second', password: 'bert' })).status).toBe(200);
    // Without priorities the resolvers are asked in the order the realm lists them.
    ok(await s.call('POST', '/realm/first', { resolvers: 'resA,resB' }, admin));
    expect((await s.call('POST', '/auth', { username: 'alice@first', password: 'from-a' })).status).toBe(200);
    ok(await s.call('POST', '/realm/first', { resolvers: 'resB,resA' }, admin));
    expect((await s.call('POST', '/auth', { username: 'alice@first', password: 'from-b' })).status).toBe(200);
    expect((await s.call('POST', '/auth', { username: 'alice@first', password: 'from-a' })).status).toBe(401);
    ok(await s.call('POST', '/realm/first', { resolvers: 'resA,resB' }, admin));
    // The user list shows the winning resolver for the user.
    const token = await userToken(s, 'alice@second', 'from-a');
    const me = ok(await s.call('GET', '/user/', {}, token));
    expect(me).toHaveLength(1);
    expect(me[0]).toMatchObject({ username: 'alice', userid: '1001', resolver: 'resA' });
  });

  it('sets, shows and clears the default realm', async () => {
    const all = await realms();
    expect(ok(await s.call('POST', '/defaultrealm/SECOND', {}, admin))).toBe(all.second.id);
    let now = await realms();
    expect(now.second.default).toBe(true);
    expect(now.first.default).toBe(false);
    expect(Object.keys(ok(await s.call('GET', '/defaultrealm', {}, admin)))).toEqual(['second']);
    expectServiceError(
      await s.call('POST', '/defaultrealm/nosuch', {}, admin),
      601,
      'The requested Realm could not be found.',
    );
    expect((await realms()).second.default).toBe(true);
    expect(ok(await s.call('DELETE', '/defaultrealm', {}, admin))).toBe(all.second.id);
    now = await realms();
    expect(Object.values(now).some((r) => (r as { default: boolean }).default)).toBe(false);
    expect(ok(await s.call('GET', '/defaultrealm', {}, admin))).toEqual({});
    expect(ok(await s.call('DELETE', '/defaultrealm', {}, admin))).toBe(0);
    ok(await s.call('POST', '/defaultrealm/first', {}, admin));
  });

  it('deletes realms; unknown is ERR601; the last remaining realm becomes the default', async () => {
    const r = await s.call('DELETE', '/realm/nosuch', {}, admin);
    expect(r.status).toBe(200);
    expect(r.json.result.status).toBe(false);
    expect(r.json.result.error).toEqual({
      code: 601,
      message: 'ERR601: The requested Realm could not be found.',
    });
    const all = await realms();
    expect(ok(await s.call('DELETE', '/realm/THIRD', {}, admin))).toBe(all.third.id);
    expect(ok(await s.call('POST', '/defaultrealm/My%20Big%20Realm', {}, admin))).toBe(
      all['my-big-realm'].id,
    );
    ok(await s.call('POST', '/defaultrealm/first', {}, admin));
    expect(ok(await s.call('DELETE', '/realm/My%20Big%20Realm', {}, admin))).toBe(all['my-big-realm'].id);
    expect(Object.keys(await realms()).sort()).toEqual(['first', 'second']);
    // Deleting the default with one realm left makes that one the default.
    expect(ok(await s.call('DELETE', '/realm/first', {}, admin))).toBe(all.first.id);
    const left = await realms();
    expect(Object.keys(left)).toEqual(['second']);
    expect(left.second.default).toBe(true);
    // A realm's deletion frees its resolvers.
    ok(await s.call('DELETE', '/realm/second', {}, admin));
    expect(await realms()).toEqual({});
    expect(ok(await s.call('DELETE', '/resolver/resB', {}, admin))).toBeGreaterThan(0);
  });

  it('deleting a default realm while two others remain leaves no default', async () => {
    ok(
      await s.call(
        'POST',
        '/resolver/resB',
        { type: 'passwdresolver', Filename: `${s.dataDir}/passwd-b` },
        admin,
      ),
    );
    for (const name of ['x1', 'x2', 'x3'])
      ok(await s.call('POST', `/realm/${name}`, { resolvers: 'resA' }, admin));
    expect((await realms()).x1.default).toBe(true);
    ok(await s.call('DELETE', '/realm/x1', {}, admin));
    const all = await realms();
    expect(all.x2.default).toBe(false);
    expect(all.x3.default).toBe(false);
  });

  it('lists the superuser realms of the configuration file', async () => {
    expect(ok(await s.call('GET', '/realm/superuser', {}, admin))).toEqual(['superrealm', 'other']);
  });

  it('is for administrators only', async () => {
    const user = await userToken(s, 'anna@x2', 'anna');
    for (const [method, path] of [
      ['GET', '/realm/'],
      ['GET', '/realm/superuser'],
      ['POST', '/realm/x9'],
      ['DELETE', '/realm/x2'],
      ['GET', '/defaultrealm'],
      ['POST', '/defaultrealm/x2'],
      ['DELETE', '/defaultrealm'],
    ] as const) {
      const r = await s.call(method, path, { resolvers: 'resA' }, user);
      expect(r.status).toBe(401);
      expect(r.json.result.error.code).toBe(4306);
    }
    expect(Object.keys(await realms()).sort()).toEqual(['x2', 'x3']);
  });
});
