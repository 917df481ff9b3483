import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe.each(testDialects())('/user on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let sqlite: string;

  beforeAll(async () => {
    s = await startTestServer({ dialect });
    admin = await s.adminToken();
    const passwd = await writePasswdFile(s.dataDir, 'passwd', [
      {
        login: 'alice',
        password: 'alicepw',
        uid: 1001,
        gecos: 'Alice Smith,Room 1,+49 170 1,+49 30 1,alice@x.org',
      },
      { login: 'adam', password: 'adampw', uid: 1002, gecos: 'Adam Apple,,,,adam@y.org' },
      { login: 'bob', password: 'bobpw', uid: 1003, gecos: 'Bob Jones,,,,bob@x.org' },
    ]);
    sqlite = await writeSqliteUsers(s.dataDir, 'users.db', [
      { username: 'carol', password: 'carolpw', givenname: 'Carol', surname: 'King', email: 'carol@x.org' },
      { username: 'dave', password: 'davepw', givenname: 'Dave', email: 'dave@z.org', phone: '123' },
    ]);
    ok(await s.call('POST', '/resolver/files', { type: 'passwdresolver', Filename: passwd }, admin));
    ok(await s.call('POST', '/resolver/db', sqlResolverParams(sqlite, true), admin));
    ok(await s.call('POST', '/resolver/dbro', sqlResolverParams(sqlite, false), admin));
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'files,db' }, admin));
    ok(await s.call('POST', '/realm/realm2', { resolvers: 'dbro' }, admin));
  });
  afterAll(async () => s?.close());

  // biome-ignore lint/suspicious/noExplicitAny: user records are arbitrary JSON
  const names = (list: any[]) => list.map((u) => `${u.username}/${u.resolver}`).sort();

  describe('listing', () => {
    it('lists the users of a realm with the privacyIDEA fields', async () => {
      const list = ok(await s.call('GET', '/user/', { realm: 'realm1' }, admin));
      expect(names(list)).toEqual(['adam/files', 'alice/files', 'bob/files', 'carol/db', 'dave/db']);
      const alice = list.find((u: { username: string }) => u.username === 'alice');
      expect(alice).toEqual({
        username: 'alice',
        userid: '1001',
        givenname: 'Alice',
        surname: 'Smith',
        mobile: '+49 170 1',
        phone: '+49 30 1',
        email: 'alice@x.org',
        description: 'Alice Smith,Room 1,+49 170 1,+49 30 1,alice@x.org',
        resolver: 'files',
        editable: false,
      });
      const carol = list.find((u: { username: string }) => u.username === 'carol');
      expect(carol).toMatchObject({
        username: 'carol',
        givenname: 'Carol',
        surname: 'King',
        email: 'carol@x.org',
        resolver: 'db',
        editable: true,
      });
      expect(carol).not.toHaveProperty('password');
    });

    it('lists every realm without realm and resolver; by resolver alone', async () => {
      const all = ok(await s.call('GET', '/user/', {}, admin));
      expect(names(all)).toEqual([
        'adam/files',
        'alice/files',
        'bob/files',
        'carol/db',
        'carol/dbro',
        'dave/db',
        'dave/dbro',
      ]);
      const files = ok(await s.call('GET', '/user/', { resolver: 'files' }, admin));
      expect(names(files)).toEqual(['adam/files', 'alice/files', 'bob/files']);
      const inRealm = ok(await s.call('GET', '/user/', { realm: 'realm1', resolver: 'db' }, admin));
      expect(names(inRealm)).toEqual(['carol/db', 'dave/db']);
      expect(ok(await s.call('GET', '/user/', { realm: 'realm2', resolver: 'files' }, admin))).toEqual([]);
    });

    it('searches with * wildcards', async () => {
      expect(names(ok(await s.call('GET', '/user/', { realm: 'realm1', username: 'a*' }, admin)))).toEqual([
        'adam/files',
        'alice/files',
      ]);
      expect(names(ok(await s.call('GET', '/user/', { realm: 'realm1', user: 'da*' }, admin)))).toEqual([
        'dave/db',
      ]);
      expect(names(ok(await s.call('GET', '/user/', { realm: 'realm1', email: '*@x.org' }, admin)))).toEqual([
        'alice/files',
        'bob/files',
        'carol/db',
      ]);
      expect(names(ok(await s.call('GET', '/user/', { realm: 'realm1', username: 'bob' }, admin)))).toEqual([
        'bob/files',
      ]);
      expect(ok(await s.call('GET', '/user/', { realm: 'realm1', username: 'nobody' }, admin))).toEqual([]);
      expect(
        names(
          ok(await s.call('GET', '/user/', { resolver: 'files', givenname: 'A*', surname: 'Apple' }, admin)),
        ),
      ).toEqual(['adam/files']);
    });

    it('returns only the asked attributes', async () => {
      const list = ok(
        await s.call(
          'GET',
          '/user/',
          { realm: 'realm1', username: 'alice', attributes: 'email,surname' },
          admin,
        ),
      );
      expect(list).toEqual([
        {
          username: 'alice',
          userid: '1001',
          email: 'alice@x.org',
          surname: 'Smith',
          resolver: 'files',
          editable: false,
        },
      ]);
    });

    it('refuses an unknown realm or resolver', async () => {
      expectServiceError(await s.call('GET', '/user/', { realm: 'nosuch' }, admin), 904);
      expectServiceError(await s.call('GET', '/user/', { resolver: 'nosuch' }, admin), 904);
    });
  });

  describe('custom attributes', () => {
    it('sets, reads, merges and deletes custom attributes', async () => {
      const id = ok(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'alice', realm: 'realm1', key: 'team', value: 'red' },
          admin,
        ),
      );
      expect(typeof id).toBe('number');
      expect(id).toBeGreaterThanOrEqual(0);
      // Setting again updates the same attribute.
      expect(
        ok(
          await s.call(
            'POST',
            '/user/attribute',
            { user: 'alice', realm: 'realm1', key: 'team', value: 'blue', type: 'string' },
            admin,
          ),
        ),
      ).toBe(id);
      ok(await s.call('POST', '/user/attribute', { user: 'alice@realm1', key: 'floor', value: '3' }, admin));
      expect(ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1' }, admin))).toEqual({
        team: 'blue',
        floor: '3',
      });
      expect(
        ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1', key: 'team' }, admin)),
      ).toBe('blue');
      expect(
        ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1', key: 'none' }, admin)),
      ).toBeNull();
      // Names of Object.prototype's members are attributes like any other (were HTTP 500 or lost).
      for (const key of ['constructor', 'toString', '__proto__']) {
        const get = () => s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1', key }, admin);
        expect(ok(await get()), key).toBeNull();
        ok(
          await s.call(
            'POST',
            '/user/attribute',
            { user: 'alice', realm: 'realm1', key, value: `v-${key}` },
            admin,
          ),
        );
        expect(ok(await get()), key).toBe(`v-${key}`);
      }
      const every = ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1' }, admin));
      expect(Object.getOwnPropertyDescriptor(every, '__proto__')?.value).toBe('v-__proto__');
      for (const key of ['constructor', 'toString', '__proto__'])
        ok(await s.call('DELETE', `/user/attribute/${key}/alice/realm1`, {}, admin));
      // Merged into the user listing, not into other users.
      const list = ok(await s.call('GET', '/user/', { realm: 'realm1', username: 'a*' }, admin));
      const alice = list.find((u: { username: string }) => u.username === 'alice');
      expect(alice).toMatchObject({ team: 'blue', floor: '3', email: 'alice@x.org' });
      const adam = list.find((u: { username: string }) => u.username === 'adam');
      expect(adam).not.toHaveProperty('team');
      const plain = ok(
        await s.call(
          'GET',
          '/user/',
          { realm: 'realm1', username: 'alice', include_custom_attributes: 'false' },
          admin,
        ),
      );
      expect(plain[0]).not.toHaveProperty('team');

      // A custom attribute does not change who the user is.
      ok(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'alice', realm: 'realm1', key: 'username', value: 'eve' },
          admin,
        ),
      );
      ok(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'alice', realm: 'realm1', key: 'email', value: 'a@b.c' },
          admin,
        ),
      );
      const [shown] = ok(await s.call('GET', '/user/', { realm: 'realm1', username: 'alice' }, admin));
      expect(shown).toMatchObject({ username: 'alice', userid: '1001', email: 'a@b.c', resolver: 'files' });
      expect(ok(await s.call('DELETE', '/user/attribute/username/alice/realm1', {}, admin))).toBe(1);
      expect(ok(await s.call('DELETE', '/user/attribute/email/alice/realm1', {}, admin))).toBe(1);

      expect(ok(await s.call('DELETE', '/user/attribute/team/alice/realm1', {}, admin))).toBe(1);
      expect(ok(await s.call('DELETE', '/user/attribute/team/alice/realm1', {}, admin))).toBe(0);
      expect(ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1' }, admin))).toEqual({
        floor: '3',
      });
    });

    it('refuses internal keys and missing parameters', async () => {
      expectServiceError(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'alice', realm: 'realm1', key: 'last_used_token', value: 'x' },
          admin,
        ),
        905,
        /Invalid attribute name/,
      );
      expectServiceError(
        await s.call('POST', '/user/attribute', { user: 'alice', realm: 'realm1', key: 'k' }, admin),
        905,
      );
      expectServiceError(
        await s.call('POST', '/user/attribute', { user: 'alice', realm: 'realm1', value: 'v' }, admin),
        905,
      );
      expectServiceError(
        await s.call('POST', '/user/attribute', { realm: 'realm1', key: 'k', value: 'v' }, admin),
        905,
      );
      expectServiceError(await s.call('GET', '/user/attribute', { realm: 'realm1' }, admin), 905);
      expectServiceError(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'nobody', realm: 'realm1', key: 'k', value: 'v' },
          admin,
        ),
        904,
      );
      expect(
        ok(await s.call('GET', '/user/attribute', { user: 'alice', realm: 'realm1' }, admin)),
      ).not.toHaveProperty('last_used_token');
    });

    it('says which attributes the administrator may edit', async () => {
      expect(
        ok(await s.call('GET', '/user/editable_attributes/', { user: 'alice', realm: 'realm1' }, admin)),
      ).toEqual({ delete: ['*'], set: { '*': ['*'] } });
      expectServiceError(await s.call('GET', '/user/editable_attributes/', { realm: 'realm1' }, admin), 905);
    });
  });

  describe('editing users', () => {
    it('creates a user in an editable store', async () => {
      const id = ok(
        await s.call(
          'POST',
          '/user/',
          {
            user: 'erin',
            resolver: 'db',
            password: 'erinpw',
            givenname: 'Erin',
            surname: 'Brown',
            email: 'erin@x.org',
            phone: '555',
            mobile: '666',
            description: 'new',
          },
          admin,
        ),
      );
      const row = sqliteUsers(sqlite).find((r) => r.username === 'erin')!;
      expect(String(row.id)).toBe(String(id));
      expect(row).toMatchObject({ givenname: 'Erin', surname: 'Brown', email: 'erin@x.org', phone: '555' });
      expect(String(row.password)).toMatch(/^\{SSHA256\}/);
      const list = ok(await s.call('GET', '/user/', { realm: 'realm1', username: 'erin' }, admin));
      expect(list).toEqual([
        expect.objectContaining({ username: 'erin', email: 'erin@x.org', resolver: 'db' }),
      ]);
      expect((await s.call('POST', '/auth', { username: 'erin@realm1', password: 'erinpw' })).status).toBe(
        200,
      );
      // Without a trailing slash too; a second user of the same name is refused.
      ok(await s.call('POST', '/user', { user: 'frank', resolver: 'db' }, admin));
      expect(sqliteUsers(sqlite).some((r) => r.username === 'frank')).toBe(true);
      const dup = await s.call('POST', '/user/', { user: 'erin', resolver: 'db' }, admin);
      expect(dup.json.result.status).toBe(false);
      expect(sqliteUsers(sqlite).filter((r) => r.username === 'erin')).toHaveLength(1);
    });

    it('edits a user in an editable store', async () => {
      expect(
        ok(
          await s.call(
            'PUT',
            '/user/',
            { user: 'erin', resolver: 'db', email: 'erin@new.org', password: 'pw2' },
            admin,
          ),
        ),
      ).toBe(true);
      const row = sqliteUsers(sqlite).find((r) => r.username === 'erin')!;
      expect(row).toMatchObject({ email: 'erin@new.org', givenname: 'Erin', surname: 'Brown' });
      expect((await s.call('POST', '/auth', { username: 'erin@realm1', password: 'erinpw' })).status).toBe(
        401,
      );
      expect((await s.call('POST', '/auth', { username: 'erin@realm1', password: 'pw2' })).status).toBe(200);
      // What a listing returned may be sent back as it is.
      ok(
        await s.call(
          'PUT',
          '/user',
          { user: 'erin', resolver: 'db', givenname: 'Erina', editable: 'true', realm: 'realm1' },
          admin,
        ),
      );
      expect(sqliteUsers(sqlite).find((r) => r.username === 'erin')!.givenname).toBe('Erina');
      expectServiceError(
        await s.call('PUT', '/user/', { user: 'nobody', resolver: 'db', email: 'x' }, admin),
        904,
      );
    });

    it('deletes a user in an editable store, with their custom attributes', async () => {
      ok(
        await s.call(
          'POST',
          '/user/attribute',
          { user: 'frank', realm: 'realm1', key: 'k', value: 'v' },
          admin,
        ),
      );
      const frank = sqliteUsers(sqlite).find((r) => r.username === 'frank')!;
      expect(ok(await s.call('DELETE', '/user/db/frank', {}, admin))).toBe(true);
      expect(sqliteUsers(sqlite).some((r) => r.username === 'frank')).toBe(false);
      const attrs = await s.rt.store.db
        .selectFrom('user_attribute')
        .selectAll()
        .where('userid', '=', String(frank.id))
        .execute();
      expect(attrs).toEqual([]);
      expectServiceError(await s.call('DELETE', '/user/db/frank', {}, admin), 904);
    });

    it('refuses to create, edit or delete users in a store that is not editable', async () => {
      const before = sqliteUsers(sqlite);
      for (const resolver of ['files', 'dbro']) {
        const c = await s.call('POST', '/user/', { user: 'zed', resolver, password: 'x' }, admin);
        expectServiceError(c, 904, /not editable/);
        const e = await s.call(
          'PUT',
          '/user/',
          { user: resolver === 'files' ? 'alice' : 'carol', resolver, email: 'x@y' },
          admin,
        );
        expectServiceError(e, 904, /not editable/);
        const d = await s.call(
          'DELETE',
          `/user/${resolver}/${resolver === 'files' ? 'alice' : 'carol'}`,
          {},
          admin,
        );
        expectServiceError(d, 904, /not editable/);
      }
      expect(sqliteUsers(sqlite)).toEqual(before);
    });

    it('refuses missing parameters with ERR905 and unknown resolvers with ERR904', async () => {
      expectServiceError(
        await s.call('POST', '/user/', { user: 'zed' }, admin),
        905,
        "Missing parameter: 'resolver'",
      );
      expectServiceError(
        await s.call('POST', '/user/', { resolver: 'db' }, admin),
        905,
        "Missing parameter: 'user'",
      );
      expectServiceError(
        await s.call('PUT', '/user/', { user: 'erin' }, admin),
        905,
        "Missing parameter: 'resolver'",
      );
      expectServiceError(
        await s.call('PUT', '/user/', { resolver: 'db' }, admin),
        905,
        "Missing parameter: 'user'",
      );
      expectServiceError(await s.call('POST', '/user/', { user: 'zed', resolver: 'nosuch' }, admin), 904);
      expectServiceError(
        await s.call('POST', '/user/', { user: 'zed', resolver: 'db', colour: 'red' }, admin),
        905,
      );
      expect(sqliteUsers(sqlite).some((r) => r.username === 'zed')).toBe(false);
    });
  });

  it('wants a JWT', async () => {
    for (const [method, path] of [
      ['GET', '/user/'],
      ['POST', '/user/'],
      ['PUT', '/user/'],
      ['DELETE', '/user/db/carol'],
      ['GET', '/user/attribute'],
      ['POST', '/user/attribute'],
      ['DELETE', '/user/attribute/k/carol/realm1'],
      ['GET', '/user/editable_attributes/'],
    ] as const) {
      const r = await s.call(method, path, { user: 'carol', resolver: 'db' });
      expect(r.status).toBe(401);
      expect(r.json.result.error.code).toBe(4033);
    }
    expect(sqliteUsers(sqlite).some((r) => r.username === 'carol')).toBe(true);
    // A user JWT works where users are admitted (details in user-login.test.ts).
    const carol = await userToken(s, 'carol@realm1', 'carolpw');
    expect(names(ok(await s.call('GET', '/user/', {}, carol)))).toEqual(['carol/db']);
  });
});
