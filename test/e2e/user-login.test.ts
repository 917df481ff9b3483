import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ScimServer, startScimServer } from '../../scripts/fixtures/scim-server.ts';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  expectServiceError,
  ok,
  sqliteUsers,
  sqlResolverParams,
  userToken,
  writePasswdFile,
  writeSqliteUsers,
} from '../helpers/user-stores.ts';

const WRONG = 'Authentication failure. Wrong credentials';

describe.each(testDialects())('/auth for realm users on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let sqlite: string;
  let scim: ScimServer;

  beforeAll(async () => {
    s = await startTestServer({ dialect, config: { 'security.superuser_realms': 'Admins' } });
    admin = await s.adminToken();
    const passwd = await writePasswdFile(s.dataDir, 'passwd', [
      { login: 'alice', password: 'alicepw', uid: 1001, gecos: 'Alice Smith' },
      { login: 'bob@example.com', password: 'bobpw', uid: 1002 },
      { login: 'locked', uid: 1003 },
    ]);
    const boss = await writePasswdFile(s.dataDir, 'passwd-admins', [
      { login: 'boss', password: 'bosspw', uid: 1 },
    ]);
    sqlite = await writeSqliteUsers(s.dataDir, 'users.db', [
      { username: 'carol', password: 'carolpw', email: 'carol@x.org' },
      { username: 'dave', password: 'davepw', email: 'dave@x.org' },
    ]);
    scim = await startScimServer({});
    ok(await s.call('POST', '/resolver/files', { type: 'passwdresolver', Filename: passwd }, admin));
    ok(await s.call('POST', '/resolver/bosses', { type: 'passwdresolver', Filename: boss }, admin));
    ok(await s.call('POST', '/resolver/db', sqlResolverParams(sqlite, true), admin));
    ok(
      await s.call(
        'POST',
        '/resolver/scim',
        {
          type: 'scimresolver',
          Authserver: scim.authUrl,
          Resourceserver: scim.resourceUrl,
          Client: scim.clientId,
          Secret: scim.clientSecret,
        },
        admin,
      ),
    );
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'files' }, admin)); // the default realm
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'db' }, admin));
    ok(await s.call('POST', '/realm/admins', { resolvers: 'bosses' }, admin));
    ok(await s.call('POST', '/realm/scimrealm', { resolvers: 'scim' }, admin));
    ok(await s.call('POST', '/realm/example.com', { resolvers: 'db' }, admin));
  });
  afterAll(async () => {
    await s?.close();
    await scim?.stop();
  });

  async function login(params: Record<string, string>) {
    return s.call('POST', '/auth', params);
  }
  function expectRejected(r: Awaited<ReturnType<typeof login>>, message = WRONG) {
    expect(r.status).toBe(401);
    expect(r.json.result.status).toBe(false);
    expect(r.json.result.error).toEqual({ code: 4031, message });
  }

  describe('login', () => {
    it('accepts user@realm, realm\\user, the realm parameter and the default realm', async () => {
      const variants: Record<string, string>[] = [
        { username: 'alice@realm1', password: 'alicepw' },
        { username: 'alice@REALM1', password: 'alicepw' },
        { username: 'realm1\\alice', password: 'alicepw' },
        { username: 'alice', password: 'alicepw', realm: 'realm1' },
        { username: 'alice', password: 'alicepw', realm: 'Realm1' },
        { username: 'alice', password: 'alicepw' },
      ];
      for (const params of variants) {
        const r = await login(params);
        expect(r.status, JSON.stringify(params)).toBe(200);
        const v = r.json.result.value;
        expect(v).toMatchObject({ role: 'user', username: 'alice', realm: 'realm1', auth: true });
        expect(Array.isArray(v.rights)).toBe(true);
        const claims = decodeJwt(v.token);
        expect(claims).toMatchObject({
          username: 'alice',
          realm: 'realm1',
          role: 'user',
          authtype: 'password',
        });
      }
      const carols: Record<string, string>[] = [
        { username: 'carol@realm2', password: 'carolpw' },
        { username: 'realm2\\carol', password: 'carolpw' },
        { username: 'carol', password: 'carolpw', realm: 'realm2' },
      ];
      for (const params of carols) {
        const r = await login(params);
        expect(r.status, JSON.stringify(params)).toBe(200);
        expect(r.json.result.value).toMatchObject({ role: 'user', username: 'carol', realm: 'realm2' });
      }
    });

    it('the realm parameter overrides a realm in the user name', async () => {
      const r = await login({ username: 'carol@realm1', password: 'carolpw', realm: 'realm2' });
      expect(r.status).toBe(200);
      expect(r.json.result.value).toMatchObject({ username: 'carol', realm: 'realm2' });
    });

    it('keeps an @ that is not followed by a realm in the login', async () => {
      const r = await login({ username: 'bob@example.com', password: 'bobpw' });
      // example.com is a realm, so the name is split there, and bob is not in it.
      expectRejected(r);
      const ok1 = await login({ username: 'bob@example.com', password: 'bobpw', realm: 'realm1' });
      // The realm parameter overrides the realm part: "bob" in realm1 does not exist either.
      expectRejected(ok1);
      ok(await s.call('DELETE', '/realm/example.com', {}, admin));
      const r2 = await login({ username: 'bob@example.com', password: 'bobpw' });
      expect(r2.status).toBe(200);
      expect(r2.json.result.value).toMatchObject({ username: 'bob@example.com', realm: 'realm1' });
      const r3 = await login({ username: 'bob@example.com@realm1', password: 'bobpw' });
      expect(r3.status).toBe(200);
      expect(r3.json.result.value).toMatchObject({ username: 'bob@example.com', realm: 'realm1' });
    });

    it('refuses an unknown realm parameter, wrong passwords and unknown users with 401/4031', async () => {
      expectRejected(
        await login({ username: 'alice', password: 'alicepw', realm: 'nosuch' }),
        'Authentication failure. Unknown realm: nosuch.',
      );
      expectRejected(await login({ username: 'alice', password: 'wrong' }));
      expectRejected(await login({ username: 'alice@realm1', password: '' }));
      expectRejected(await login({ username: 'alice@realm2', password: 'alicepw' }));
      expectRejected(await login({ username: 'nosuch\\alice', password: 'alicepw' }));
      expectRejected(await login({ username: 'nobody', password: 'x' }));
      expectRejected(await login({ username: 'locked', password: 'x' }));
      expectRejected(await login({ username: 'locked', password: '' }));
      // A store that cannot check passwords (SCIM) rejects, it does not fail.
      expectRejected(await login({ username: 'alice@scimrealm', password: 'x' }));
      const m = await login({ password: 'alicepw', realm: 'realm1' });
      expect(m.status).toBe(401);
      expect(m.json.result.error.code).toBe(4032);
    });

    it('makes users of a superuser realm administrators', async () => {
      const r = await login({ username: 'boss@admins', password: 'bosspw' });
      expect(r.status).toBe(200);
      const v = r.json.result.value;
      expect(v).toMatchObject({ role: 'admin', username: 'boss', realm: 'admins' });
      expect(decodeJwt(v.token)).toMatchObject({ role: 'admin', realm: 'admins', username: 'boss' });
      expect(v.rights).toContain('resolverwrite');
      expect(ok(await s.call('GET', '/resolver/', {}, v.token))).toHaveProperty('files');
      expect(ok(await s.call('GET', '/realm/superuser', {}, v.token))).toEqual(['admins']);
    });

    it('handles concurrent logins while the resolver settings change', async () => {
      const logins = Array.from({ length: 20 }, (_, i) =>
        login({ username: i % 2 ? 'carol@realm2' : 'dave@realm2', password: i % 2 ? 'carolpw' : 'davepw' }),
      );
      // A change of settings in the middle reopens the store; requests under way finish.
      const change = s.call('POST', '/resolver/db', { Limit: '90' }, admin);
      const answers = await Promise.all(logins);
      ok(await change);
      expect(answers.map((r) => r.status)).toEqual(answers.map(() => 200));
      expect((await login({ username: 'carol@realm2', password: 'carolpw' })).status).toBe(200);
    });

    it('writes the realm user into the audit log', async () => {
      await login({ username: 'alice@realm1', password: 'alicepw' });
      await login({ username: 'alice@realm1', password: 'bad' });
      const rows = await s.rt.store.db
        .selectFrom('audit')
        .selectAll()
        .where('action', '=', 'POST /auth')
        .orderBy('id', 'desc')
        .limit(2)
        .execute();
      expect(rows.map((r) => Boolean(r.success))).toEqual([false, true]);
      expect(rows[1]).toMatchObject({ user: 'alice', realm: 'realm1', administrator: '' });
      expect(rows[0]!.user).toMatch(/^alice/);
    });

    it('splitAtSign=False keeps the @ part in the login name', async () => {
      ok(await s.call('POST', '/system/setConfig', { splitAtSign: 'False' }, admin));
      try {
        expectRejected(await login({ username: 'carol@realm2', password: 'carolpw' }));
        expect((await login({ username: 'carol', password: 'carolpw', realm: 'realm2' })).status).toBe(200);
        expect((await login({ username: 'realm2\\carol', password: 'carolpw' })).status).toBe(200);
        const r = await login({ username: 'bob@example.com', password: 'bobpw' });
        expect(r.status).toBe(200);
        expect(r.json.result.value.username).toBe('bob@example.com');
        // The same rule applies wherever an administrator names a user.
        expectServiceError(await s.call('GET', '/user/attribute', { user: 'carol@realm2' }, admin), 904);
      } finally {
        ok(await s.call('POST', '/system/setConfig', { splitAtSign: 'True' }, admin));
      }
      expect((await login({ username: 'carol@realm2', password: 'carolpw' })).status).toBe(200);
    });
  });

  describe('what a user JWT may do', () => {
    let carol: string;
    let alice: string;
    beforeAll(async () => {
      carol = await userToken(s, 'carol@realm2', 'carolpw');
      alice = await userToken(s, 'alice@realm1', 'alicepw');
    });

    it('lists only the user themselves', async () => {
      const asks: Record<string, string>[] = [
        {},
        { realm: 'realm2' },
        { realm: 'realm1' },
        { username: 'dave' },
        { resolver: 'files' },
      ];
      for (const params of asks) {
        const list = ok(await s.call('GET', '/user/', params, carol));
        expect(list, JSON.stringify(params)).toHaveLength(1);
        expect(list[0]).toMatchObject({
          username: 'carol',
          resolver: 'db',
          email: 'carol@x.org',
          editable: true,
        });
      }
      const mine = ok(await s.call('GET', '/user/', {}, alice));
      expect(mine).toEqual([
        expect.objectContaining({ username: 'alice', resolver: 'files', editable: false }),
      ]);
      const few = ok(await s.call('GET', '/user/', { attributes: 'email' }, carol));
      expect(few).toEqual([
        { username: 'carol', userid: '1', email: 'carol@x.org', resolver: 'db', editable: true },
      ]);
    });

    it('edits only the user themselves', async () => {
      expect(ok(await s.call('PUT', '/user/', { email: 'carol@new.org' }, carol))).toBe(true);
      // user and resolver are the caller's, whatever the request says.
      expect(ok(await s.call('PUT', '/user/', { user: 'dave', resolver: 'db', mobile: '999' }, carol))).toBe(
        true,
      );
      const rows = sqliteUsers(sqlite);
      expect(rows.find((r) => r.username === 'carol')).toMatchObject({
        email: 'carol@new.org',
        mobile: '999',
      });
      expect(rows.find((r) => r.username === 'dave')).toMatchObject({ email: 'dave@x.org', mobile: null });
      // Their own password, then the old one no longer works.
      ok(await s.call('PUT', '/user', { password: 'carolpw2' }, carol));
      expect((await login({ username: 'carol@realm2', password: 'carolpw' })).status).toBe(401);
      expect((await login({ username: 'carol@realm2', password: 'carolpw2' })).status).toBe(200);
      // A user of a store that is not editable cannot edit themselves either.
      expectServiceError(await s.call('PUT', '/user/', { email: 'a@b.c' }, alice), 904, /not editable/);
    });

    it('may not create or delete users', async () => {
      const before = sqliteUsers(sqlite);
      for (const [method, path] of [
        ['POST', '/user/'],
        ['POST', '/user'],
        ['DELETE', '/user/db/dave'],
        ['DELETE', '/user/db/carol'],
      ] as const) {
        const r = await s.call(method, path, { user: 'zed', resolver: 'db' }, carol);
        expect(r.status).toBe(401);
        expect(r.json.result.error.code).toBe(4306);
      }
      expect(sqliteUsers(sqlite)).toEqual(before);
    });

    it('reads the system configuration', async () => {
      const r = await s.call('GET', '/system/', {}, carol);
      expect(r.status).toBe(200);
      expect(r.json.result.status).toBe(true);
    });

    it('may not set or delete custom attributes until policies allow it, and sees only their own', async () => {
      ok(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'carol', realm: 'realm2', key: 'team', value: 'red' },
          admin,
        ),
      );
      ok(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'dave', realm: 'realm2', key: 'team', value: 'blue' },
          admin,
        ),
      );
      const set = await s.call('POST', '/user/attribute', { key: 'team', value: 'green' }, carol);
      expectServiceError(set, 303);
      expect(set.json.result.error.message).toContain('team');
      expectServiceError(await s.call('DELETE', '/user/attribute/team/carol/realm2', {}, carol), 303);
      expectServiceError(await s.call('DELETE', '/user/attribute/team/dave/realm2', {}, carol), 303);
      // Reading: always their own, whatever user is named.
      expect(ok(await s.call('GET', '/user/attribute', {}, carol))).toEqual({ team: 'red' });
      expect(ok(await s.call('GET', '/user/attribute', { user: 'dave', realm: 'realm2' }, carol))).toEqual({
        team: 'red',
      });
      expect(ok(await s.call('GET', '/user/attribute', { key: 'team' }, carol))).toBe('red');
      expect(ok(await s.call('GET', '/user/editable_attributes/', {}, carol))).toEqual({
        delete: [],
        set: {},
      });
      // Nothing changed.
      expect(ok(await s.call('GET', '/user/attribute', { user: 'carol', realm: 'realm2' }, admin))).toEqual({
        team: 'red',
      });
      expect(ok(await s.call('GET', '/user/attribute', { user: 'dave', realm: 'realm2' }, admin))).toEqual({
        team: 'blue',
      });
      // The merged listing shows it.
      expect(ok(await s.call('GET', '/user/', {}, carol))[0]).toMatchObject({ team: 'red' });
    });

    it('may not use administrator endpoints', async () => {
      for (const [method, path] of [
        ['GET', '/resolver/'],
        ['GET', '/realm/'],
        ['POST', '/system/setConfig'],
      ] as const) {
        const r = await s.call(method, path, { splitAtSign: 'False' }, carol);
        expect(r.status).toBe(401);
        expect(r.json.result.error.code).toBe(4306);
      }
    });

    it('a user JWT of a user who has gone is refused where the user is needed', async () => {
      ok(await s.call('POST', '/user/', { user: 'gone', resolver: 'db', password: 'gonepw' }, admin));
      const gone = await userToken(s, 'gone@realm2', 'gonepw');
      ok(await s.call('DELETE', '/user/db/gone', {}, admin));
      const r = await s.call('GET', '/user/', {}, gone);
      expect(r.json.result.status).toBe(false);
      expect(r.json.result.error.code).toBe(904);
    });
  });
});
