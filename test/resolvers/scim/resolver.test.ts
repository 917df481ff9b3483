// The SCIM resolver against the real fixture server on 127.0.0.1: token flow and reuse, lookups,
// attribute mapping, wildcard search with paging, filter injection, failures and timeouts.
import { createServer } from 'node:net';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ENTERPRISE_SCHEMA,
  SCIM_USERS,
  type ScimServer,
  scimId,
  startScimServer,
} from '../../../scripts/fixtures/scim-server.ts';
import { ParameterError, ResolverError } from '../../../src/errors.ts';
import { tokenEndpoint } from '../../../src/resolvers/scim/config.ts';
import { scimResolver } from '../../../src/resolvers/scim/index.ts';
import type { ResolverSettings, StoreEnvironment, UserStore } from '../../../src/resolvers/user-store.ts';
import { allowedFilesIn } from '../../helpers/user-stores.ts';

const GENERATED = 130;
const PAGE = 25;
const TOTAL = SCIM_USERS.length + GENERATED;
const START = Date.parse('2025-03-01T12:00:00Z');

let now = START;
let scim: ScimServer;
const stores: UserStore[] = [];

const log = pino({ level: 'silent' });
const files = allowedFilesIn();
const env = (clock: () => number = () => now): StoreEnvironment => ({
  log,
  clock: () => new Date(clock()),
  files,
});

function settings(extra: ResolverSettings = {}): ResolverSettings {
  return {
    Authserver: scim.authUrl,
    Resourceserver: scim.resourceUrl,
    Client: scim.clientId,
    Secret: scim.clientSecret,
    ...extra,
  };
}

function open(extra: ResolverSettings = {}, clock?: () => number): UserStore {
  const store = scimResolver.open(settings(extra), env(clock));
  stores.push(store);
  return store;
}

const tokenRequests = () => scim.requests.filter((r) => r.endpoint === 'token').length;
const userRequests = () => scim.requests.filter((r) => r.endpoint === 'users' || r.endpoint === 'user');
const filters = () => scim.requests.filter((r) => r.endpoint === 'users').map((r) => r.query.filter);

