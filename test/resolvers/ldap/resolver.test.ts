// The LDAP resolver against a real OpenLDAP (scripts/fixtures/slapd.ts): lookups, mapping, passwords,
// TLS, server pool, escaping, paging and size limits, referrals, cache, operation counts, timeouts,
// writes and test(). Small node:net servers stand in for a dead, a hung and a size-limited server,
// and a TCP proxy lets a test cut connections and count them.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { BerReader, BerWriter } from 'ldapts';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BASE_DN,
  EDITABLE_DN,
  generatedUser,
  PEOPLE_DN,
  READER_DN,
  READER_PASSWORD,
  REFERRAL_DN,
  type SlapdFixture,
  slapdUser,
  startSlapd,
} from '../../../scripts/fixtures/slapd.ts';
import { ldapResolver } from '../../../src/resolvers/ldap/index.ts';
import type { ResolverSettings, StoreEnvironment, UserStore } from '../../../src/resolvers/user-store.ts';
import { allowedFilesIn } from '../../helpers/user-stores.ts';

const GENERATED = 1200;
const SERVER_SIZE_LIMIT = 500;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let slapd: SlapdFixture;
let now = Date.parse('2025-06-01T12:00:00Z');
// The fixture's CA file is in its temporary directory.
const files = allowedFilesIn(tmpdir());
const env: StoreEnvironment = { log: pino({ level: 'silent' }), clock: () => new Date(now), files };
const stores: UserStore[] = [];
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  slapd = await startSlapd({ users: GENERATED, sizeLimit: SERVER_SIZE_LIMIT });
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(cleanups.splice(0).map((c) => c()));
});
afterAll(async () => {
  await slapd?.stop();
});

/** Reader account, inetOrgPerson users, everything else default. */
function settings(extra: ResolverSettings = {}): ResolverSettings {
  return {
    LDAPURI: slapd.url,
    LDAPBASE: BASE_DN,
    BINDDN: READER_DN,
    BINDPW: READER_PASSWORD,
    LDAPSEARCHFILTER: '(uid=*)(objectClass=inetOrgPerson)',
    ...extra,
  };
}

function open(extra: ResolverSettings = {}): UserStore {
  const store = ldapResolver.open(settings(extra), env);
  stores.push(store);
  return store;
}

/** The searches and binds slapd received while fn ran. */
async function counted<T>(fn: () => Promise<T>): Promise<{ result: T; search: number; bind: number }> {
  const before = await slapd.operationCounts();
  const result = await fn();
  const after = await slapd.operationCounts();
  return { result, search: after.search - before.search, bind: after.bind - before.bind };
}

async function elapsed<T>(p: Promise<T>): Promise<{ ms: number; error: unknown }> {
  const t = Date.now();
  try {
    await p;
    return { ms: Date.now() - t, error: undefined };
  } catch (error) {
    return { ms: Date.now() - t, error };
  }
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as net.AddressInfo).port;
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  const port = await listen(s);
  await new Promise((r) => s.close(r));
  return port;
}

/** Accepts TCP connections and never answers. */
async function hungServer(): Promise<{ port: number; connections: () => number }> {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => sockets.push(s));
  const port = await listen(server);
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return { port, connections: () => sockets.length };
}

/**
 * A TCP proxy to slapd that counts connections and can cut them all (a server dropping them), or
 * accept new ones without ever answering on them (hang: a server that hangs).
 */
async function proxyToSlapd(): Promise<{
  url: string;
  opened: () => number;
  live: () => number;
  cut: () => void;
  hang: () => void;
}> {
  const target = new URL(slapd.url);
  const pairs: [net.Socket, net.Socket][] = [];
  let hanging = false;
  const server = net.createServer((client) => {
    if (hanging) {
      pairs.push([client, client]);
      return;
    }
    const upstream = net.connect(Number(target.port), target.hostname);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
    pairs.push([client, upstream]);
  });
  const port = await listen(server);
  const cut = () => {
    for (const pair of pairs) for (const s of pair) s.destroy();
  };
  cleanups.push(async () => {
    cut();
    await new Promise((r) => server.close(r));
  });
  return {
    url: `ldap://127.0.0.1:${port}`,
    opened: () => pairs.length,
    live: () => pairs.filter(([a]) => !a.destroyed).length,
    cut,
    hang: () => {
      hanging = true;
    },
  };
}

/**
 * A minimal LDAP server: binds succeed; every search returns `entries` entries and then ends with
 * sizeLimitExceeded (4), as a server does whose own limit is below the resolver's SIZELIMIT.
 */
async function sizeLimitedServer(entries: number): Promise<string> {
  const messageLength = (b: Buffer): number | undefined => {
    if (b.length < 2) return undefined;
    const first = b[1]!;
    if (first < 0x80) return 2 + first;
    const n = first & 0x7f;
    if (b.length < 2 + n) return undefined;
    let len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + b[2 + i]!;
    return 2 + n + len;
  };
  const result = (id: number, tag: number, code: number) => {
    const w = new BerWriter();
    w.startSequence();
    w.writeInt(id);
    w.startSequence(tag);
    w.writeEnumeration(code);
    w.writeString('');
    w.writeString(code === 0 ? '' : 'Size limit exceeded');
    w.endSequence();
    w.endSequence();
    return w.buffer;
  };
  const entry = (id: number, i: number) => {
    const w = new BerWriter();
    w.startSequence();
    w.writeInt(id);
    w.startSequence(0x64);
    w.writeString(`uid=fake${i},${PEOPLE_DN}`);
    w.startSequence();
    for (const [type, value] of [
      ['uid', `fake${i}`],
      ['sn', `Fake${i}`],
    ] as const) {
      w.startSequence();
      w.writeString(type);
      w.startSequence(0x31);
      w.writeString(value);
      w.endSequence();
      w.endSequence();
    }
    w.endSequence();
    w.endSequence();
    w.endSequence();
    return w.buffer;
  };
  const sockets: net.Socket[] = [];
  const server = net.createServer((sock) => {
    sockets.push(sock);
    let buf = Buffer.alloc(0);
    sock.on('error', () => {});
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (let len = messageLength(buf); len !== undefined && buf.length >= len; len = messageLength(buf)) {
        const reader = new BerReader(buf.subarray(0, len));
        buf = buf.subarray(len);
        reader.readSequence();
        const id = reader.readInt()!;
        const op = reader.peek();
        if (op === 0x60) sock.write(result(id, 0x61, 0));
        else if (op === 0x63) {
          for (let i = 1; i <= entries; i++) sock.write(entry(id, i));
          sock.write(result(id, 0x65, 4));
        } else if (op === 0x42) sock.end();
      }
    });
  });
  const port = await listen(server);
  cleanups.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((r) => server.close(r));
  });
  return `ldap://127.0.0.1:${port}`;
}

