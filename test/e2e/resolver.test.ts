import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ScimServer, startScimServer } from '../../scripts/fixtures/scim-server.ts';
import {
  BASE_DN,
  READER_DN,
  READER_PASSWORD,
  type SlapdFixture,
  startSlapd,
} from '../../scripts/fixtures/slapd.ts';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  expectServiceError,
  jsonCall,
  ok,
  sqlResolverParams,
  userToken,
  writePasswdFile,
  writeSqliteUsers,
} from '../helpers/user-stores.ts';

const CENSORED = '__CENSORED__';

let slapd: SlapdFixture;
beforeAll(async () => {
  slapd = await startSlapd();
});
afterAll(async () => {
  await slapd?.stop();
});

/** An LDAP resolver on the slapd fixture, binding as its reader. */
const readerSettings = () => ({
  type: 'ldapresolver',
  LDAPURI: slapd.url,
  LDAPBASE: BASE_DN,
  BINDDN: READER_DN,
  BINDPW: READER_PASSWORD,
  LDAPSEARCHFILTER: '(uid=*)(objectClass=inetOrgPerson)',
});

describe.each(testDialects())('/resolver on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let passwd: string;
  let sqlite: string;
  let scim: ScimServer;

  beforeAll(async () => {
    s = await startTestServer({ dialect });
    admin = await s.adminToken();
    passwd = await writePasswdFile(s.dataDir, 'passwd', [
      { login: 'alice', password: 'alicepw', uid: 1001, gecos: 'Alice Smith,,+49 170,+49 30,alice@x.org' },
      { login: 'bob', password: 'bobpw', uid: 1002, gecos: 'Bob Jones' },
    ]);
    sqlite = await writeSqliteUsers(s.dataDir, 'users.db', [{ username: 'carol', password: 'carolpw' }]);
    scim = await startScimServer({ clientSecret: 'scim secret' });
  });
  afterAll(async () => {
    await s?.close();
    await scim?.stop();
  });

  async function row(name: string) {
    return s.rt.store.db.selectFrom('resolver').selectAll().where('name', '=', name).executeTakeFirst();
  }
  async function count() {
    return (await s.rt.store.db.selectFrom('resolver').select('id').execute()).length;
  }
  const scimParams = () => ({
    type: 'scimresolver',
    Authserver: scim.authUrl,
    Resourceserver: scim.resourceUrl,
    Client: scim.clientId,
    Secret: 'scim secret',
  });

  it('creates a passwdresolver with Filename and with the fileName alias', async () => {
    const id = ok(await s.call('POST', '/resolver/pw1', { type: 'passwdresolver', Filename: passwd }, admin));
    expect(id).toBeGreaterThan(0);
    const id2 = ok(
      await s.call('POST', '/resolver/pw2', { type: 'passwdresolver', fileName: passwd }, admin),
    );
    expect(id2).toBeGreaterThan(id);
    const all = ok(await s.call('GET', '/resolver/', {}, admin));
    expect(all.pw1).toEqual({
      resolvername: 'pw1',
      type: 'passwdresolver',
      data: { Filename: passwd },
      censor_keys: [],
    });
    expect(all.pw2.data).toEqual({ Filename: passwd });
  });

  it('gets one resolver by name, case-insensitively; an unknown one is an empty object', async () => {
    const one = ok(await s.call('GET', '/resolver/PW1', {}, admin));
    expect(Object.keys(one)).toEqual(['pw1']);
    expect(one.pw1.type).toBe('passwdresolver');
    expect(ok(await s.call('GET', '/resolver/nosuch', {}, admin))).toEqual({});
  });

  it('filters by type and by editable=1', async () => {
    ok(await s.call('POST', '/resolver/sqled', sqlResolverParams(sqlite, true), admin));
    ok(await s.call('POST', '/resolver/sqlro', sqlResolverParams(sqlite, false), admin));
    const passwds = ok(await s.call('GET', '/resolver/', { type: 'passwdresolver' }, admin));
    expect(Object.keys(passwds).sort()).toEqual(['pw1', 'pw2']);
    const sqls = ok(await s.call('GET', '/resolver/', { type: 'sqlresolver' }, admin));
    expect(Object.keys(sqls).sort()).toEqual(['sqled', 'sqlro']);
    const editable = ok(await s.call('GET', '/resolver/', { editable: '1' }, admin));
    expect(Object.keys(editable)).toEqual(['sqled']);
    const all = ok(await s.call('GET', '/resolver/', { editable: '0' }, admin));
    expect(Object.keys(all).length).toBe(4);
  });

  it('keeps omitted settings on update and deletes a setting sent empty', async () => {
    const before = ok(await s.call('GET', '/resolver/sqlro', {}, admin)).sqlro.data;
    const id = (await row('sqlro'))!.id;
    expect(ok(await s.call('POST', '/resolver/sqlro', { type: 'sqlresolver', Limit: '50' }, admin))).toBe(id);
    let data = ok(await s.call('GET', '/resolver/sqlro', {}, admin)).sqlro.data;
    expect(data).toEqual({ ...before, Limit: '50' });
    // The type may be left out on update.
    ok(await s.call('POST', '/resolver/sqlro', { Limit: '' }, admin));
    data = ok(await s.call('GET', '/resolver/sqlro', {}, admin)).sqlro.data;
    expect(data).toEqual(before);
    expect(data).not.toHaveProperty('Limit');
    // A required setting cannot be deleted.
    expectServiceError(await s.call('POST', '/resolver/sqlro', { Table: '' }, admin), 905);
    expect(ok(await s.call('GET', '/resolver/sqlro', {}, admin)).sqlro.data).toEqual(before);
  });

  it('refuses to change the type of a resolver', async () => {
    const r = await s.call(
      'POST',
      '/resolver/pw1',
      { type: 'sqlresolver', ...sqlResolverParams(sqlite) },
      admin,
    );
    expect(r.json.result.status).toBe(false);
    expect(r.json.result.error.message).toMatch(/^ERR\d+: /);
    expect(ok(await s.call('GET', '/resolver/pw1', {}, admin)).pw1.type).toBe('passwdresolver');
  });

  it('refuses an unknown type, an invalid name or an unknown setting and stores nothing', async () => {
    const n = await count();
    expectServiceError(await s.call('POST', '/resolver/x1', { type: 'nosuchresolver' }, admin), 905);
    expectServiceError(
      await s.call('POST', '/resolver/bad%20name', { type: 'passwdresolver', Filename: passwd }, admin),
      905,
    );
    expectServiceError(
      await s.call('POST', '/resolver/x%2Fy', { type: 'passwdresolver', Filename: passwd }, admin),
      905,
    );
    expectServiceError(
      await s.call(
        'POST',
        '/resolver/x2',
        { type: 'passwdresolver', Filename: passwd, Colour: 'blue' },
        admin,
      ),
      905,
    );
    expectServiceError(await s.call('POST', '/resolver/x3', { Filename: passwd }, admin), 905);
    expectServiceError(
      await s.call('POST', '/resolver/x4', { type: 'sqlresolver', Driver: 'sqlite', Table: 'users' }, admin),
      905,
    );
    // An unknown setting on update leaves the stored one as it was.
    const before = (await row('pw1'))!.config;
    expectServiceError(
      await s.call(
        'POST',
        '/resolver/pw1',
        { type: 'passwdresolver', Filename: '/x', Colour: 'blue' },
        admin,
      ),
      905,
    );
    expect((await row('pw1'))!.config).toBe(before);
    expect(await count()).toBe(n);
  });

  it('reads a password back as __CENSORED__, stores it sealed and keeps it when sent back censored', async () => {
    const id = ok(await s.call('POST', '/resolver/scim1', scimParams(), admin));
    expect(id).toBeGreaterThan(0);
    const view = ok(await s.call('GET', '/resolver/scim1', {}, admin)).scim1;
    expect(view.data.Secret).toBe(CENSORED);
    expect(view.censor_keys).toEqual(['Secret']);
    expect(ok(await s.call('GET', '/resolver/', {}, admin)).scim1.data.Secret).toBe(CENSORED);
    const stored = JSON.parse((await row('scim1'))!.config);
    expect(stored.settings.Secret).not.toContain('scim secret');
    expect(s.rt.hsm.decrypt(stored.settings.Secret)).toBe('scim secret');
    expect((await row('scim1'))!.config).not.toContain('scim secret');

    // __CENSORED__ on update keeps the secret; other settings change.
    ok(await s.call('POST', '/resolver/scim1', { ...scimParams(), Secret: CENSORED, TIMEOUT: '7' }, admin));
    const after = JSON.parse((await row('scim1'))!.config);
    expect(s.rt.hsm.decrypt(after.settings.Secret)).toBe('scim secret');
    expect(after.settings.TIMEOUT).toBe('7');

    // /resolver/test with resolver=<name> uses the stored secret for __CENSORED__.
    let t = await s.call(
      'POST',
      '/resolver/test',
      { ...scimParams(), Secret: CENSORED, resolver: 'scim1' },
      admin,
    );
    expect(ok(t)).toBe(true);
    expect(t.json.detail.description).toMatch(/^Found \d+ users/);
    t = await s.call('POST', '/resolver/test', { ...scimParams(), Secret: 'wrong' }, admin);
    expect(ok(t)).toBe(false);
    expect(t.json.detail.description).toMatch(/^failed to retrieve users/);

    // A new secret replaces the stored one.
    ok(await s.call('POST', '/resolver/scim1', { type: 'scimresolver', Secret: 'other' }, admin));
    expect(s.rt.hsm.decrypt(JSON.parse((await row('scim1'))!.config).settings.Secret)).toBe('other');
  });

  it('keeps the LDAP bind password sealed and censored, and uses it for tests and logins', async () => {
    const params = { ...readerSettings(), LOGINNAMEATTRIBUTE: 'uid' };
    ok(await s.call('POST', '/resolver/ldap1', params, admin));
    const view = ok(await s.call('GET', '/resolver/ldap1', {}, admin)).ldap1;
    expect(view.data.BINDPW).toBe(CENSORED);
    expect(view.data.BINDDN).toBe(READER_DN);
    expect((await row('ldap1'))!.config).not.toContain(READER_PASSWORD);
    // The censored password works in a test only with the stored one to stand for it.
    let t = await s.call('POST', '/resolver/test', { ...params, BINDPW: CENSORED, resolver: 'ldap1' }, admin);
    expect(ok(t)).toBe(true);
    expect(t.json.detail.description).toMatch(/^Your LDAP config seems to be OK, \d+ user objects found/);
    expectServiceError(await s.call('POST', '/resolver/test', { ...params, BINDPW: CENSORED }, admin), 905);
    t = await s.call('POST', '/resolver/test', { ...params, BINDPW: 'wrong' }, admin);
    expect(ok(t)).toBe(false);
    expect(t.json.detail.description).not.toBe('');
    // Kept on update; the users are found and log in with an LDAP bind.
    ok(await s.call('POST', '/resolver/ldap1', { ...params, BINDPW: CENSORED, TIMEOUT: '3' }, admin));
    expect(s.rt.hsm.decrypt(JSON.parse((await row('ldap1'))!.config).settings.BINDPW)).toBe(READER_PASSWORD);
    ok(await s.call('POST', '/realm/ldaprealm', { resolvers: 'ldap1' }, admin));
    const users = ok(await s.call('GET', '/user/', { realm: 'ldaprealm', username: 'alice' }, admin));
    expect(users).toEqual([
      expect.objectContaining({ username: 'alice', resolver: 'ldap1', editable: false }),
    ]);
    const login = await s.call('POST', '/auth', { username: 'alice@ldaprealm', password: 'alicepass' });
    expect(login.status).toBe(200);
    expect(login.json.result.value).toMatchObject({ role: 'user', username: 'alice', realm: 'ldaprealm' });
    expect((await s.call('POST', '/auth', { username: 'alice@ldaprealm', password: 'nope' })).status).toBe(
      401,
    );
    // A wrong stored bind password makes lookups fail: the login is refused, not an error.
    ok(await s.call('POST', '/resolver/ldap1', { BINDPW: 'wrong' }, admin));
    const refused = await s.call('POST', '/auth', { username: 'alice@ldaprealm', password: 'alicepass' });
    expect(refused.status).toBe(401);
    expect(refused.json.result.error.code).toBe(4031);
    ok(await s.call('DELETE', '/realm/ldaprealm', {}, admin));
    ok(await s.call('DELETE', '/resolver/ldap1', {}, admin));
  });

  it('logs LDAP settings that are accepted but not used, and ends the test description with them', async () => {
    const params = {
      ...readerSettings(),
      KEYTABFILE: '/etc/krb5.keytab',
      SERVERPOOL_ROUNDS: '2',
      SERVERPOOL_STRATEGY: 'ROUND_ROBIN',
    };
    const keytab = 'LDAP setting KEYTABFILE is accepted but not used: Kerberos/SASL binds are not supported.';
    const warn = vi.spyOn(s.rt.log, 'warn');
    const logged = () =>
      warn.mock.calls
        .filter((call) => String(call[1]).startsWith('LDAP setting'))
        .map((call) => call.slice(0, 2));
    try {
      // The answer stays privacyIDEA's (the id); the warning goes to the server's log.
      const saved = await s.call('POST', '/resolver/ldapwarn', params, admin);
      expect(saved.json.result).toEqual({ status: true, value: expect.any(Number) });
      expect(logged()).toEqual([[{ resolver: 'ldapwarn' }, keytab]]);
      warn.mockClear();
      ok(await s.call('POST', '/resolver/ldapwarn', { KEYTABFILE: '' }, admin));
      expect(logged()).toEqual([]);
    } finally {
      warn.mockRestore();
    }

    let t = await s.call('POST', '/resolver/test', { ...params, recursive_group_search: 'True' }, admin);
    expect(ok(t)).toBe(true);
    expect(t.json.detail.description).toMatch(
      /^Your LDAP config seems to be OK, \d+ user objects found\. LDAP setting KEYTABFILE is accepted but not used: Kerberos\/SASL binds are not supported\. LDAP setting recursive_group_search is accepted but not used: group lookups are not supported, users get no group memberships\.$/,
    );
    t = await s.call('POST', '/resolver/test', { ...params, BINDPW: 'wrong' }, admin);
    expect(ok(t)).toBe(false);
    expect(t.json.detail.description).toMatch(/BINDPW.*\. LDAP setting KEYTABFILE is accepted but not used/);
    t = await s.call('POST', '/resolver/test', { ...params, KEYTABFILE: '' }, admin);
    expect(t.json.detail.description).toMatch(/^Your LDAP config seems to be OK, \d+ user objects found\.$/);
    ok(await s.call('DELETE', '/resolver/ldapwarn', {}, admin));
  });

  it('marks a setting as password with type.<Key>=password', async () => {
    ok(
      await s.call(
        'POST',
        '/resolver/sqlpw',
        { ...sqlResolverParams(sqlite), User: 'dbuser', 'type.User': 'password', 'desc.User': 'the user' },
        admin,
      ),
    );
    const view = ok(await s.call('GET', '/resolver/sqlpw', {}, admin)).sqlpw;
    expect(view.data.User).toBe(CENSORED);
    expect(view.censor_keys).toContain('User');
    const stored = JSON.parse((await row('sqlpw'))!.config);
    expect(s.rt.hsm.decrypt(stored.settings.User)).toBe('dbuser');
    ok(await s.call('POST', '/resolver/sqlpw', { User: CENSORED }, admin));
    expect(s.rt.hsm.decrypt(JSON.parse((await row('sqlpw'))!.config).settings.User)).toBe('dbuser');
    ok(await s.call('POST', '/resolver/sqlpw', { Password: 'dbpw' }, admin));
    const v2 = ok(await s.call('GET', '/resolver/sqlpw', {}, admin)).sqlpw;
    expect(v2.data.Password).toBe(CENSORED);
    expect(v2.censor_keys).toEqual(['Password', 'User']);
  });

  it('tests settings without storing them', async () => {
    const n = await count();
    let r = await s.call('POST', '/resolver/test', { type: 'passwdresolver', Filename: passwd }, admin);
    expect(ok(r)).toBe(true);
    expect(r.json.detail.description).toMatch(/2 users/);
    r = await s.call('POST', '/resolver/test', sqlResolverParams(sqlite), admin);
    expect(ok(r)).toBe(1);
    expect(r.json.detail.description).toBe('Found 1 users.');
    r = await s.call(
      'POST',
      '/resolver/test',
      { ...sqlResolverParams(sqlite), Database: `${s.dataDir}/nosuch.db` },
      admin,
    );
    expect(ok(r)).toBe(-1);
    expect(r.json.detail.description).toBe('Unable to connect to database.');
    r = await s.call(
      'POST',
      '/resolver/test',
      { type: 'passwdresolver', Filename: `${s.dataDir}/nosuch` },
      admin,
    );
    expect(ok(r)).toBe(false);
    expect(typeof r.json.detail.description).toBe('string');
    expectServiceError(await s.call('POST', '/resolver/test', { Filename: passwd }, admin), 905);
    expectServiceError(await s.call('POST', '/resolver/test', { type: 'nosuch' }, admin), 905);
    expect(await count()).toBe(n);
  });

  it('deletes a resolver; an unknown one answers -1; one in a realm cannot be deleted', async () => {
    expect(ok(await s.call('DELETE', '/resolver/nosuch', {}, admin))).toBe(-1);
    ok(await s.call('POST', '/realm/realm1', { resolvers: 'pw1' }, admin));
    expectServiceError(
      await s.call('DELETE', '/resolver/pw1', {}, admin),
      302,
      "The resolver 'pw1' is still contained in realm 'realm1'.",
    );
    expect(await row('pw1')).toBeDefined();
    const id = (await row('pw2'))!.id;
    expect(ok(await s.call('DELETE', '/resolver/PW2', {}, admin))).toBe(id);
    expect(await row('pw2')).toBeUndefined();
    expect(ok(await s.call('GET', '/resolver/pw2', {}, admin))).toEqual({});
  });

  it('takes settings from a JSON body, numbers and booleans included', async () => {
    const r = await jsonCall(
      s,
      'POST',
      '/resolver/sqljson',
      { ...sqlResolverParams(sqlite), Limit: 25, Editable: true, poolSize: 2 },
      admin,
    );
    expect(ok(r)).toBeGreaterThan(0);
    const data = ok(await s.call('GET', '/resolver/sqljson', {}, admin)).sqljson.data;
    expect(data).toMatchObject({ Limit: '25', Editable: 'true', poolSize: '2' });
    expect(Object.keys(ok(await s.call('GET', '/resolver/', { editable: '1' }, admin)))).toContain('sqljson');
    expectServiceError(
      await jsonCall(s, 'POST', '/resolver/sqljson', { Map: { userid: 'id', username: 'username' } }, admin),
      905,
    );
    expectServiceError(await jsonCall(s, 'POST', '/resolver/sqljson', { Limit: 'many' }, admin), 905);
    ok(await s.call('DELETE', '/resolver/sqljson', {}, admin));
  });

  it('uses changed settings at once', async () => {
    const other = await writePasswdFile(s.dataDir, 'passwd-other', [
      { login: 'zoe', password: 'zoepw', uid: 7 },
    ]);
    ok(await s.call('POST', '/resolver/moving', { type: 'passwdresolver', Filename: passwd }, admin));
    const names = async () =>
      ok(await s.call('GET', '/user/', { resolver: 'moving' }, admin)).map(
        (u: { username: string }) => u.username,
      );
    expect(await names()).toEqual(['alice', 'bob']);
    ok(await s.call('POST', '/resolver/moving', { Filename: other }, admin));
    expect(await names()).toEqual(['zoe']);
    // Deleted and made again under the same name: the new settings, not the old store.
    ok(await s.call('DELETE', '/resolver/moving', {}, admin));
    expectServiceError(await s.call('GET', '/user/', { resolver: 'moving' }, admin), 904);
    ok(await s.call('POST', '/resolver/moving', { type: 'passwdresolver', Filename: passwd }, admin));
    expect(await names()).toEqual(['alice', 'bob']);
    ok(await s.call('DELETE', '/resolver/moving', {}, admin));
  });

  it('refuses a user JWT with 4306 and a missing JWT with 4033', async () => {
    const user = await userToken(s, 'alice', 'alicepw', 'realm1');
    for (const [method, path] of [
      ['GET', '/resolver/'],
      ['GET', '/resolver/pw1'],
      ['POST', '/resolver/pw3'],
      ['POST', '/resolver/test'],
      ['DELETE', '/resolver/pw1'],
    ] as const) {
      const r = await s.call(method, path, { type: 'passwdresolver', Filename: passwd }, user);
      expect(r.status).toBe(401);
      expect(r.json.result.error.code).toBe(4306);
      expect((await s.call(method, path, {})).json.result.error.code).toBe(4033);
    }
    expect(await row('pw3')).toBeUndefined();
  });
});