async function rejection(p: Promise<unknown>): Promise<{ error: ResolverError; ms: number }> {
  const started = performance.now();
  try {
    await p;
  } catch (e) {
    return { error: e as ResolverError, ms: performance.now() - started };
  }
  throw new Error('expected a rejection');
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

beforeAll(async () => {
  scim = await startScimServer({ generatedUsers: GENERATED, maxPageSize: PAGE, now: () => now });
});
afterAll(async () => {
  await scim.stop();
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  Object.assign(scim.behaviour, {
    delayMs: 0,
    tokenDelayMs: 0,
    failStatus: undefined,
    tokenFailStatus: undefined,
    tokenLifetime: 3600,
  });
  scim.requests.length = 0;
  now = START;
});

const alice = SCIM_USERS[0]!;
const carol = SCIM_USERS[2]!;

describe('access token', () => {
  it('is obtained with the client-credentials grant and HTTP Basic, from a base URL or the endpoint itself', async () => {
    for (const Authserver of [scim.authUrl, scim.tokenUrl, `${scim.authUrl}/`]) {
      scim.requests.length = 0;
      const store = open({ Authserver });
      expect((await store.findByLogin('alice'))?.userid).toBe(alice.id);
      const token = scim.requests.find((r) => r.endpoint === 'token')!;
      expect(token).toMatchObject({ method: 'POST', path: '/oauth/token', status: 200 });
      // id and secret are form-encoded before Base64 (RFC 6749 §2.3.1); the secret holds ':' and spaces.
      const basic = Buffer.from(token.authorization!.replace(/^Basic /, ''), 'base64').toString();
      expect(basic).toBe(`${scim.clientId}:s3cr3t%3Awith+spaces%26symbols`);
      expect(userRequests()[0]!.authorization).toMatch(/^Bearer \S+$/);
    }
  });

  it('is requested once for many lookups, also concurrent ones', async () => {
    const store = open({ CACHE_TIMEOUT: '0' });
    await Promise.all(['alice', 'bob', 'carol', 'dave', 'alice', 'nobody'].map((u) => store.findByLogin(u)));
    await store.findById(carol.id);
    await store.search({ username: 'user00*' }, 60);
    await store.findByLogin('alice');
    expect(tokenRequests()).toBe(1);
    expect(userRequests().length).toBe(6 + 1 + 3 + 1);
    expect(new Set(userRequests().map((r) => r.authorization)).size).toBe(1);
  });

  it('is renewed shortly before it expires, without a 401', async () => {
    scim.behaviour.tokenLifetime = 600;
    const store = open({ CACHE_TIMEOUT: '0' });
    await store.findByLogin('alice');
    now += 500_000;
    await store.findByLogin('alice');
    expect(tokenRequests()).toBe(1);
    now += 50_000; // 550 s: inside the last tenth of the lifetime, before expiry
    await store.findByLogin('alice');
    expect(tokenRequests()).toBe(2);
    expect(userRequests().every((r) => r.status === 200)).toBe(true);
  });

  it('is renewed when the server answers 401 (expired by the server clock, or revoked)', async () => {
    let storeNow = START;
    const store = open({ CACHE_TIMEOUT: '0' }, () => storeNow);
    await store.findByLogin('alice');
    now += 4000_000; // the server sees the token expired; the store's clock does not
    expect((await store.findByLogin('bob'))?.username).toBe('bob');
    expect(userRequests().map((r) => r.status)).toEqual([200, 401, 200]);
    expect(tokenRequests()).toBe(2);

    scim.revokeTokens();
    storeNow += 1000;
    expect((await store.findById(carol.id))?.username).toBe('carol');
    expect(userRequests().map((r) => r.status)).toEqual([200, 401, 200, 401, 200]);
    expect(tokenRequests()).toBe(3);
  });

  it('a server that rejects even a fresh token gives a clear error after one renewal', async () => {
    scim.behaviour.failStatus = 401;
    const store = open();
    const { error } = await rejection(store.findByLogin('alice'));
    expect(error.message).toMatch(/rejected a fresh access token: HTTP 401 \(Forced failure\)/);
    expect(tokenRequests()).toBe(2);
  });

  it('a wrong client secret gives a clear error', async () => {
    const store = open({ Secret: 'wrong' });
    const { error } = await rejection(store.findByLogin('alice'));
    expect(error).toBeInstanceOf(ResolverError);
    expect(error.code).toBe(907);
    expect(error.message).toBe(
      `could not get an access token from ${scim.tokenUrl}: HTTP 401 (invalid_client: client authentication failed)`,
    );
    expect(userRequests()).toEqual([]);
    const result = await scimResolver.test(settings({ Secret: 'wrong' }), env());
    expect(result).toEqual({ value: false, description: `failed to retrieve users: ${error.message}` });
  });

  it('a failing token endpoint gives a clear error', async () => {
    scim.behaviour.tokenFailStatus = 503;
    const { error } = await rejection(open().findByLogin('alice'));
    expect(error.message).toMatch(
      /could not get an access token from .*: HTTP 503 \(server_error: forced failure\)/,
    );
  });

  it('tokenEndpoint: base URLs get /oauth/token, token endpoints stay', () => {
    expect(tokenEndpoint('https://auth.example.org')).toBe('https://auth.example.org/oauth/token');
    expect(tokenEndpoint('https://host/uaa/')).toBe('https://host/uaa/oauth/token');
    expect(tokenEndpoint('https://host/oauth/token')).toBe('https://host/oauth/token');
    expect(tokenEndpoint('https://kc/realms/r/protocol/openid-connect/token')).toBe(
      'https://kc/realms/r/protocol/openid-connect/token',
    );
    expect(tokenEndpoint('https://login.example/tenant/oauth2/v2.0/token')).toBe(
      'https://login.example/tenant/oauth2/v2.0/token',
    );
    expect(tokenEndpoint('https://ping/as/token.oauth2')).toBe('https://ping/as/token.oauth2');
  });
});

describe('lookups and mapping', () => {
  it('findByLogin filters userName with a JSON string literal; unknown logins are undefined', async () => {
    const store = open();
    expect(await store.findByLogin('alice')).toEqual({
      userid: alice.id,
      username: 'alice',
      givenname: 'Alice',
      surname: 'Liddell',
      email: 'alice@example.org',
      phone: '+49 30 2000001',
      mobile: '+49 170 1000001',
    });
    expect(await store.findByLogin('nobody')).toBeUndefined();
    expect(await store.findByLogin('')).toBeUndefined();
    expect((await store.findByLogin('o"hara\\x'))?.surname).toBe("O'Hara");
    expect((await store.findByLogin('star*user'))?.email).toBe('star.user@example.org');
    // userName is case-insensitive in SCIM
    expect((await store.findByLogin('ALICE'))?.username).toBe('alice');
    expect(filters()).toEqual([
      'userName eq "alice"',
      'userName eq "nobody"',
      'userName eq "o\\"hara\\\\x"',
      'userName eq "star*user"',
      'userName eq "ALICE"',
    ]);
  });

  it('findById reads /Users/<id>, URL-encoded; unknown ids are undefined', async () => {
    const store = open();
    expect((await store.findById(carol.id))?.username).toBe('carol');
    expect(await store.findById('no-such-id')).toBeUndefined();
    expect(await store.findById('a/b?c#d')).toBeUndefined();
    expect(await store.findById('..')).toBeUndefined();
    expect(await store.findById('.')).toBeUndefined();
    expect(userRequests().map((r) => [r.path, r.status])).toEqual([
      [`/scim/v2/Users/${carol.id}`, 200],
      ['/scim/v2/Users/no-such-id', 404],
      ['/scim/v2/Users/a%2Fb%3Fc%23d', 404],
    ]);
  });

  it('default mapping: the primary e-mail, else the first; work and mobile phones by type', async () => {
    const store = open();
    expect(await store.findByLogin('bob')).toMatchObject({
      email: 'bob@example.org',
      phone: '+49 30 2000002',
      mobile: '',
    });
    expect(await store.findByLogin('carol')).toMatchObject({
      email: 'carol@example.org',
      phone: '',
      mobile: '+49 170 1000003',
    });
    expect(await store.findByLogin('dave')).toMatchObject({
      givenname: 'Dave',
      email: '',
      phone: '',
      mobile: '',
    });
  });

  it('custom mapping under the lower-case setting names: nested, filtered, indexed and extension paths', async () => {
    const mapping = {
      email: 'emails[type=home].value',
      primarymail: 'emails[primary].value',
      firstmail: 'emails[0].value',
      phone: 'phoneNumbers[0].value',
      description: 'displayName',
      employee: `${ENTERPRISE_SCHEMA}:employeeNumber`,
      manager: `${ENTERPRISE_SCHEMA}:manager.displayName`,
      active: 'active',
      mobile: '',
    };
    const store = scimResolver.open(
      {
        authserver: scim.tokenUrl,
        resourceserver: `${scim.resourceUrl}/`,
        authclient: scim.clientId,
        authsecret: scim.clientSecret,
        mapping: JSON.stringify(mapping),
      },
      env(),
    );
    stores.push(store);
    const bob = await store.findByLogin('bob');
    expect(bob).toEqual({
      userid: scimId('bob'),
      username: 'bob',
      givenname: 'Bob',
      surname: 'Builder',
      email: 'bob.home@example.net',
      primarymail: 'bob@example.org',
      firstmail: 'bob.home@example.net',
      phone: '+49 30 2000002',
      description: 'Bob Builder',
      employee: '',
      manager: '',
      active: 'true',
    });
    expect(await store.findByLogin('alice')).toMatchObject({
      employee: '1001',
      manager: 'Bob Builder',
      email: '',
    });
    expect(await store.findByLogin('carol')).toMatchObject({
      primarymail: '',
      firstmail: 'carol@example.org',
    });
    expect(await store.findByLogin('dave')).toMatchObject({ active: 'false' });
    // Searching a filtered path filters emails.value on the server, the selector locally.
    expect((await store.search({ email: '*@example.net' }, 10)).map((u) => u.username)).toEqual(['bob']);
    expect(filters().at(-1)).toBe('emails.value ew "@example.net"');
    expect((await store.search({ employee: '10*' }, 10)).map((u) => u.username)).toEqual(['alice']);
    expect(filters().at(-1)).toBe(`${ENTERPRISE_SCHEMA}:employeeNumber sw "10"`);
  });

  it('a userid mapped to another attribute is looked up with a filter', async () => {
    const store = open({ Mapping: '{"userid": "externalId"}' });
    expect((await store.findById('ext-carol'))?.username).toBe('carol');
    expect(filters()).toEqual(['externalId eq "ext-carol"']);
    expect(await store.findByLogin('alice')).toBeUndefined(); // no externalId: not a user of this store
  });

  it('found users are cached for CACHE_TIMEOUT seconds', async () => {
    const store = open({ CACHE_TIMEOUT: '120' });
    await store.findByLogin('alice');
    await store.findByLogin('alice');
    await store.findById(alice.id);
    expect(userRequests().length).toBe(1);
    now += 121_000;
    await store.findByLogin('alice');
    expect(userRequests().length).toBe(2);
    const uncached = open({ CACHE_TIMEOUT: '0' });
    await uncached.findByLogin('alice');
    await uncached.findByLogin('alice');
    expect(userRequests().length).toBe(4);
  });

  it('cannot check passwords and is not editable', async () => {
    const store = open();
    const user = (await store.findByLogin('alice'))!;
    const { error } = await rejection(store.checkPassword(user, 'secret'));
    expect(error.code).toBe(907);
    expect(error.message).toMatch(/^SCIM user stores cannot check passwords/);
    expect(store.editable).toBe(false);
    expect(store.create).toBeUndefined();
    expect(store.update).toBeUndefined();
    expect(store.delete).toBeUndefined();
  });
});

describe('search', () => {
  const names = (users: { username: string }[]) => users.map((u) => u.username);
  const gen = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `user${String(from + i).padStart(4, '0')}`);

  it('translates wildcards into sw/co/ew/eq filters joined with and', async () => {
    const store = open();
    expect(names(await store.search({ username: 'a*e' }, 100))).toEqual(['alice']);
    expect(names(await store.search({ email: '*ob*' }, 100))).toEqual(['bob']);
    expect(names(await store.search({ givenname: 'Gen', surname: 'User01*' }, 100))).toEqual(gen(100, 130));
    expect(names(await store.search({ username: 'star*user' }, 100))).toEqual(['star*user']);
    expect(names(await store.search({ username: 'c*r*l' }, 100))).toEqual(['carol']);
    expect(filters()).toEqual([
      'userName sw "a" and userName ew "e"',
      'emails.value co "ob"',
      'name.givenName eq "Gen" and name.familyName sw "User01"',
      'name.givenName eq "Gen" and name.familyName sw "User01"',
      'userName sw "star" and userName ew "user"',
      'userName sw "c" and userName co "r" and userName ew "l"',
    ]);
  });

  it('checks the mapped value itself: a non-primary e-mail does not match the email attribute', async () => {
    const store = open();
    expect(await store.search({ email: '*@example.net' }, 100)).toEqual([]);
    expect(filters()).toEqual(['emails.value ew "@example.net"']); // the server did return bob
  });

  it('pages beyond one server page up to the limit', async () => {
    const store = open();
    expect(names(await store.search({ username: 'user*' }, 1000))).toEqual(gen(1, GENERATED));
    expect(userRequests().map((r) => r.query.startIndex)).toEqual(['1', '26', '51', '76', '101', '126']);
    scim.requests.length = 0;
    expect(names(await store.search({ username: 'user*' }, 60))).toEqual(gen(1, 60));
    expect(userRequests().map((r) => [r.query.startIndex, r.query.count])).toEqual([
      ['1', '60'],
      ['26', '35'],
      ['51', '10'],
    ]);
    scim.requests.length = 0;
    const all = await store.search({ username: '*' }, Number.MAX_SAFE_INTEGER);
    expect(all.length).toBe(TOTAL);
    expect(userRequests().every((r) => r.query.filter === undefined)).toBe(true);
    expect(names(await store.search({}, 3))).toEqual(['alice', 'bob', 'carol']);
  });

  it('an attribute the mapping lacks matches nobody; a limit of 0 asks nothing', async () => {
    const store = open();
    expect(await store.search({ department: 'x*' }, 10)).toEqual([]);
    expect(await store.search({ username: '*' }, 0)).toEqual([]);
    expect(userRequests()).toEqual([]);
  });
});