describe('ldapresolver lookups', () => {
  it('finds a user by login with the USERINFO mapping and the DN as id', async () => {
    const store = open();
    const alice = slapdUser('alice');
    expect(await store.findByLogin('alice')).toEqual({
      userid: alice.dn,
      username: 'alice',
      givenname: 'Alice',
      surname: 'Anderson',
      email: alice.mail,
      phone: alice.phone,
      mobile: [alice.mobile],
    });
    expect(await store.findByLogin('nobody')).toBeUndefined();
    expect(await store.findByLogin('')).toBeUndefined();
    // Uids holding filter metacharacters are found literally.
    expect((await store.findByLogin('star*user'))?.userid).toBe(slapdUser('star*user').dn);
    expect((await store.findByLogin('paren(user)'))?.userid).toBe(slapdUser('paren(user)').dn);
  });

  it('finds users by every LOGINNAMEATTRIBUTE; the first one gives the user name', async () => {
    const store = open({ LOGINNAMEATTRIBUTE: 'uid, mail' });
    expect(await store.findByLogin('bob')).toMatchObject({ username: 'bob', userid: slapdUser('bob').dn });
    expect(await store.findByLogin('bob@example.org')).toMatchObject({ username: 'bob' });
    // dave's second mail value
    expect(await store.findByLogin('david@example.org')).toMatchObject({ username: 'dave' });
    const byMail = open({ LOGINNAMEATTRIBUTE: 'mail' });
    expect(await byMail.findByLogin('carol@example.org')).toMatchObject({ username: 'carol@example.org' });
    expect(await byMail.findByLogin('carol')).toBeUndefined();
  });

  it('finds a user by DN only under LDAPBASE and not behind a referral', async () => {
    const store = open({ LDAPBASE: PEOPLE_DN });
    const carol = slapdUser('carol');
    expect(await store.findById(carol.dn)).toMatchObject({ username: 'carol', userid: carol.dn });
    expect(await store.findById(carol.dn.toUpperCase())).toMatchObject({ username: 'carol' });
    expect(await store.findById(`uid=nobody,${PEOPLE_DN}`)).toBeUndefined();
    expect(await store.findById(`uid=alice,${REFERRAL_DN}`)).toBeUndefined();
    expect(await store.findById(READER_DN)).toBeUndefined();
    expect(await store.findById('not a dn')).toBeUndefined();
    expect(await store.findById('')).toBeUndefined();
  });

  it('uses entryUUID or uidNumber as the user id (UIDTYPE)', async () => {
    const byUuid = open({ UIDTYPE: 'entryUUID' });
    const carol = await byUuid.findByLogin('carol');
    expect(carol?.userid).toMatch(UUID);
    expect(await byUuid.findById(carol!.userid)).toMatchObject({ username: 'carol', userid: carol!.userid });
    expect(await byUuid.findById('00000000-0000-0000-0000-000000000000')).toBeUndefined();
    expect(await byUuid.checkPassword(carol!, 'carolpass')).toBe(true);

    const byNumber = open({ UIDTYPE: 'uidNumber' });
    const dave = slapdUser('dave');
    expect(await byNumber.findByLogin('dave')).toMatchObject({
      userid: String(dave.uidNumber),
      username: 'dave',
    });
    const found = await byNumber.findById(String(dave.uidNumber));
    expect(found).toMatchObject({ username: 'dave', surname: 'Davis' });
    // A copy of the record (no DN remembered for it): the DN is looked up by the id.
    expect(await byNumber.checkPassword({ ...found! }, 'davepass')).toBe(true);
    expect(await byNumber.findById('*')).toBeUndefined();
  });

  it('searches with wildcards, every field AND-ed, at most the limit', async () => {
    const store = open();
    const names = async (filter: Record<string, string>, limit = 100) =>
      (await store.search(filter, limit)).map((u) => u.username).sort();
    expect(await names({ username: 'user000*' })).toEqual(
      Array.from({ length: 9 }, (_, i) => generatedUser(i + 1).uid),
    );
    expect(await names({ email: '*@example.net' })).toEqual(['dave']);
    expect(await names({ surname: 'And*', givenname: 'Al*' })).toEqual(['alice']);
    expect(await names({ surname: 'And*', givenname: 'Bo*' })).toEqual([]);
    expect(await names({ username: 'star*' })).toEqual(['star*user']);
    expect(await names({ username: '*(*' })).toEqual(['paren(user)']);
    expect(await names({ unknownfield: '*' })).toEqual([]);
    expect(await store.search({}, 7)).toHaveLength(7);
    expect(await store.search({}, 0)).toEqual([]);
    expect(await names({ userid: `uid=b*,${PEOPLE_DN}` })).toEqual(['bob']);
  });

  it('keeps all values of MULTIVALUEATTRIBUTES and the first of the others', async () => {
    const dave = slapdUser('dave');
    expect(await open().findByLogin('dave')).toMatchObject({ email: dave.mails[0], mobile: [dave.mobile] });
    const multiMail = open({ MULTIVALUEATTRIBUTES: '["email", "phone"]' });
    expect(await multiMail.findByLogin('dave')).toMatchObject({
      email: dave.mails,
      mobile: dave.mobile,
      phone: [dave.phone],
    });
    // privacyIDEA's YAML allowed Python-style quotes.
    expect(await open({ MULTIVALUEATTRIBUTES: "['email']" }).findByLogin('dave')).toMatchObject({
      email: dave.mails,
    });
    const custom = open({ USERINFO: '{"email": "mail", "fullname": "cn", "uidnumber": "uidNumber"}' });
    expect(await custom.findByLogin('dave')).toEqual({
      userid: dave.dn,
      username: 'dave',
      email: dave.mails[0],
      fullname: 'Dave Davis',
      uidnumber: String(dave.uidNumber),
    });
  });

  it('uses the legacy LDAPFILTER only without LDAPSEARCHFILTER; accepts NOSCHEMAS', async () => {
    const legacy = open({ LDAPSEARCHFILTER: '', LDAPFILTER: '(&(uid=%s)(objectClass=inetOrgPerson))' });
    expect(await legacy.findByLogin('alice')).toMatchObject({ username: 'alice' });
    expect(await legacy.search({ username: 'user1*' }, 1000)).toHaveLength(201);
    const both = open({ LDAPFILTER: '(&(uid=%s)(objectClass=nothing))', NOSCHEMAS: 'True' });
    expect(await both.findByLogin('alice')).toMatchObject({ username: 'alice' });
    // Neither: every entry with the login attribute.
    const neither = open({ LDAPSEARCHFILTER: '' });
    expect(await neither.findByLogin('bob')).toMatchObject({ username: 'bob' });
  });

  it('honours SCOPE', async () => {
    expect(await open({ LDAPBASE: PEOPLE_DN, SCOPE: 'one' }).findByLogin('alice')).toBeDefined();
    expect(await open({ SCOPE: 'one' }).findByLogin('alice')).toBeUndefined();
  });
});

