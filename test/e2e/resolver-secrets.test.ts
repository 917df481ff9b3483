// A stored resolver secret (sent back as __CENSORED__, or not sent) is used only for the destination
// it was stored for: POST /resolver/test and POST /resolver/<name> that change a setting of its
// destination (server, port, account, database …) are refused, contact nobody and store nothing;
// the same destination keeps working, and a secret given again may go anywhere.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScimServer } from '../../scripts/fixtures/scim-server.ts';
import {
  ADMIN_DN,
  ADMIN_PASSWORD,
  BASE_DN,
  READER_DN,
  READER_PASSWORD,
  type SlapdFixture,
  startSlapd,
} from '../../scripts/fixtures/slapd.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type SecretTrap, startSecretTrap } from '../helpers/secret-trap.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  expectServiceError,
  ok,
  SQL_MAP,
  sqlResolverParams,
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

describe.each(testDialects())('stored resolver secrets on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  const traps: SecretTrap[] = [];

  beforeAll(async () => {
    s = await startTestServer({ dialect });
    admin = await s.adminToken();
  });
  afterAll(async () => {
    await s?.close();
    for (const trap of traps) await trap.stop();
  });

  async function trap(protocol: 'raw' | 'postgres' = 'raw'): Promise<SecretTrap> {
    const t = await startSecretTrap(protocol);
    traps.push(t);
    return t;
  }
  /** The stored row of a resolver, to show that a refused update changed nothing. */
  async function row(name: string) {
    return s.rt.store.db.selectFrom('resolver').selectAll().where('name', '=', name).executeTakeFirst();
  }
  async function storedSecret(name: string, key: string): Promise<string> {
    return s.rt.hsm.decrypt(JSON.parse((await row(name))!.config).settings[key]);
  }
  const test = (params: Record<string, string>) => s.call('POST', '/resolver/test', params, admin);
  const update = (name: string, params: Record<string, string>) =>
    s.call('POST', `/resolver/${name}`, params, admin);
  /** The refusal: ERR905 naming the secret and the changed settings. */
  const refused = (secret: string, changed: string) =>
    new RegExp(`^ERR905: ${secret} must be given again: ${changed} differs? from the stored settings`);

  it('LDAP: a stored BINDPW is not sent to another LDAPURI, on test and on update', async () => {
    const settings = {
      type: 'ldapresolver',
      LDAPURI: slapd.url,
      LDAPBASE: BASE_DN,
      BINDDN: READER_DN,
      BINDPW: READER_PASSWORD,
      TIMEOUT: '2',
    };
    ok(await update('ldapkeep', settings));
    const before = await row('ldapkeep');
    const evil = await trap();
    const moved = { ...settings, LDAPURI: `ldap://127.0.0.1:${evil.port}` };

    for (const params of [
      { ...moved, BINDPW: CENSORED, resolver: 'ldapkeep' },
      { ...moved, BINDPW: undefined, resolver: 'ldapkeep' },
    ]) {
      expectServiceError(await test(defined(params)), 905, refused('BINDPW', 'LDAPURI'));
    }
    expectServiceError(
      await update('ldapkeep', { ...moved, BINDPW: CENSORED }),
      905,
      refused('BINDPW', 'LDAPURI'),
    );
    expectServiceError(
      await update('ldapkeep', { LDAPURI: moved.LDAPURI }),
      905,
      refused('BINDPW', 'LDAPURI'),
    );
    expect(await row('ldapkeep')).toEqual(before);
    expect(evil.connections()).toBe(0);

    // The same destination keeps working with the stored password, other settings changed or not.
    const same = { ...settings, BINDPW: CENSORED, resolver: 'ldapkeep' };
    expect(ok(await test(same))).toBe(true);
    expect(ok(await test({ ...same, LDAPSEARCHFILTER: '(uid=*)', TLS_VERIFY: 'true' }))).toBe(true);

    // A password given again goes where the caller says, the stored one never.
    expect(ok(await test({ ...moved, BINDPW: 'fresh pw', resolver: 'ldapkeep' }))).toBe(false);
    expect(evil.connections()).toBe(1);
    expect(evil.received().includes('fresh pw')).toBe(true);
    ok(await update('ldapkeep', { ...moved, BINDPW: 'fresh pw' }));
    expect(await storedSecret('ldapkeep', 'BINDPW')).toBe('fresh pw');
    expect(evil.received().includes(READER_PASSWORD)).toBe(false);
    ok(await s.call('DELETE', '/resolver/ldapkeep', {}, admin));
  });

  it('LDAP: another BINDDN, or weaker TLS, must give the password again', async () => {
    const settings = { type: 'ldapresolver', LDAPURI: slapd.url, LDAPBASE: BASE_DN, BINDDN: READER_DN };
    ok(await update('ldapdn', { ...settings, BINDPW: READER_PASSWORD }));
    const before = await row('ldapdn');
    const binds = (await slapd.operationCounts()).bind;
    const asAdmin = { ...settings, BINDDN: ADMIN_DN, BINDPW: CENSORED };
    expectServiceError(await test({ ...asAdmin, resolver: 'ldapdn' }), 905, refused('BINDPW', 'BINDDN'));
    expectServiceError(await update('ldapdn', asAdmin), 905, refused('BINDPW', 'BINDDN'));
    expectServiceError(
      await test({ ...settings, BINDPW: CENSORED, TLS_VERIFY: 'False', resolver: 'ldapdn' }),
      905,
      refused('BINDPW', 'TLS_VERIFY'),
    );
    expectServiceError(
      await update('ldapdn', { BINDDN: ADMIN_DN, START_TLS: 'True' }),
      905,
      /^ERR905: BINDPW must be given again: BINDDN and START_TLS differ from the stored settings/,
    );
    expect((await slapd.operationCounts()).bind).toBe(binds);
    expect(await row('ldapdn')).toEqual(before);

    expect(ok(await test({ ...asAdmin, BINDPW: ADMIN_PASSWORD, resolver: 'ldapdn' }))).toBe(true);
    ok(await update('ldapdn', { ...asAdmin, BINDPW: ADMIN_PASSWORD }));
    expect(await storedSecret('ldapdn', 'BINDPW')).toBe(ADMIN_PASSWORD);
    ok(await s.call('DELETE', '/resolver/ldapdn', {}, admin));
  });

  it('SQL: a stored Password is not sent to another server, port, user or database', async () => {
    const stored = await trap('postgres');
    const evil = await trap('postgres');
    const settings = {
      type: 'sqlresolver',
      Driver: 'postgresql',
      Server: '127.0.0.1',
      Port: String(stored.port),
      Database: 'users',
      User: 'authsrv',
      Password: 'stored db pw',
      Table: 'users',
      Map: SQL_MAP,
    };
    ok(await update('sqlkeep', settings));
    const before = await row('sqlkeep');
    const kept = { ...settings, Password: CENSORED, resolver: 'sqlkeep' };
    for (const [key, value] of [
      ['Port', String(evil.port)],
      ['Server', 'localhost'],
      ['User', 'postgres'],
      ['Database', 'other'],
      ['Driver', 'mysql'],
    ] as const) {
      expectServiceError(await test({ ...kept, [key]: value }), 905, refused('Password', key));
    }
    const moved = { ...settings, Port: String(evil.port) };
    expectServiceError(
      await update('sqlkeep', { ...moved, Password: CENSORED }),
      905,
      refused('Password', 'Port'),
    );
    expectServiceError(await update('sqlkeep', { Port: moved.Port }), 905, refused('Password', 'Port'));
    expect(await row('sqlkeep')).toEqual(before);
    expect(evil.connections()).toBe(0);

    // The same destination gets the stored password (the trap fails the login afterwards: -1).
    expect(ok(await test({ ...kept, Limit: '5' }))).toBe(-1);
    expect(stored.received().includes('stored db pw')).toBe(true);

    expect(ok(await test({ ...moved, Password: 'fresh db pw', resolver: 'sqlkeep' }))).toBe(-1);
    expect(evil.received().includes('fresh db pw')).toBe(true);
    ok(await update('sqlkeep', { ...moved, Password: 'fresh db pw' }));
    expect(await storedSecret('sqlkeep', 'Password')).toBe('fresh db pw');
    expect(evil.received().includes('stored db pw')).toBe(false);
    ok(await s.call('DELETE', '/resolver/sqlkeep', {}, admin));
  });

  it('SQL: a working store keeps working with its stored Password; another database file must give it', async () => {
    const first = await writeSqliteUsers(s.dataDir, 'first.db', [{ username: 'carol', password: 'x' }]);
    const second = await writeSqliteUsers(s.dataDir, 'second.db', []);
    const settings = { ...sqlResolverParams(first), Password: 'file pw' };
    ok(await update('sqlfile', settings));
    const kept = { ...settings, Password: CENSORED, resolver: 'sqlfile' };
    expect(ok(await test(kept))).toBe(1);
    expectServiceError(await test({ ...kept, Database: second }), 905, refused('Password', 'Database'));
    expect(ok(await test({ ...kept, Database: second, Password: 'file pw' }))).toBe(0);
    ok(await s.call('DELETE', '/resolver/sqlfile', {}, admin));
  });

  it('SCIM: a stored Secret is not sent to another Authserver, Resourceserver or Client', async () => {
    const home = await startScimServer({ clientSecret: 'scim secret' });
    const other = await startScimServer({ clientSecret: 'other secret' });
    try {
      const settings = {
        type: 'scimresolver',
        Authserver: home.authUrl,
        Resourceserver: home.resourceUrl,
        Client: home.clientId,
        Secret: 'scim secret',
      };
      ok(await update('scimkeep', settings));
      const before = await row('scimkeep');
      const kept = { ...settings, Secret: CENSORED, resolver: 'scimkeep' };
      for (const [key, value] of [
        ['Authserver', other.authUrl],
        ['Resourceserver', other.resourceUrl],
        ['Client', 'someone else'],
      ] as const) {
        expectServiceError(await test({ ...kept, [key]: value }), 905, refused('Secret', key));
      }
      const moved = { ...settings, Authserver: other.authUrl, Resourceserver: other.resourceUrl };
      expectServiceError(
        await update('scimkeep', defined({ ...moved, Secret: undefined, authsecret: CENSORED })),
        905,
        /^ERR905: Secret must be given again: Authserver and Resourceserver differ/,
      );
      expectServiceError(
        await update('scimkeep', { authserver: other.authUrl }),
        905,
        refused('Secret', 'Authserver'),
      );
      expect(await row('scimkeep')).toEqual(before);
      expect(other.requests).toEqual([]);

      expect(ok(await test(kept))).toBe(true);
      expect(ok(await test({ ...moved, Secret: 'other secret', resolver: 'scimkeep' }))).toBe(true);
      expect(other.requests.length).toBeGreaterThan(0);
      ok(await update('scimkeep', { ...moved, Secret: 'other secret' }));
      expect(await storedSecret('scimkeep', 'Secret')).toBe('other secret');
      ok(await s.call('DELETE', '/resolver/scimkeep', {}, admin));
    } finally {
      await home.stop();
      await other.stop();
    }
  });
});

/** The parameters without those set to undefined (a parameter not sent). */
function defined(params: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter(([, v]) => v !== undefined)) as Record<
    string,
    string
  >;
}