describe('filter injection', () => {
  const injections = [
    'x" or userName pr or "',
    'x" or userName pr or userName eq "y',
    'x") or (userName pr',
    'x\\" or userName pr or \\"',
    '" or ""="',
  ];

  it('the fixture evaluates or/pr, so an unescaped value would match everyone', async () => {
    const tokenAnswer = await fetch(scim.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: scim.clientId,
        client_secret: scim.clientSecret,
      }),
    });
    const { access_token } = (await tokenAnswer.json()) as { access_token: string };
    const unescaped = async (value: string) => {
      const filter = `userName eq "${value}"`;
      const answer = await fetch(`${scim.resourceUrl}/Users?filter=${encodeURIComponent(filter)}&count=1`, {
        headers: { authorization: `Bearer ${access_token}` },
      });
      return {
        status: answer.status,
        body: (await answer.json()) as { totalResults?: number; scimType?: string },
      };
    };
    expect(await unescaped(injections[1]!)).toMatchObject({ status: 200, body: { totalResults: TOTAL } });
    // The classic form leaves a dangling `or ""`: a strict server refuses it as invalidFilter.
    expect(await unescaped(injections[0]!)).toMatchObject({
      status: 400,
      body: { scimType: 'invalidFilter' },
    });
  });

  it('escaped values find nothing in lookups and searches', async () => {
    const store = open();
    for (const value of injections) {
      expect(await store.findByLogin(value)).toBeUndefined();
      expect(await store.search({ username: value }, 10)).toEqual([]);
      expect(await store.search({ email: `*${value}*` }, 10)).toEqual([]);
      expect(await store.findById(value)).toBeUndefined();
    }
    expect(userRequests().every((r) => r.status === 200 || r.status === 404)).toBe(true);
    expect(filters()[0]).toBe('userName eq "x\\" or userName pr or \\""');
  });
});