describe('ldapresolver passwords and binds', () => {
  it('checks passwords by binding as the user', async () => {
    const store = open();
    const bob = (await store.findByLogin('bob'))!;
    expect(await store.checkPassword(bob, 'bobpass')).toBe(true);
    expect(await store.checkPassword(bob, 'wrong')).toBe(false);
    // An empty password would be an unauthenticated bind, which slapd accepts: never a success.
    expect(await store.checkPassword(bob, '')).toBe(false);
    expect(await store.checkPassword(bob, 'bobpass')).toBe(true);
    const paren = (await store.findByLogin('paren(user)'))!;
    expect(await store.checkPassword(paren, 'paren(user)pass')).toBe(true);
    // A made-up record of an entry that is no user (not matched by LDAPSEARCHFILTER) is not bound.
    expect(await store.checkPassword({ userid: READER_DN, username: 'reader' }, READER_PASSWORD)).toBe(false);
    // A copy of a real one is fine (looked up by its id).
    expect(await store.checkPassword({ ...bob }, 'bobpass')).toBe(true);
  });

  it('works anonymously (AUTHTYPE Anonymous) without any service bind', async () => {
    const store = open({ AUTHTYPE: 'Anonymous', BINDDN: '', BINDPW: '' });
    const { result: alice, bind, search } = await counted(() => store.findByLogin('alice'));
    expect(alice).toMatchObject({ username: 'alice' });
    expect({ bind, search }).toEqual({ bind: 0, search: 1 });
    expect(await store.checkPassword(alice!, 'alicepass')).toBe(true);
    // Simple without BINDDN is anonymous too (privacyIDEA).
    expect(await open({ BINDDN: '', BINDPW: '' }).findByLogin('bob')).toMatchObject({ username: 'bob' });
  });

  it('reports a wrong bind password of the service account clearly', async () => {
    const store = open({ BINDPW: 'wrong' });
    await expect(store.findByLogin('alice')).rejects.toMatchObject({
      name: 'ResolverError',
      code: 907,
      message: expect.stringContaining('wrong BINDDN or BINDPW'),
    });
    await expect(store.search({}, 10)).rejects.toMatchObject({ code: 907 });
  });

  it('refuses unsupported AUTHTYPEs and other bad settings with a ParameterError', () => {
    const bad: [ResolverSettings, RegExp][] = [
      [{ AUTHTYPE: 'NTLM' }, /AUTHTYPE 'NTLM' is not supported/],
      [{ AUTHTYPE: 'SASL Kerberos' }, /not supported/],
      [{ BINDPW: '' }, /BINDPW is empty/],
      [{ LDAPURI: 'http://127.0.0.1' }, /ldap:\/\/ or ldaps:\/\//],
      [{ LDAPURI: '' }, /LDAPURI/],
      [{ LDAPBASE: '' }, /LDAPBASE/],
      [{ LDAPSEARCHFILTER: '(uid=*' }, /not a valid LDAP filter/],
      [{ USERINFO: '{"email": 5}' }, /USERINFO/],
      [{ USERINFO: '{"email": "mail)(x"}' }, /not an LDAP attribute name/],
      [{ LOGINNAMEATTRIBUTE: 'uid=*' }, /not an LDAP attribute name/],
      [{ TLS_VERSION: '9' }, /TLS_VERSION '9' is not supported/],
      [
        { TLS_CA_FILE: '/nonexistent/ca.pem' },
        /TLS_CA_FILE: \/nonexistent\/ca.pem is not in a directory allowed/,
      ],
      [{ TLS_CA_FILE: `${tmpdir()}/nonexistent/ca.pem` }, /TLS_CA_FILE: .* does not exist/],
      [{ TLS_CA_FILE: '/etc/shadow' }, /is not in a directory allowed for the server's files/],
      [{ TLS_CA_FILE: tmpdir() }, /TLS_CA_FILE: .* is not a regular file/],
      [{ TIMEOUT: '0' }, /TIMEOUT/],
      [{ SCOPE: 'everything' }, /SCOPE/],
      [{ MULTIVALUEATTRIBUTES: '{"a": 1}' }, /MULTIVALUEATTRIBUTES/],
    ];
    for (const [extra, message] of bad) {
      expect(() => ldapResolver.validate!(settings(extra), files), JSON.stringify(extra)).toThrow(message);
      expect(() => ldapResolver.open(settings(extra), env)).toThrow(expect.objectContaining({ code: 905 }));
    }
    expect(() =>
      ldapResolver.validate!(settings({ LDAPURI: `ldaps://h1, h2:1389 ,ldap://[::1]` }), files),
    ).not.toThrow();
  });
});

describe('ldapresolver TLS', () => {
  it('speaks StartTLS and verifies the server against TLS_CA_FILE or CACERTIFICATE', async () => {
    const logBefore = slapd.log().length;
    const viaFile = open({ START_TLS: 'True', TLS_VERIFY: 'True', TLS_CA_FILE: slapd.caFile });
    const alice = await viaFile.findByLogin('alice');
    expect(alice).toMatchObject({ username: 'alice' });
    expect(await viaFile.checkPassword(alice!, 'alicepass')).toBe(true);
    // Both connections (search and password check) did StartTLS.
    expect(
      slapd
        .log()
        .slice(logBefore)
        .match(/EXT oid=1\.3\.6\.1\.4\.1\.1466\.20037/g),
    ).toHaveLength(2);

    const viaText = open({ START_TLS: 'True', CACERTIFICATE: readFileSync(slapd.caFile, 'utf8') });
    expect(await viaText.findByLogin('bob')).toMatchObject({ username: 'bob' });
    for (const version of ['2', '5', '1.2', '1.3']) {
      const pinned = open({ START_TLS: '1', TLS_CA_FILE: slapd.caFile, TLS_VERSION: version });
      expect(await pinned.findByLogin('bob'), `TLS_VERSION ${version}`).toMatchObject({ username: 'bob' });
    }
  });

  it('fails StartTLS clearly when the certificate cannot be verified, and not without TLS_VERIFY', async () => {
    const noCa = open({ START_TLS: 'True', TLS_VERIFY: 'True' });
    await expect(noCa.findByLogin('alice')).rejects.toMatchObject({
      code: 907,
      message: expect.stringMatching(/StartTLS with ldap:\/\/127\.0\.0\.1:\d+ failed: .*certificate/),
    });
    const defaultVerify = open({ START_TLS: 'True' });
    await expect(defaultVerify.findByLogin('alice')).rejects.toMatchObject({ code: 907 });
    const unverified = open({ START_TLS: 'True', TLS_VERIFY: 'False' });
    expect(await unverified.findByLogin('alice')).toMatchObject({ username: 'alice' });
  });

  it('speaks ldaps://', async () => {
    const store = open({ LDAPURI: slapd.ldapsUrl, TLS_CA_FILE: slapd.caFile });
    const carol = await store.findByLogin('carol');
    expect(carol).toMatchObject({ username: 'carol' });
    expect(await store.checkPassword(carol!, 'carolpass')).toBe(true);
    await expect(open({ LDAPURI: slapd.ldapsUrl }).findByLogin('carol')).rejects.toMatchObject({
      message: expect.stringMatching(/TLS with ldaps:\/\/127\.0\.0\.1:\d+ failed/),
    });
  });
});

describe('ldapresolver server pool and failures', () => {
  it('fails over to the next server of LDAPURI and skips a dead one for a while', async () => {
    const dead = await closedPort();
    const store = open({ LDAPURI: `ldap://127.0.0.1:${dead}, ${slapd.url}` });
    const alice = await store.findByLogin('alice');
    expect(alice).toMatchObject({ username: 'alice' });
    expect(await store.checkPassword(alice!, 'alicepass')).toBe(true);

    // A hung first server: the service bind times out, the second server answers; afterwards the
    // hung one is skipped (the password check's connection does not go there).
    const hung = await hungServer();
    const pool = open({ LDAPURI: `ldap://127.0.0.1:${hung.port},${slapd.url}`, TIMEOUT: '1' });
    const first = await elapsed(pool.findByLogin('bob'));
    expect(first.error).toBeUndefined();
    expect(first.ms).toBeGreaterThanOrEqual(900);
    expect(first.ms).toBeLessThan(2500);
    const bob = await pool.findByLogin('bob');
    const check = await elapsed(pool.checkPassword(bob!, 'bobpass'));
    expect(check).toMatchObject({ error: undefined });
    expect(check.ms).toBeLessThan(500);
    expect(hung.connections()).toBe(1);
    // After SERVERPOOL_SKIP (30 s) the hung server is tried again.
    now += 31_000;
    await pool.close();
    const again = open({ LDAPURI: `ldap://127.0.0.1:${hung.port},${slapd.url}`, TIMEOUT: '1' });
    await again.findByLogin('carol');
    expect(hung.connections()).toBe(2);
  });

  it('reports an unreachable server at once', async () => {
    const port = await closedPort();
    const store = open({ LDAPURI: `ldap://127.0.0.1:${port}` });
    const { ms, error } = await elapsed(store.findByLogin('alice'));
    expect(ms).toBeLessThan(1000);
    expect(error).toMatchObject({
      name: 'ResolverError',
      code: 907,
      message: `LDAP server unreachable: cannot connect to ldap://127.0.0.1:${port}: connection refused`,
    });
    const two = open({ LDAPURI: `ldap://127.0.0.1:${port},ldap://127.0.0.1:${port + 0}` });
    await expect(two.search({}, 5)).rejects.toMatchObject({ message: /unreachable: .*refused; .*refused/ });
  });

  it('gives up on a hung server within TIMEOUT, whatever it hangs on', async () => {
    const hung = await hungServer();
    const url = `ldap://127.0.0.1:${hung.port}`;
    const cases: [string, ResolverSettings, (s: UserStore) => Promise<unknown>][] = [
      ['service bind', {}, (s) => s.findByLogin('alice')],
      ['anonymous search', { BINDDN: '' }, (s) => s.search({ username: '*' }, 10)],
      ['StartTLS', { START_TLS: 'True', TLS_CA_FILE: slapd.caFile }, (s) => s.findByLogin('alice')],
      ['ldaps handshake', { LDAPURI: `ldaps://127.0.0.1:${hung.port}` }, (s) => s.findByLogin('alice')],
      [
        'user bind',
        { BINDDN: '' },
        (s) => s.checkPassword({ userid: slapdUser('alice').dn, username: 'alice' }, 'alicepass'),
      ],
      ['test()', {}, () => ldapResolver.test(settings({ LDAPURI: url, TIMEOUT: '1' }), env)],
    ];
    for (const [what, extra, run] of cases) {
      const store = open({ LDAPURI: url, TIMEOUT: '1', ...extra });
      const { ms, error } = await elapsed(run(store));
      expect(ms, what).toBeGreaterThanOrEqual(900);
      expect(ms, what).toBeLessThan(1600);
      if (what === 'test()') continue;
      expect(error, what).toMatchObject({
        name: 'ResolverError',
        message: expect.stringMatching(/within 1 s/),
      });
    }
    const result = await ldapResolver.test(settings({ LDAPURI: url, TIMEOUT: '1' }), env);
    expect(result).toEqual({ value: false, description: expect.stringMatching(/did not answer within 1 s/) });
  });

  it('replaces a dropped connection transparently, keeps StartTLS and reuses connections', async () => {
    const proxy = await proxyToSlapd();
    const store = open({ LDAPURI: proxy.url, START_TLS: 'True', TLS_CA_FILE: slapd.caFile });
    for (const uid of ['alice', 'bob', 'carol', 'dave']) {
      const u = await store.findByLogin(uid);
      expect(await store.checkPassword(u!, `${uid}pass`)).toBe(true);
    }
    // One connection for searches, one for password checks.
    expect(proxy.opened()).toBe(2);

    proxy.cut();
    await new Promise((r) => setTimeout(r, 50));
    const logBefore = slapd.log().length;
    const { result, search, bind } = await counted(() => store.findByLogin(generatedUser(7).uid));
    expect(result).toMatchObject({ username: generatedUser(7).uid });
    expect({ search, bind }).toEqual({ search: 1, bind: 1 });
    expect(await store.checkPassword(result!, 'user0007pass')).toBe(true);
    expect(proxy.opened()).toBe(4);
    // The new connections did StartTLS again before binding.
    expect(
      slapd
        .log()
        .slice(logBefore)
        .match(/EXT oid=1\.3\.6\.1\.4\.1\.1466\.20037/g),
    ).toHaveLength(2);

    await store.close();
    await new Promise((r) => setTimeout(r, 50));
    expect(proxy.live()).toBe(0);
    await expect(store.findByLogin('alice')).rejects.toMatchObject({ message: /closed/ });
  });
});

describe('ldapresolver escaping, paging, size limits and referrals', () => {
  it('escapes login names and search values (filter injection finds nothing)', async () => {
    const store = open({ LOGINNAMEATTRIBUTE: 'uid,mail' });
    for (const login of ['*)(uid=*', '*', 'alic*', 'alice)(|(uid=*', '\\2a', 'star\\2auser', 'alice\0']) {
      expect(await store.findByLogin(login), login).toBeUndefined();
    }
    expect(await store.search({ username: '*)(uid=*' }, 100)).toEqual([]);
    expect(await store.search({ username: 'alice)(|(objectClass=*' }, 100)).toEqual([]);
    expect(await store.search({ email: '\\2a*' }, 100)).toEqual([]);
    expect(await store.findById(`uid=*,${PEOPLE_DN}`)).toBeUndefined();
    const byNumber = open({ UIDTYPE: 'uidNumber' });
    expect(await byNumber.findById('*)(uidNumber=*')).toBeUndefined();
  });

  it('pages past the server size limit up to SIZELIMIT, as the reader', async () => {
    // slapd refuses an unpaged search for more than 500 entries from the reader.
    const store = open({ SIZELIMIT: '700' });
    const { result, search } = await counted(() => store.search({ username: 'user*' }, 10_000));
    expect(result).toHaveLength(700);
    expect(new Set(result.map((u) => u.username)).size).toBe(700);
    // Pages of 200: four requests; the last ends with sizeLimitExceeded (our limit), entries kept.
    expect(search).toBe(4);
    expect(slapd.log()).toMatch(/SEARCH RESULT .*err=4 .*nentries=100/);

    const all = open({ SIZELIMIT: '5000' });
    expect(await all.search({ username: 'user*' }, 10_000)).toHaveLength(GENERATED);
    expect(await open().search({}, 10_000)).toHaveLength(500);
    expect(await open({ SIZELIMIT: '3' }).search({}, 10)).toHaveLength(3);
  });

  it('returns the entries a server sent before its own sizeLimitExceeded', async () => {
    const url = await sizeLimitedServer(3);
    const store = open({ LDAPURI: url, LDAPSEARCHFILTER: '(uid=*)', USERINFO: '{"surname": "sn"}' });
    const users = await store.search({}, 100);
    expect(users.map((u) => u.username)).toEqual(['fake1', 'fake2', 'fake3']);
    expect(users[0]).toEqual({ userid: `uid=fake1,${PEOPLE_DN}`, username: 'fake1', surname: 'Fake1' });
    const result = await ldapResolver.test(settings({ LDAPURI: url, LDAPSEARCHFILTER: '(uid=*)' }), env);
    expect(result).toEqual({
      value: true,
      description: 'Your LDAP config seems to be OK, 3 user objects found.',
    });
  });

  it('does not let the referral under ou=people break searches (NOREFERRALS either way)', async () => {
    for (const noReferrals of ['True', 'False']) {
      const store = open({
        NOREFERRALS: noReferrals,
        LDAPBASE: PEOPLE_DN,
        LDAPSEARCHFILTER: '(uid=*)',
        SIZELIMIT: '5000',
      });
      const users = await store.search({ username: 'a*' }, 100);
      expect(users.map((u) => u.username)).toEqual(['alice']);
      expect(await store.findByLogin('carol')).toMatchObject({ username: 'carol' });
      expect(await store.search({}, 5000)).toHaveLength(GENERATED + 6);
    }
  });
});

describe('ldapresolver cache and operation counts', () => {
  it('caches lookups for CACHE_TIMEOUT seconds, found or not', async () => {
    const store = open({ CACHE_TIMEOUT: '120' });
    const first = await counted(() => store.findByLogin('alice'));
    expect(first.search).toBe(1);
    const again = await counted(async () => [
      await store.findByLogin('alice'),
      await store.findById(slapdUser('alice').dn),
    ]);
    expect(again.search).toBe(0);
    expect(again.result).toEqual([first.result, first.result]);
    // Callers get copies: changing one does not change the cache.
    again.result[0]!.email = 'changed';
    expect((await store.findByLogin('alice'))?.email).toBe(slapdUser('alice').mail);

    expect((await counted(() => store.findByLogin('ghost'))).search).toBe(1);
    expect((await counted(() => store.findByLogin('ghost'))).search).toBe(0);

    now += 119_000;
    expect((await counted(() => store.findByLogin('alice'))).search).toBe(0);
    now += 2_000;
    expect((await counted(() => store.findByLogin('alice'))).search).toBe(1);
    expect((await counted(() => store.findByLogin('ghost'))).search).toBe(1);

    const uncached = open({ CACHE_TIMEOUT: '0' });
    await uncached.findByLogin('bob');
    expect((await counted(() => uncached.findByLogin('bob'))).search).toBe(1);
  });

  it('costs at most one search and one bind per authentication, no search when cached', async () => {
    for (const uidType of ['DN', 'entryUUID']) {
      const store = open({ UIDTYPE: uidType });
      const authenticate = async (login: string, password: string) => {
        const user = await store.findByLogin(login);
        return user !== undefined && (await store.checkPassword(user, password));
      };
      // The first one also binds the service connection.
      const cold = await counted(() => authenticate('alice', 'alicepass'));
      expect(cold).toEqual({ result: true, search: 1, bind: 2 });
      const uncached = await counted(() => authenticate('bob', 'bobpass'));
      expect(uncached, uidType).toEqual({ result: true, search: 1, bind: 1 });
      const wrong = await counted(() => authenticate('carol', 'nope'));
      expect(wrong).toEqual({ result: false, search: 1, bind: 1 });
      const cached = await counted(() => authenticate('bob', 'bobpass'));
      expect(cached, uidType).toEqual({ result: true, search: 0, bind: 1 });
      const many = await counted(async () => {
        for (let i = 1; i <= 20; i++)
          expect(await authenticate(generatedUser(i).uid, generatedUser(i).password)).toBe(true);
      });
      expect(many).toMatchObject({ search: 20, bind: 20 });
    }
  });

  it('authenticates concurrently on pooled connections', async () => {
    const proxy = await proxyToSlapd();
    const store = open({ LDAPURI: proxy.url });
    const users = Array.from({ length: 12 }, (_, i) => generatedUser(i + 100));
    const results = await Promise.all(
      users.map(async (u) => {
        const found = await store.findByLogin(u.uid);
        return store.checkPassword(found!, u.password);
      }),
    );
    expect(results.every((r) => r)).toBe(true);
    const opened = proxy.opened();
    // One search connection, the rest for concurrent binds; at most 4 stay open afterwards.
    expect(opened).toBeLessThanOrEqual(13);
    await new Promise((r) => setTimeout(r, 50));
    expect(proxy.live()).toBeLessThanOrEqual(5);
    await Promise.all(
      users.map(async (u) => store.checkPassword((await store.findByLogin(u.uid))!, u.password)),
    );
    expect(proxy.opened()).toBeLessThanOrEqual(opened + 8);
  });

  it('checks many passwords at once on at most four connections, which stay open', async () => {
    const proxy = await proxyToSlapd();
    const store = open({ LDAPURI: proxy.url });
    const users = Array.from({ length: 32 }, (_, i) => generatedUser(i + 200));
    const found = await Promise.all(users.map((u) => store.findByLogin(u.uid)));
    // The service connection.
    expect(proxy.opened()).toBe(1);
    const check = (wrong = -1) =>
      Promise.all(users.map((u, i) => store.checkPassword(found[i]!, i === wrong ? 'nope' : u.password)));

    const first = await counted(() => check());
    expect(first.result.every((r) => r)).toBe(true);
    expect({ search: first.search, bind: first.bind }).toEqual({ search: 0, bind: 32 });
    expect(proxy.opened()).toBe(5);
    const second = await counted(() => check(3));
    expect(second.result.filter((r) => r)).toHaveLength(31);
    expect({ search: second.search, bind: second.bind }).toEqual({ search: 0, bind: 32 });
    // No connection opened or closed for the second round.
    expect(proxy.opened()).toBe(5);
    expect(proxy.live()).toBe(5);

    // Lost connections are replaced, again four at most.
    proxy.cut();
    await new Promise((r) => setTimeout(r, 50));
    expect((await check()).every((r) => r)).toBe(true);
    expect(proxy.opened()).toBe(9);
  });

  it('gives a password check waiting for a connection its own after TIMEOUT', async () => {
    const proxy = await proxyToSlapd();
    const store = open({ LDAPURI: proxy.url, TIMEOUT: '1' });
    const users = Array.from({ length: 5 }, (_, i) => generatedUser(i + 400));
    const found = await Promise.all(users.map((u) => store.findByLogin(u.uid)));
    // New connections are accepted and never answered: four binds hang, the fifth check waits.
    proxy.hang();
    const started = Date.now();
    const ms: number[] = [];
    const results = await Promise.allSettled(
      users.map(async (u, i) => {
        try {
          return await store.checkPassword(found[i]!, u.password);
        } finally {
          ms[i] = Date.now() - started;
        }
      }),
    );
    for (const r of results)
      expect(r).toMatchObject({ status: 'rejected', reason: { message: /did not answer .* within 1 s/ } });
    // The fifth: one TIMEOUT waiting, one on its own connection; never more.
    expect(ms[4]).toBeGreaterThanOrEqual(1_800);
    expect(ms[4]).toBeLessThan(3_500);
    expect(Math.max(...ms.slice(0, 4))).toBeLessThan(ms[4]!);
    expect(proxy.opened()).toBe(6);
  });

  it('answers every waiting password check when the store is closed', async () => {
    const store = open();
    const users = Array.from({ length: 12 }, (_, i) => generatedUser(i + 300));
    const found = await Promise.all(users.map((u) => store.findByLogin(u.uid)));
    const checks = Promise.allSettled(users.map((u, i) => store.checkPassword(found[i]!, u.password)));
    // Four are connecting by now, the other eight wait for one of those connections.
    await new Promise((r) => setImmediate(r));
    await store.close();
    const results = await checks;
    // The ones waiting fail with "closed"; none is left hanging.
    const closed = results.filter((r) => r.status === 'rejected' && /closed/.test(String(r.reason)));
    expect(closed.length).toBeGreaterThanOrEqual(8);
  });
});

describe('ldapresolver editable stores', () => {
  const admin = (extra: ResolverSettings = {}) =>
    open({
      BINDDN: slapd.adminDn,
      BINDPW: slapd.adminPassword,
      LDAPBASE: BASE_DN,
      EDITABLE: 'True',
      DN_TEMPLATE: `uid=<username>,${EDITABLE_DN}`,
      USERINFO:
        '{"phone": "telephoneNumber", "mobile": "mobile", "email": "mail", "surname": "sn", "givenname": "givenName", "password": "userPassword"}',
      ...extra,
    });

  it('creates, updates and deletes users', async () => {
    const store = admin();
    expect(store.editable).toBe(true);
    const id = await store.create!(
      { username: 'newbie', givenname: 'New', surname: 'Bie', email: 'newbie@example.org', mobile: '+49 1' },
      'newbiepass',
    );
    expect(id).toBe(`uid=newbie,${EDITABLE_DN}`);
    const created = await store.findByLogin('newbie');
    expect(created).toEqual({
      userid: id,
      username: 'newbie',
      givenname: 'New',
      surname: 'Bie',
      email: 'newbie@example.org',
      mobile: ['+49 1'],
    });
    expect(await store.checkPassword(created!, 'newbiepass')).toBe(true);
    // The password is stored hashed ({SSHA}), not in clear.
    const raw = await open({
      BINDDN: slapd.adminDn,
      BINDPW: slapd.adminPassword,
      USERINFO: '{"pw": "userPassword"}',
    }).findByLogin('newbie');
    expect(raw?.pw).toMatch(/^\{SSHA\}/);

    await store.update!(
      created!,
      { email: 'changed@example.org', phone: '+49 30 1', mobile: '' },
      'otherpass',
    );
    const updated = await store.findById(id);
    expect(updated).toEqual({
      userid: id,
      username: 'newbie',
      givenname: 'New',
      surname: 'Bie',
      email: 'changed@example.org',
      phone: '+49 30 1',
    });
    expect(await store.checkPassword(updated!, 'otherpass')).toBe(true);
    expect(await store.checkPassword(updated!, 'newbiepass')).toBe(false);
    // Changing the naming attribute would move the entry: refused.
    await expect(store.update!(updated!, { username: 'renamed' }, undefined)).rejects.toMatchObject({
      code: 905,
    });
    await expect(store.update!(updated!, { nonsense: 'x' }, undefined)).rejects.toThrow(
      /no mapping for .*nonsense/,
    );
    await expect(store.create!({ username: 'newbie' }, undefined)).rejects.toThrow(/already exists/);

    await store.delete!(updated!);
    expect(await store.findByLogin('newbie')).toBeUndefined();
    expect(await store.findById(id)).toBeUndefined();
  });

  it('escapes the values put into DN_TEMPLATE (RFC 4514)', async () => {
    const store = admin({
      DN_TEMPLATE: 'cn=<givenname> <surname>,<basedn>'.replace('<basedn>', EDITABLE_DN),
    });
    const id = await store.create!({ username: 'odd', givenname: '#Odd,', surname: 'One+Two ' }, 'oddpass');
    // Sent as cn=\#Odd\, One\+Two\ ,… ; slapd spells the escapes in hex, and that is the id.
    expect(id).toBe(`cn=\\23Odd\\2C One\\2BTwo\\20,${EDITABLE_DN}`);
    const odd = await store.findByLogin('odd');
    expect(odd).toMatchObject({ userid: id, givenname: '#Odd,', surname: 'One+Two ' });
    expect(await store.checkPassword(odd!, 'oddpass')).toBe(true);
    await store.delete!(odd!);

    const plain = admin();
    const weird = 'we,ird+"name"';
    const wid = await plain.create!({ username: weird, surname: 'W' }, 'x');
    expect(wid).toBe(`uid=we\\2Cird\\2B\\22name\\22,${EDITABLE_DN}`);
    expect(await plain.findById(`uid=we\\,ird\\+\\"name\\",${EDITABLE_DN}`)).toMatchObject({ userid: wid });
    expect(await plain.findByLogin(weird)).toMatchObject({ username: weird, userid: wid });
    await plain.delete!((await plain.findByLogin(weird))!);
  });

  it('stores the naming value as given, not a misread of its escaped trailing blank', async () => {
    const store = admin({
      DN_TEMPLATE: `cn=<givenname> <surname>,${EDITABLE_DN}`,
      USERINFO: '{"givenname": "givenName", "surname": "sn", "cn": "cn"}',
    });
    const id = await store.create!({ username: 'odd2', givenname: '#Odd,', surname: 'One+Two ' }, 'x');
    const odd = await store.findById(id);
    expect(odd).toMatchObject({ userid: id, cn: '#Odd, One+Two ' });
    await store.delete!(odd!);
  });

  it('finds, searches and binds users whose names hold * ( ) \\ literally (ldapts escaping)', async () => {
    const store = admin();
    const nasty = 'st*r(x)\\y';
    const id = await store.create!({ username: nasty, surname: 'N' }, 'nastypass');
    expect(id).toBe(`uid=st*r(x)\\5Cy,${EDITABLE_DN}`);
    const user = await store.findByLogin(nasty);
    expect(user).toMatchObject({ userid: id, username: nasty });
    expect(await store.checkPassword(user!, 'nastypass')).toBe(true);
    // Read as filter syntax these would match the user; as values they match only themselves.
    for (const login of ['st*', 'st*r(x)*', 'st*r\\28x\\29\\5cy', `${nasty}\0`]) {
      expect(await store.findByLogin(login), login).toBeUndefined();
    }
    expect((await store.search({ username: 'st*(x)\\*' }, 10)).map((u) => u.username)).toEqual([nasty]);
    expect(await store.search({ username: 'st*(y)*' }, 10)).toEqual([]);
    expect(await store.search({ username: 'st*\0*' }, 10)).toEqual([]);
    await store.delete!(user!);
  });

  it('reads DNs in every RFC 4514 spelling: escapes, hex pairs, case, blanks, multi-valued RDNs', async () => {
    const store = admin({ DN_TEMPLATE: `uid=<username>+sn=<surname>,${EDITABLE_DN}` });
    const id = await store.create!({ username: 'multi,val', surname: 'Sur "Q"+1' }, 'x');
    // slapd puts the RDN's values in its own order and spells the escapes in hex.
    expect(id).toBe(`sn=Sur \\22Q\\22\\2B1+uid=multi\\2Cval,${EDITABLE_DN}`);
    for (const spelling of [
      `uid=multi\\,val+sn=Sur \\"Q\\"\\+1,${EDITABLE_DN}`,
      `SN=sur \\22q\\22\\2b1 + UID=MULTI\\2cVAL , OU=Editable, DC=Example, DC=org`,
    ]) {
      expect(await store.findById(spelling), spelling).toMatchObject({ userid: id, username: 'multi,val' });
    }
    // LDAPBASE in hex pairs is the same base: the DN lies under it.
    const hexBase = admin({ LDAPBASE: 'ou=edit\\61ble,dc=example,dc=org' });
    expect(await hexBase.findById(id)).toMatchObject({ userid: id, surname: 'Sur "Q"+1' });
    // An escaped comma is no separator: this DN does not lie under LDAPBASE.
    expect(await hexBase.findById(`uid=multi\\,val+sn=x\\,ou=editable\\,dc=example,dc=org`)).toBeUndefined();

    const user = (await store.findById(id))!;
    // sn names the entry: the same value (in other case) is no change, another one is refused.
    await store.update!(user, { surname: 'SUR "q"+1', email: 'multi@example.org' }, undefined);
    expect(await store.findById(id)).toMatchObject({ surname: 'Sur "Q"+1', email: 'multi@example.org' });
    await expect(store.update!(user, { surname: 'Other' }, undefined)).rejects.toMatchObject({ code: 905 });
    await store.delete!(user);
    expect(await store.findById(id)).toBeUndefined();
  });

  it('returns the UIDTYPE attribute of a new user as its id', async () => {
    const store = admin({ UIDTYPE: 'entryUUID' });
    const id = await store.create!({ username: 'uuiduser' }, 'pw');
    expect(id).toMatch(UUID);
    const user = await store.findById(id);
    expect(user).toMatchObject({ username: 'uuiduser', surname: 'uuiduser' });
    await store.delete!(user!);
    expect(await store.findById(id)).toBeUndefined();
  });

  it('refuses writes when not editable, and reports missing rights', async () => {
    const store = admin({ EDITABLE: 'False' });
    expect(store.editable).toBe(false);
    await expect(store.create!({ username: 'x' }, 'x')).rejects.toThrow('The LDAP resolver is not editable');
    const alice = (await store.findByLogin('alice'))!;
    await expect(store.update!(alice, { email: 'x@y' }, undefined)).rejects.toMatchObject({ code: 905 });
    await expect(store.delete!(alice)).rejects.toMatchObject({ code: 905 });
    await expect(admin({ DN_TEMPLATE: '' }).create!({ username: 'x' }, 'x')).rejects.toThrow(/DN_TEMPLATE/);

    const reader = open({ EDITABLE: 'True', DN_TEMPLATE: `uid=<username>,${EDITABLE_DN}` });
    await expect(reader.create!({ username: 'nope' }, 'x')).rejects.toMatchObject({
      code: 907,
      message: expect.stringContaining('insufficient access'),
    });
  });
});

describe('ldapresolver test()', () => {
  it('counts the users of the filter up to SIZELIMIT', async () => {
    expect(await ldapResolver.test(settings(), env)).toEqual({
      value: true,
      description: 'Your LDAP config seems to be OK, 500 user objects found.',
    });
    expect(await ldapResolver.test(settings({ LDAPBASE: PEOPLE_DN, SIZELIMIT: '5000' }), env)).toEqual({
      value: true,
      description: `Your LDAP config seems to be OK, ${GENERATED + 6} user objects found.`,
    });
    expect(
      await ldapResolver.test(
        settings({ LDAPBASE: PEOPLE_DN, LDAPSEARCHFILTER: '(uid=*)(!(uid=user*))' }),
        env,
      ),
    ).toEqual({ value: true, description: 'Your LDAP config seems to be OK, 6 user objects found.' });
    expect(
      await ldapResolver.test(
        settings({ LDAPSEARCHFILTER: '(|(uid=alice)(uid=bob))', UIDTYPE: 'employeeNumber' }),
        env,
      ),
    ).toEqual({
      value: true,
      description: 'Your LDAP config found 2 user objects, but only 0 with the specified uidtype',
    });
  });

  it('says why the settings do not work', async () => {
    const port = await closedPort();
    const cases: [ResolverSettings, string | RegExp][] = [
      [{ BINDPW: 'wrong' }, /rejected the bind as 'cn=reader,dc=example,dc=org': wrong BINDDN or BINDPW/],
      [{ LDAPURI: `ldap://127.0.0.1:${port}` }, /LDAP server unreachable: .*connection refused/],
      [
        { LDAPBASE: 'ou=missing,dc=example,dc=org' },
        /LDAPBASE 'ou=missing,dc=example,dc=org' does not exist/,
      ],
      [{ AUTHTYPE: 'NTLM' }, "AUTHTYPE 'NTLM' is not supported (only Simple and Anonymous)"],
      [{ START_TLS: 'True' }, /certificate/],
    ];
    for (const [extra, description] of cases) {
      expect(await ldapResolver.test(settings(extra), env), JSON.stringify(extra)).toEqual({
        value: false,
        description: typeof description === 'string' ? description : expect.stringMatching(description),
      });
    }
  });

  it('describes its settings with privacyIDEA types', () => {
    expect(ldapResolver.type).toBe('ldapresolver');
    expect(ldapResolver.settings.BINDPW?.type).toBe('password');
    expect(ldapResolver.settings.TIMEOUT).toMatchObject({ type: 'int', default: '5' });
    expect(ldapResolver.settings.CACHE_TIMEOUT).toMatchObject({ type: 'int', default: '120' });
    expect(ldapResolver.settings.SIZELIMIT).toMatchObject({ type: 'int', default: '500' });
    for (const key of ['NOREFERRALS', 'NOSCHEMAS', 'EDITABLE', 'START_TLS', 'TLS_VERIFY']) {
      expect(ldapResolver.settings[key]?.type, key).toBe('bool');
    }
  });
});
