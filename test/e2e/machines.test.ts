// Machine resolvers and machines over HTTP (reference 6.4, spec "Machine resolver endpoints",
// "Machine endpoints"): hosts files and the slapd fixture's ou=hosts; the update rules shared with
// user resolvers (omitted parameters kept, no type change, BINDPW sealed and __CENSORED__, the
// destination rule for a kept secret); the test; GET /machine/ with its filters; the rights; an
// audit row per request; errors that change nothing.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  HOSTS_DN,
  READER_DN,
  READER_PASSWORD,
  SLAPD_HOSTS,
  type SlapdFixture,
  startSlapd,
} from '../../scripts/fixtures/slapd.ts';
import type { Context } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import type { TestServer } from '../helpers/server.ts';
import { useTokenServer } from '../helpers/token-fixture.ts';
import { expectServiceError, ok } from '../helpers/user-stores.ts';

const CENSORED = '__CENSORED__';
const nextLook = () => new Promise((r) => setTimeout(r, 1100));

let slapd: SlapdFixture;
beforeAll(async () => {
  slapd = await startSlapd();
});
afterAll(async () => {
  await slapd?.stop();
});

const HOSTS =
  '# the lab\n10.0.0.1 gw gw.lab\n10.0.0.2\tweb1.lab web1 # comment\nnot-an-ip foo\n\n::1 localhost6\n';