describe('failures and timeouts', () => {
  it('a server that is down gives a clear error at once', async () => {
    const port = await closedPort();
    const down = {
      Authserver: `http://127.0.0.1:${port}`,
      Resourceserver: `http://127.0.0.1:${port}/scim/v2`,
    };
    const { error, ms } = await rejection(open(down).findByLogin('alice'));
    expect(error.code).toBe(907);
    expect(error.message).toBe(
      `cannot reach http://127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`,
    );
    expect(ms).toBeLessThan(1000);
    expect(await scimResolver.test(settings(down), env())).toEqual({
      value: false,
      description: `failed to retrieve users: ${error.message}`,
    });
  });

  it('a resource server that is down (token server up) gives a clear error', async () => {
    const port = await closedPort();
    const { error } = await rejection(
      open({ Resourceserver: `http://127.0.0.1:${port}/scim` }).findById('x'),
    );
    expect(error.message).toMatch(new RegExp(`^cannot reach http://127.0.0.1:${port}: .*ECONNREFUSED`));
  });

  it('a slow resource server gives an error within TIMEOUT', async () => {
    const store = open({ TIMEOUT: '1', CACHE_TIMEOUT: '0' });
    await store.findByLogin('alice'); // the token is cached now
    scim.behaviour.delayMs = 5000;
    for (const lookup of [() => store.findByLogin('alice'), () => store.search({ username: 'b*' }, 10)]) {
      const { error, ms } = await rejection(lookup());
      expect(error.message).toBe(`no answer from ${scim.origin} within 1 s`);
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(1800);
    }
    scim.behaviour.delayMs = 0;
    expect((await store.findByLogin('bob'))?.username).toBe('bob'); // recovers with the server
  });

  it('a slow token endpoint gives an error within TIMEOUT', async () => {
    scim.behaviour.tokenDelayMs = 5000;
    const { error, ms } = await rejection(open({ TIMEOUT: '1' }).findByLogin('alice'));
    expect(error.message).toBe(`no answer from ${scim.origin} within 1 s`);
    expect(ms).toBeLessThan(1800);
    const started = performance.now();
    const result = await scimResolver.test(settings({ TIMEOUT: '1' }), env());
    expect(result).toEqual({
      value: false,
      description: `failed to retrieve users: no answer from ${scim.origin} within 1 s`,
    });
    expect(performance.now() - started).toBeLessThan(1800);
  });

  it('a token endpoint and a resource server each slow but in time: one TIMEOUT covers both', async () => {
    scim.behaviour.delayMs = 600; // the token and the users each in time, not both
    const { error, ms } = await rejection(open({ TIMEOUT: '1' }).findByLogin('alice'));
    expect(error.message).toMatch(/within 1 s$/);
    expect(ms).toBeLessThan(1800);
    expect(scim.requests.find((r) => r.endpoint === 'token')?.status).toBe(200);
  });

  it('server errors are reported with status and detail', async () => {
    const store = open();
    await store.findByLogin('alice');
    scim.behaviour.failStatus = 500;
    const { error } = await rejection(store.findByLogin('bob'));
    expect(error.message).toBe('the SCIM server answered HTTP 500 for GET /scim/v2/Users (Forced failure)');
    const byId = await rejection(store.findById(carol.id));
    expect(byId.error.message).toBe(
      `the SCIM server answered HTTP 500 for GET /scim/v2/Users/${carol.id} (Forced failure)`,
    );
  });

  it('a wrong resource path gives a clear error', async () => {
    const { error } = await rejection(open({ Resourceserver: `${scim.origin}/wrong` }).findByLogin('alice'));
    expect(error.message).toBe(
      'the SCIM server answered HTTP 404 for GET /wrong/Users (No such endpoint /wrong/Users)',
    );
  });
});

describe('settings and test()', () => {
  it('test() counts the users with one small request', async () => {
    expect(await scimResolver.test(settings(), env())).toEqual({
      value: true,
      description: `Found ${TOTAL} users`,
    });
    expect(userRequests().map((r) => r.query)).toEqual([{ startIndex: '1', count: '1' }]);
  });

  it('validate() rejects bad settings with ParameterError', () => {
    const bad: [ResolverSettings, RegExp][] = [
      [{ Authserver: '' }, /Missing parameter: 'Authserver'/],
      [{ Authserver: 'ftp://x' }, /Authserver must be an http or https URL/],
      [{ Resourceserver: 'not a url' }, /Resourceserver must be an http or https URL/],
      [{ Resourceserver: 'http://x/scim?x=1' }, /without query or fragment/],
      [{ Client: '' }, /Missing parameter: 'Client'/],
      [{ Mapping: '{not json' }, /Mapping must be valid JSON/],
      [{ Mapping: '["userName"]' }, /Mapping must be a JSON object/],
      [{ Mapping: '{"userid": ""}' }, /'userid' cannot be empty/],
      [{ Mapping: '{"email": "emails[bad"}' }, /'email': 'emails\[bad' is not a SCIM attribute path/],
      [{ Mapping: '{"email": "emails[type eq work].value"}' }, /invalid selector/],
      [{ Mapping: '{"email": "emails..value"}' }, /not a SCIM attribute path/],
      [{ TIMEOUT: '0' }, /TIMEOUT must be a whole number from 1/],
      [{ CACHE_TIMEOUT: 'soon' }, /CACHE_TIMEOUT must be a whole number/],
    ];
    for (const [extra, message] of bad) {
      expect(() => scimResolver.validate!(settings(extra), files), JSON.stringify(extra)).toThrow(
        ParameterError,
      );
      expect(() => scimResolver.validate!(settings(extra), files)).toThrow(message);
    }
    expect(() =>
      scimResolver.validate!(
        settings({ Mapping: '{"x": "name.givenName", "y": "emails[ type = \'work\' ].value"}' }),
        files,
      ),
    ).not.toThrow();
  });

  it('declares the capitalised settings with the lower-case spellings as aliases', () => {
    expect(scimResolver.type).toBe('scimresolver');
    expect(Object.keys(scimResolver.settings)).toEqual([
      'Authserver',
      'Resourceserver',
      'Client',
      'Secret',
      'Mapping',
      'TIMEOUT',
      'CACHE_TIMEOUT',
    ]);
    expect(scimResolver.settings.Secret).toMatchObject({ type: 'password', aliases: ['authsecret'] });
    expect(scimResolver.settings.Client!.aliases).toEqual(['authclient']);
    expect(JSON.parse(scimResolver.settings.Mapping!.default!)).toMatchObject({
      username: 'userName',
      userid: 'id',
    });
  });
});