describe.each(testDialects())('machine resolvers and machines on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  let hosts: string;

  useTokenServer(dialect, { reset: ['policies', 'audit'] }, (t) => ({ s, op, admin } = t));
  beforeAll(() => {
    hosts = join(s.dataDir, 'hosts');
  });
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('machineresolver').execute();
    writeFileSync(hosts, HOSTS);
  });

  const ldapSettings = (extra: Record<string, string> = {}) => ({
    type: 'ldap',
    LDAPURI: slapd.url,
    LDAPBASE: HOSTS_DN,
    BINDDN: READER_DN,
    BINDPW: READER_PASSWORD,
    SEARCHFILTER: '(objectClass=ipHost)',
    HOSTNAMEATTRIBUTE: 'cn',
    IPATTRIBUTE: 'ipHostNumber',
    ...extra,
  });
  const machines = async (params: Record<string, string> = {}) =>
    ok(await s.call('GET', '/machine/', params, admin)) as {
      id: string;
      hostname: string[];
      ip: string;
      resolver_name: string;
    }[];
  const storedRows = () =>
    s.rt.store.db.selectFrom('machineresolver').select(['name', 'type', 'config']).orderBy('name').execute();

  it('creates, shows, updates and deletes a hosts machine resolver', async () => {
    writeFileSync(hosts, HOSTS);
    const id = ok(await s.call('POST', '/machineresolver/lab', { type: 'hosts', filename: hosts }, admin));
    expect(id).toBeGreaterThan(0);
    const view = { resolvername: 'lab', type: 'hosts', data: { filename: hosts }, censor_keys: [] };
    expect(ok(await s.call('GET', '/machineresolver/', {}, admin))).toEqual({ lab: view });
    expect(ok(await s.call('GET', '/machineresolver/lab', {}, admin))).toEqual({ lab: view });
    expect(ok(await s.call('GET', '/machineresolver/LAB', {}, admin))).toEqual({ lab: view });
    expect(ok(await s.call('GET', '/machineresolver/', { type: 'ldap' }, admin))).toEqual({});
    expect(ok(await s.call('GET', '/machineresolver/', { type: 'hosts' }, admin))).toEqual({ lab: view });
    expect(ok(await s.call('GET', '/machineresolver/none', {}, admin))).toEqual({});
    // An update without the type keeps it (and the id); another type is refused.
    expect(ok(await s.call('POST', '/machineresolver/lab', { filename: hosts }, admin))).toBe(id);
    expectServiceError(
      await s.call('POST', '/machineresolver/lab', ldapSettings(), admin),
      905,
      "Machine resolver 'lab' is a hosts; its type cannot be changed to ldap",
    );
    expect(ok(await s.call('DELETE', '/machineresolver/lab', {}, admin))).toBe(id);
    expect(await storedRows()).toEqual([]);
    expectServiceError(
      await s.call('DELETE', '/machineresolver/lab', {}, admin),
      601,
      'The machine resolver lab does not exist.',
    );
  });

  it('refuses bad settings, changing nothing', async () => {
    writeFileSync(hosts, HOSTS);
    const bad: [string, Record<string, string>, number, string | RegExp][] = [
      ['lab', { filename: hosts }, 905, "Missing parameter: 'type'"],
      ['lab', { type: 'nis', filename: hosts }, 905, "Unknown machine resolver type 'nis': use hosts, ldap"],
      ['lab', { type: 'hosts' }, 905, /filename/],
      ['lab', { type: 'hosts', filename: hosts, colour: 'red' }, 905, /Unknown setting 'colour' for a hosts/],
      ['lab', { type: 'hosts', filename: '/etc/hosts' }, 905, /not in a directory allowed/],
      ['bad name', { type: 'hosts', filename: hosts }, 905, /Invalid machine resolver name/],
      ['dir', ldapSettings({ LDAPURI: 'http://x' }), 905, /must start with ldap:\/\/ or ldaps:\/\//],
      ['dir', ldapSettings({ HOSTNAMEATTRIBUTE: '' }), 905, /HOSTNAMEATTRIBUTE/],
      [
        'dir',
        ldapSettings({ SEARCHFILTER: '(cn=x' }),
        905,
        /SEARCHFILTER '\(cn=x' is not a valid LDAP filter/,
      ],
      [
        'dir',
        ldapSettings({ IPATTRIBUTE: 'ip host' }),
        905,
        /IPATTRIBUTE: 'ip host' is not an LDAP attribute/,
      ],
      ['dir', ldapSettings({ TIMEOUT: 'soon' }), 905, 'TIMEOUT must be a whole number'],
    ];
    for (const [name, params, code, message] of bad) {
      expectServiceError(
        await s.call('POST', `/machineresolver/${encodeURIComponent(name)}`, params, admin),
        code,
        message,
      );
    }
    expect(await storedRows()).toEqual([]);
    const rows = await s.rt.store.db
      .selectFrom('audit')
      .select(['success', 'resolver'])
      .where('action', '=', 'POST /machineresolver/<resolver>')
      .execute();
    expect(rows).toHaveLength(bad.length);
    expect(rows.every((r) => r.success === 0)).toBe(true);
  });

  it('lists the machines of a hosts file, filtered, re-reads it and fails when it is gone', async () => {
    writeFileSync(hosts, HOSTS);
    ok(await s.call('POST', '/machineresolver/lab', { type: 'hosts', filename: hosts }, admin));
    const gw = { id: '10.0.0.1', hostname: ['gw', 'gw.lab'], ip: '10.0.0.1', resolver_name: 'lab' };
    const web = { id: '10.0.0.2', hostname: ['web1.lab', 'web1'], ip: '10.0.0.2', resolver_name: 'lab' };
    const lo = { id: '::1', hostname: ['localhost6'], ip: '::1', resolver_name: 'lab' };
    expect(await machines()).toEqual([gw, web, lo]);
    expect(await machines({ hostname: 'web' })).toEqual([web]);
    expect(await machines({ hostname: 'lab' })).toEqual([gw, web]);
    expect(await machines({ ip: '10.0.0.2' })).toEqual([web]);
    // ip is exact, id a substring.
    expect(await machines({ ip: '10.0.0' })).toEqual([]);
    expect(await machines({ id: '10.0.0' })).toEqual([gw, web]);
    expect(await machines({ any: 'localhost' })).toEqual([lo]);
    expect(await machines({ any: '.2' })).toEqual([web]);
    expect(await machines({ resolver: 'la' })).toEqual([gw, web, lo]);
    expect(await machines({ resolver: 'other' })).toEqual([]);
    expect(await machines({ hostname: 'web', ip: '10.0.0.1' })).toEqual([]);

    writeFileSync(hosts, '10.0.0.9 new\n');
    await nextLook();
    expect(await machines()).toEqual([
      { id: '10.0.0.9', hostname: ['new'], ip: '10.0.0.9', resolver_name: 'lab' },
    ]);
    rmSync(hosts);
    await nextLook();
    expectServiceError(
      await s.call('GET', '/machine/', {}, admin),
      907,
      /The machine resolver lab cannot list its machines: filename: .*hosts/,
    );
  });

  it('tests settings: true with the number of machines, false for a missing file or server', async () => {
    writeFileSync(hosts, HOSTS);
    const t = await s.call('POST', '/machineresolver/test', { type: 'hosts', filename: hosts }, admin);
    expect(t.json.result.value).toBe(true);
    expect(t.json.detail.description).toBe(
      `Found 3 machines in ${hosts}. 1 line(s) are not a machine and were skipped.`,
    );
    const missing = await s.call(
      'POST',
      '/machineresolver/test',
      { type: 'hosts', filename: join(s.dataDir, 'nope') },
      admin,
    );
    expect(missing.json.result).toMatchObject({ status: true, value: false });
    expect(missing.json.detail.description).toMatch(/nope/);

    const ldap = await s.call('POST', '/machineresolver/test', ldapSettings(), admin);
    expect(ldap.json.result.value).toBe(true);
    expect(ldap.json.detail.description).toBe('Your LDAP config seems to be OK, 3 machine objects found.');
    const down = await s.call(
      'POST',
      '/machineresolver/test',
      ldapSettings({ LDAPURI: 'ldap://127.0.0.1:1', TIMEOUT: '2' }),
      admin,
    );
    expect(down.json.result.value).toBe(false);
    expect(down.json.detail.description).toMatch(
      /LDAP server unreachable: cannot connect to ldap:\/\/127.0.0.1:1/,
    );
    const wrongPw = await s.call('POST', '/machineresolver/test', ldapSettings({ BINDPW: 'wrong' }), admin);
    expect(wrongPw.json.result.value).toBe(false);
    expect(wrongPw.json.detail.description).toMatch(/wrong BINDDN or BINDPW/);
    // Nothing was stored by the tests.
    expect(await storedRows()).toEqual([]);
    expectServiceError(await s.call('POST', '/machineresolver/test', { filename: hosts }, admin), 905);
  });

  it('stores BINDPW sealed, shows it censored, keeps it only for the same server and account', async () => {
    const id = ok(await s.call('POST', '/machineresolver/dir', ldapSettings(), admin));
    const [row] = await storedRows();
    expect(row!.config).not.toContain(READER_PASSWORD);
    const view = ok(await s.call('GET', '/machineresolver/dir', {}, admin)).dir;
    expect(view.data.BINDPW).toBe(CENSORED);
    expect(view.censor_keys).toEqual(['BINDPW']);
    // Omitted parameters are kept; __CENSORED__ keeps the secret.
    expect(
      ok(await s.call('POST', '/machineresolver/dir', { IDATTRIBUTE: 'cn', BINDPW: CENSORED }, admin)),
    ).toBe(id);
    expect(ok(await s.call('GET', '/machineresolver/dir', {}, admin)).dir.data).toMatchObject({
      IDATTRIBUTE: 'cn',
      BINDDN: READER_DN,
      BINDPW: CENSORED,
    });
    expect((await machines()).map((m) => m.id)).toEqual(['web1', 'db1', 'mail1']);
    // Another server with the kept secret is refused, and nothing changes.
    expectServiceError(
      await s.call(
        'POST',
        '/machineresolver/dir',
        { LDAPURI: 'ldap://198.51.100.7', BINDPW: CENSORED },
        admin,
      ),
      905,
      /BINDPW must be given again: LDAPURI differs from the stored settings/,
    );
    expect(ok(await s.call('GET', '/machineresolver/dir', {}, admin)).dir.data.LDAPURI).toBe(slapd.url);
    // The test with resolver=<name> uses the stored secret.
    const t = await s.call(
      'POST',
      '/machineresolver/test',
      { ...ldapSettings(), BINDPW: CENSORED, resolver: 'dir' },
      admin,
    );
    expect(t.json.result.value).toBe(true);
  });

  it('lists the machines of an LDAP directory, the filters sent to the server', async () => {
    ok(await s.call('POST', '/machineresolver/dir', ldapSettings(), admin));
    writeFileSync(hosts, HOSTS);
    ok(await s.call('POST', '/machineresolver/lab', { type: 'hosts', filename: hosts }, admin));
    const ldap = SLAPD_HOSTS.map((h) => ({
      id: h.dn,
      hostname: [...h.hostnames],
      ip: h.ip,
      resolver_name: 'dir',
    }));
    const [web1, db1, mail1] = ldap as [(typeof ldap)[0], (typeof ldap)[0], (typeof ldap)[0]];
    expect(await machines({ resolver: 'dir' })).toEqual(ldap);
    expect((await machines()).map((m) => m.resolver_name)).toEqual([
      'dir',
      'dir',
      'dir',
      'lab',
      'lab',
      'lab',
    ]);
    const searches = await slapd.ldapSearchCount();
    expect(await machines({ resolver: 'dir', hostname: 'web' })).toEqual([web1]);
    expect(await machines({ resolver: 'dir', ip: '192.168.1.20' })).toEqual([db1]);
    expect(await machines({ resolver: 'dir', ip: '192.168.1' })).toEqual([]);
    expect(await machines({ resolver: 'dir', any: 'mail' })).toEqual([mail1]);
    // The server matches: ipHostNumber has no substring rule in OpenLDAP's nis schema.
    expect(await machines({ resolver: 'dir', any: '10.0.0' })).toEqual([]);
    expect(await machines({ resolver: 'dir', id: 'cn=db1' })).toEqual([db1]);
    // A filter value's * and parentheses are literal.
    expect(await machines({ resolver: 'dir', hostname: '*' })).toEqual([]);
    expect(await machines({ resolver: 'dir', hostname: 'web1)(cn=*' })).toEqual([]);
    // One search (one page) for each listing: the filters went to the server.
    expect((await slapd.ldapSearchCount()) - searches).toBe(8);
    // An unreachable directory fails the listing with its reason.
    ok(
      await s.call(
        'POST',
        '/machineresolver/dir',
        { LDAPURI: 'ldap://127.0.0.1:1', TIMEOUT: '2', BINDPW: READER_PASSWORD },
        admin,
      ),
    );
    expectServiceError(
      await s.call('GET', '/machine/', {}, admin),
      907,
      /The machine resolver dir cannot list its machines: LDAP server unreachable/,
    );
  });

  it('needs an administrator and the rights mresolverread/write/delete and machinelist', async () => {
    writeFileSync(hosts, HOSTS);
    ok(await s.call('POST', '/machineresolver/lab', { type: 'hosts', filename: hosts }, admin));
    for (const [method, path] of [
      ['GET', '/machineresolver/'],
      ['GET', '/machineresolver/lab'],
      ['POST', '/machineresolver/x'],
      ['POST', '/machineresolver/test'],
      ['DELETE', '/machineresolver/lab'],
      ['GET', '/machine/'],
    ] as const) {
      expect((await s.call(method, path)).status).toBe(401);
    }
    await setPolicy(op, 'adm', { scope: 'admin', action: 'tokenlist' });
    const denied = (right: string) => `Admin actions are defined, but the action ${right} is not allowed!`;
    expectServiceError(await s.call('GET', '/machineresolver/', {}, admin), 303, denied('mresolverread'));
    expectServiceError(await s.call('GET', '/machineresolver/lab', {}, admin), 303, denied('mresolverread'));
    expectServiceError(
      await s.call('POST', '/machineresolver/x', { type: 'hosts', filename: hosts }, admin),
      303,
      denied('mresolverwrite'),
    );
    expectServiceError(
      await s.call('POST', '/machineresolver/test', { type: 'hosts', filename: hosts }, admin),
      303,
      denied('mresolverwrite'),
    );
    expectServiceError(
      await s.call('DELETE', '/machineresolver/lab', {}, admin),
      303,
      denied('mresolverdelete'),
    );
    expectServiceError(await s.call('GET', '/machine/', {}, admin), 303, denied('machinelist'));
    expect((await storedRows()).map((r) => r.name)).toEqual(['lab']);
    await setPolicy(op, 'adm', {
      scope: 'admin',
      action: 'mresolverread, mresolverwrite, mresolverdelete, machinelist',
    });
    expect(Object.keys(ok(await s.call('GET', '/machineresolver/', {}, admin)))).toEqual(['lab']);
    expect(await machines()).toHaveLength(3);
    expect(
      ok(await s.call('POST', '/machineresolver/x', { type: 'hosts', filename: hosts }, admin)),
    ).toBeGreaterThan(0);
    expect(ok(await s.call('DELETE', '/machineresolver/x', {}, admin))).toBeGreaterThan(0);
    const audit = await s.rt.store.db
      .selectFrom('audit')
      .select(['action', 'success'])
      .where('action', 'like', '% /machine%')
      .orderBy('id')
      .execute();
    // One row per request: 6 unauthenticated, 6 refused, 5 allowed (and the first POST).
    expect(audit).toHaveLength(1 + 6 + 6 + 4);
    expect(audit.filter((r) => r.success === 1)).toHaveLength(5);
  });
});
