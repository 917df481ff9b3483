// The fuzz test of issue 16 ("and keep it so"): fast-check sends random and hostile requests to every
// route of the router (test/helpers/routes.ts reads them from the app, so new routes are fuzzed
// without touching this file) — wrong types, huge and deeply nested values, unicode, NUL bytes,
// path traversal, SQL and LDAP metacharacters, duplicate parameters, malformed JSON, urlencoded and
// multipart bodies, hostile path parameters — as a superuser administrator, a user, unauthenticated
// and with a forged token, and asserts for each: never an HTTP 500 (or anything >= 500 but the
// health probes' 503), an answer within 10 s, the documented envelope (or the documented
// exceptions: privacyIDEA's bare 404, radiuscheck's empty 204/400, downloads), and a database that
// a refused request (HTTP 4xx or result.status false) left unchanged.
//
// On SQLite only, one in-process server: what is fuzzed is the HTTP front end and the services'
// parameter handling, which are the same on every dialect (the dialects' own limits are covered by
// search-filters, input-limits and request-bodies). AUTHSRV_FUZZ_RUNS and AUTHSRV_FUZZ_SEED replay
// or lengthen a run; the seed is printed at the start and in a failure's message, with the request.
// What is covered and why is in docs/security.md, "Fuzz and secrets tests".
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Context, localOperator, withCaller } from '../../src/core/context.ts';
import { passwdRealm, pwUser } from '../helpers/realms.ts';
import { type ApiRoute, apiRoutes } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { ed25519PublicKey } from '../helpers/ssh-keys.ts';
import { deleteAllPolicies } from '../helpers/token-fixture.ts';
import { ok, userToken } from '../helpers/user-stores.ts';

const RUNS = Number(process.env.AUTHSRV_FUZZ_RUNS ?? 3000);
const SEED = Number(process.env.AUTHSRV_FUZZ_SEED ?? Date.now() % 2 ** 31);
const TIMEOUT_MS = 10_000;

// --- the values -------------------------------------------------------------------------------

/** Names the handlers read (a hand list: parameter names are not declared anywhere to read them from). */
const NAMES = [
  'serial',
  'type',
  'otpkey',
  'genkey',
  'pin',
  'user',
  'realm',
  'resolver',
  'pass',
  'username',
  'password',
  'description',
  'key',
  'value',
  'Filename',
  'fileName',
  'LDAPURI',
  'BINDDN',
  'BINDPW',
  'Driver',
  'Server',
  'Database',
  'Password',
  'Table',
  'Map',
  'Editable',
  'module',
  'option.URL',
  'option.PASSWORD',
  'option.HTTP_METHOD',
  'option.script',
  'header.Authorization',
  'gwid',
  'identifier',
  'scope',
  'action',
  'name',
  'active',
  'adminrealm',
  'adminuser',
  'client',
  'page',
  'pagesize',
  'sortby',
  'sortdir',
  'count',
  'window',
  'otp1',
  'otp2',
  'transaction_id',
  'nonce',
  'resolvers',
  'priority.fuzzres',
  'otplen',
  'hashlib',
  'timeStep',
  'tokenrealms',
  'rollout_state',
  'assigned',
  'infokey',
  'infovalue',
  'attrkey',
  'attrvalue',
  'email',
  'mobile',
  'givenname',
  'surname',
  'userid',
  'groups',
  'groupname',
  'file',
  'psk',
  'format',
  'len',
  'hsm_password',
  'exception',
  'validity_period_start',
  'validity_period_end',
  'count_window',
  'sync_window',
  'max_failcount',
  'tokenkind',
  'conditions',
  'check_all_resolvers',
  'time',
  'priority',
  'pinode',
  'type.BINDPW',
  'otppin',
  '2stepinit',
  'otpvalue',
  'challenge',
  'state',
  'question',
  'answer',
  'sshkey',
  'yubikey',
  'from',
  'to',
  'date',
  'success',
  'outform',
  'hide_specific_error_message',
  'filename',
  'hostname',
  'ip',
  'id',
  'any',
  'HOSTNAMEATTRIBUTE',
  'IPATTRIBUTE',
  'IDATTRIBUTE',
  'SEARCHFILTER',
  'machineid',
  'resolver',
  'application',
  'mtid',
  'service_id',
  'refilltoken',
  'rounds',
  '__proto__',
  'constructor',
];

/** The public key of the sshkey token FUZZ3, attached to fuzzhost for ssh. */
const FUZZ_SSHKEY = ed25519PublicKey('fuzz');

/** Values that mean something to a handler, so that requests get past the first check. */
const MEANINGFUL = [
  'FUZZ1',
  'FUZZ2',
  'fuzzrealm',
  'fuzzres',
  'fuzzpol',
  'fuzzgroup',
  'fuzzuser',
  'fuzzuserpw',
  'admin',
  'hotp',
  'totp',
  'spass',
  'pw',
  'paper',
  'tan',
  'motp',
  'daypassword',
  'indexedsecret',
  'question',
  'sshkey',
  'yubikey',
  'applspec',
  'registration',
  '4eyes',
  'passwdresolver',
  'sqlresolver',
  'ldapresolver',
  'scimresolver',
  'hosts',
  'ldap',
  'fuzzmres',
  'fuzzservice',
  'fuzzgw',
  'http',
  'script',
  'privacyidea.lib.smsprovider.HttpSMSProvider.HttpSMSProvider',
  'FUZZ3',
  FUZZ_SSHKEY,
  'ssh',
  'offline',
  'fuzzhost',
  '10.0.0.1',
  'authentication',
  'enrollment',
  'user',
  'webui',
  'policy',
  '1',
  '0',
  '-1',
  'true',
  'True',
  'false',
  '3132333435363738393031323334353637383930',
  '123456',
  'sha256',
  'csv',
  'json',
  'asc',
  'desc',
  '*',
  '',
];

const HOSTILE = [
  '../../etc/passwd',
  '..%2f..%2fetc%2fpasswd',
  '/etc/shadow',
  '/proc/self/environ',
  '/dev/zero',
  '/',
  '.',
  '..',
  "' OR 1=1 --",
  "'; DROP TABLE token; --",
  '" OR ""="',
  '1; SELECT pg_sleep(30)',
  '*)(uid=*',
  '*)(|(objectClass=*))',
  '(&)',
  '\\2a',
  '*',
  '%',
  '_',
  '!',
  '\\',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff\ud800',
  '𝕏😀',
  'Ää߀',
  '\u202e',
  '\r\nX-Injected: 1',
  '<script>alert(1)</script>',
  '$' + '{7*7}', // a template injection (split so that it is no template literal here)
  '{{7*7}}',
  '__CENSORED__',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '1e309',
  '-0',
  '0x1F',
  '9999999999999999999999',
  ' ',
  '\t',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '$where',
  '{"$gt":""}',
  '[]',
  '{}',
  'a'.repeat(1025),
  'b'.repeat(4097),
  'c'.repeat(70_000),
];

const text = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...MEANINGFUL) },
  { weight: 6, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('x', '\u0000', 'é', '*', '%'), fc.integer({ min: 1000, max: 1_100_000 }))
      .map(([c, n]) => c.repeat(n)),
  },
);

/** Nested n levels, under and over the 32-level limit of a JSON body. */
const deep = fc
  .tuple(fc.integer({ min: 1, max: 40 }), fc.boolean())
  .map(([n, arrays]) =>
    JSON.parse(arrays ? `${'['.repeat(n)}1${']'.repeat(n)}` : `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
  );

const jsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: text },
  { weight: 1, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double() },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(text, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom(...NAMES), text, { maxKeys: 3 }) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

const paramName = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.constantFrom(...HOSTILE) },
);

/**
 * A request most handlers would accept (the fixtures' names, a valid seed and PIN), so that a
 * hostile value put among them gets past the first check and reaches deeper.
 */
const PLAUSIBLE: Record<string, string> = {
  serial: 'FUZZ1',
  type: 'hotp',
  user: 'fuzzuser',
  realm: 'fuzzrealm',
  resolver: 'fuzzres',
  otpkey: '3132333435363738393031323334353637383930',
  pin: '1234',
  otppin: '1234',
  pass: '1234755224',
  username: 'fuzzuser',
  password: 'fuzzuserpw',
  key: 'fuzzkey',
  value: 'fuzzvalue',
  scope: 'enrollment',
  action: 'max_token_per_user=5',
  name: 'fuzzpol',
  description: 'fuzz',
  realms: 'fuzzrealm',
  resolvers: 'fuzzres',
  groups: 'fuzzgroup',
  otp1: '755224',
  otp2: '287082',
  transaction_id: '01234567890123456789',
  Filename: '/etc/passwd',
};

/** Name/value pairs; a name may come again (duplicate parameters). */
const pairs = fc.oneof(
  fc.array(fc.tuple(paramName, jsonValue), { maxLength: 8 }),
  // Some of a plausible request, then one or two hostile values (a repeated name overrides it).
  fc
    .tuple(
      fc.subarray(Object.entries(PLAUSIBLE)),
      fc.array(fc.tuple(fc.constantFrom(...Object.keys(PLAUSIBLE)), jsonValue), {
        minLength: 1,
        maxLength: 2,
      }),
    )
    .map(([plausible, hostile]) => [...plausible, ...hostile] as [string, unknown][]),
);

const MALFORMED_JSON = [
  '{',
  '{"serial":',
  '[1,2',
  '{"a":1,}',
  "{'a':1}",
  'nul',
  '\u0000',
  '{"a":"\\ud800"}',
  '1',
  '"text"',
  '[]',
  'null',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"a":1,"a":2}',
  '\ufeff{"a":1}',
  '{"a":1e999}',
  '{"a":-0}',
  `{"a":"${'\\u0000'.repeat(10)}"}`,
];

const MALFORMED_MULTIPART = [
  ['multipart/form-data', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--'],
  ['multipart/form-data; boundary=x', 'no parts at all'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="serial"\r\n\r\nFUZZ1'],
  ['multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data\r\n\r\nv\r\n--x--\r\n'],
  [
    'multipart/form-data; boundary=x',
    '--x\r\nContent-Disposition: form-data; name="file"; filename="../../etc/passwd"\r\nContent-Type: text/xml\r\n\r\n<KeyContainer\r\n--x--\r\n',
  ],
  ['multipart/form-data; boundary=', '----\r\n\r\n'],
  [
    'multipart/form-data; boundary=x',
    `--x\r\nContent-Disposition: form-data; name="${'n'.repeat(5000)}"\r\n\r\nv\r\n--x--\r\n`,
  ],
  ['multipart/mixed; boundary=x', '--x\r\n\r\n--x--\r\n'],
] as const;

/** Uploads (token import, policy import): hostile XML, CSV and policy files. */
const HOSTILE_FILES = [
  '<KeyContainer xmlns="urn:ietf:params:xml:ns:keyprov:pskc"><KeyPackage/></KeyContainer>',
  // XXE and entity expansion ("billion laughs")
  '<?xml version="1.0"?><!DOCTYPE k [<!ENTITY x SYSTEM "file:///etc/passwd">]><KeyContainer><KeyPackage><DeviceInfo><SerialNo>&x;</SerialNo></DeviceInfo></KeyPackage></KeyContainer>',
  `<?xml version="1.0"?><!DOCTYPE k [<!ENTITY a "${'x'.repeat(100)}">${Array.from({ length: 9 }, (_, i) => `<!ENTITY ${String.fromCharCode(98 + i)} "${`&${String.fromCharCode(97 + i)};`.repeat(10)}">`).join('')}]><KeyContainer><KeyPackage><DeviceInfo><SerialNo>&j;</SerialNo></DeviceInfo></KeyPackage></KeyContainer>`,
  `<KeyContainer>${'<a>'.repeat(20_000)}${'</a>'.repeat(20_000)}</KeyContainer>`,
  `<KeyContainer>${'<KeyPackage><Key Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:hotp"><Data><Secret><PlainValue>MTIz</PlainValue></Secret></Data></Key></KeyPackage>'.repeat(2000)}</KeyContainer>`,
  '<KeyContainer><KeyPackage><Key Algorithm="urn:ietf:params:xml:ns:keyprov:pskc:hotp"><Data><Secret><PlainValue>!!notbase64</PlainValue></Secret><Counter><PlainValue>-1e309</PlainValue></Counter></Data></Key></KeyPackage></KeyContainer>',
  // OATH CSV: hostile fields, too many and too few columns, a huge counter
  "FUZZCSV1, 3132333435363738393031323334353637383930, hotp, 6, 99999999999999999999999\n' OR 1=1 --, zz, totp, 7, -1, x, y, z\n,,,,\n",
  `${'S,3132,hotp\n'.repeat(5000)}`,
  'alice, ../../etc/passwd, *)(uid=*, FUZZCSV2, 3132, hotp, 6\n',
  // policy files (privacyIDEA's export: `[name]` sections of Python literals) and other text
  "[p1]\nscope = enrollment\naction = {'max_token_per_user': 3}\nrealm = ['fuzzrealm']\nactive = True\n",
  "[p2]\nscope = authentication\naction = {'otppin': 'userstore'}\nuser = ['(((((a+)+)+)+)+$']\n",
  `[p3]\nscope = enrollment\naction = ${'['.repeat(5000)}${']'.repeat(5000)}\n`,
  `[p4]\nscope = enrollment\naction = {${"'a': {".repeat(3000)}${'}'.repeat(3000)}}\n`,
  "[p5]\nscope = enrollment\naction = {'__proto__': {'x': True}}\nconditions = [('userinfo', 'email', 'matches', '(', True)]\n",
  "[p6]\nscope = enrollment\naction = __import__('os').system('id')\n",
  "[p7]\nscope = enrollment\naction = {'a': 1e999, 'b': -0x10, 'c': b'x', 'd': u'\\u0000'}\n",
  `[${'n'.repeat(10_000)}]\nscope = enrollment\n`,
  '[]\n=\n[p8]\nscope\n',
  `${'[p]\nscope = enrollment\n'.repeat(2000)}`,
  '{"p": {"scope": "admin", "action": {"__proto__": {"x": 1}}, "active": "True"}}',
];

type Body =
  | { kind: 'query' }
  | { kind: 'form' }
  | { kind: 'json' }
  | { kind: 'raw'; contentType: string; body: string }
  | { kind: 'multipart'; file: string | undefined };

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'query' } as const) },
  { weight: 3, arbitrary: fc.constant({ kind: 'form' } as const) },
  { weight: 3, arbitrary: fc.constant({ kind: 'json' } as const) },
  {
    weight: 1,
    arbitrary: fc
      .oneof(fc.constantFrom(...MALFORMED_JSON), fc.string({ unit: 'binary', maxLength: 30 }))
      .map((b) => ({ kind: 'raw', contentType: 'application/json', body: b }) as const),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(...MALFORMED_MULTIPART)
      .map(([contentType, b]) => ({ kind: 'raw', contentType, body: b }) as const),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(
          'application/x-www-form-urlencoded',
          'text/plain',
          'application/xml',
          'application/octet-stream',
          '',
        ),
        fc.oneof(
          fc.constantFrom('a=%zz&b=%', '=&=&&', '%00=%00', 'serial=FUZZ1&serial=FUZZ2', '\u0000'),
          fc.string({ unit: 'binary', maxLength: 30 }),
        ),
      )
      .map(([contentType, b]) => ({ kind: 'raw', contentType, body: b }) as const),
  },
  {
    weight: 2,
    arbitrary: fc
      .option(fc.oneof(text, fc.constantFrom(...HOSTILE_FILES)))
      .map((file) => ({ kind: 'multipart', file: file ?? undefined }) as const),
  },
);

/** A path parameter: an existing object's name, or a hostile value sent encoded or as it is. */
const pathValue = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...MEANINGFUL).map((v) => ({ v, raw: false })) },
  { weight: 3, arbitrary: text.map((v) => ({ v: v.slice(0, 5000), raw: false })) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        '..%2f..%2fetc%2fpasswd',
        '%00',
        '%',
        '%zz',
        '%E0%A4%A',
        '%C0%AE%C0%AE',
        '..',
        '.',
        '%2e%2e',
        ';x=1',
      )
      .map((v) => ({ v, raw: true })),
  },
);

/** A header value as fetch can send it: tab and Latin-1 from space on (no NUL, CR or LF). */
const headerSafe = (v: string) => v.replace(/[^\t\u0020-\u00ff]/g, '?');

const headerValue = fc.oneof(
  fc.constantFrom(
    'unknown',
    '127.0.0.1',
    '::1',
    '203.0.113.5, 10.0.0.1',
    '[2001:db8::5]:443',
    '999.999.999.999',
    ', , ,',
    'privacyidea-cp/2.0',
    'PAM',
    'simpleSAMLphp/1.0 (x) (y',
    'text/csv',
    '*/*',
    'Bearer x',
    'x'.repeat(8000),
    `${'1.2.3.4, '.repeat(1500)}1.2.3.4`,
  ),
  text.map((t) => headerSafe(t.slice(0, 4000))),
);

/** Headers the server reads, sometimes given; Content-Type and Authorization come from the case. */
const extraHeaders = fc.dictionary(
  fc.constantFrom('User-Agent', 'X-Forwarded-For', 'PI-Authorization', 'Accept', 'Accept-Language', 'Origin'),
  headerValue,
  { maxKeys: 3 },
);

/** Mostly the superuser administrator, so that requests reach the handlers; also a user and outsiders. */
const auth = fc.oneof(
  { weight: 12, arbitrary: fc.constant('admin') },
  { weight: 3, arbitrary: fc.constant('user') },
  { weight: 2, arbitrary: fc.constantFrom('none', 'forged', 'garbage') },
);

interface Case {
  route: number;
  pathValues: { v: string; raw: boolean }[];
  pairs: [string, unknown][];
  /** A second value for the first parameter (a duplicate parameter), if any. */
  duplicate: unknown;
  /** For the upload routes (a `:filename`): a hostile file, sent as multipart with its type. */
  upload: { file: string; type: string } | undefined;
  /** Now and then another method than the route's (OPTIONS, HEAD, one the path does not have). */
  method: string | undefined;
  /** Request headers the server reads (User-Agent, X-Forwarded-For, PI-Authorization …), hostile. */
  headers: Record<string, string>;
  body: Body;
  auth: string;
}

// --- the requests -----------------------------------------------------------------------------

/** A query-string or urlencoded value; non-strings as their JSON text (what a client might send). */
const formText = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

function formEncode(list: [string, unknown][]): string {
  return list
    .map(
      ([k, v]) => `${encodeURIComponent(toWellFormed(k))}=${encodeURIComponent(toWellFormed(formText(v)))}`,
    )
    .join('&');
}

/** encodeURIComponent refuses lone surrogates; a client's encoder would replace them likewise. */
const toWellFormed = (s: string) => s.toWellFormed();

interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | FormData | undefined;
}

function request(s: TestServer, tokens: Record<string, string>, route: ApiRoute, c: Case): Sent {
  const first = c.pairs[0];
  const pairs: [string, unknown][] =
    first && c.duplicate !== undefined ? [...c.pairs, [first[0], c.duplicate]] : c.pairs;
  let path = route.path;
  route.params.forEach((name, i) => {
    const { v, raw } = c.pathValues[i] ?? { v: 'x', raw: false };
    path = path.replace(`:${name}`, raw ? v : encodeURIComponent(toWellFormed(v)));
  });
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (tokens[c.auth]) headers.Authorization = tokens[c.auth]!;
  Object.assign(headers, c.headers);
  const method = c.method ?? route.method;
  const sent: Sent = { method, url: s.url + path, headers, body: undefined };
  if (c.upload && route.params.includes('filename') && method === 'POST') {
    const form = new FormData();
    for (const [k, v] of [...pairs, ['type', c.upload.type] as const])
      form.append(toWellFormed(k), toWellFormed(formText(v)));
    form.append('file', new Blob([toWellFormed(c.upload.file)]), 'upload');
    sent.body = form;
    return sent;
  }
  // fetch sends no body with GET: those parameters go in the query string.
  const kind = method === 'GET' || method === 'HEAD' ? 'query' : c.body.kind;
  if (kind === 'query') {
    const q = formEncode(pairs);
    if (q) sent.url += `?${q}`;
  } else if (kind === 'form') {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    sent.body = formEncode(pairs);
  } else if (kind === 'json') {
    headers['Content-Type'] = 'application/json';
    // Duplicate keys in the JSON text itself (JSON.stringify of an object cannot repeat them).
    sent.body = `{${pairs.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}`).join(',')}}`;
  } else if (c.body.kind === 'raw') {
    if (c.body.contentType) headers['Content-Type'] = c.body.contentType;
    sent.body = c.body.body;
  } else if (c.body.kind === 'multipart') {
    const form = new FormData();
    for (const [k, v] of pairs) form.append(toWellFormed(k), toWellFormed(formText(v)));
    if (c.body.file !== undefined) form.append('file', new Blob([toWellFormed(c.body.file)]), 'tokens.xml');
    sent.body = form;
  }
  return sent;
}

// --- the checks -------------------------------------------------------------------------------

/** The documented envelope (reference 1.1, spec "Common response envelope"). */
function checkEnvelope(json: Record<string, unknown>): void {
  expect(Number.isInteger(json.id)).toBe(true);
  expect(json.jsonrpc).toBe('2.0');
  expect(typeof json.version).toBe('string');
  if ('time' in json) expect(typeof json.time).toBe('number');
  if ('signature' in json) expect(typeof json.signature).toBe('string');
  if ('detail' in json) expect(json.detail === null || typeof json.detail === 'object').toBe(true);
  const result = json.result as Record<string, unknown>;
  expect(typeof result.status).toBe('boolean');
  if (result.status) expect('value' in result).toBe(true);
  else {
    const error = result.error as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
  }
}

/** Checks the answer's shape; true when the request was refused (and so must have changed nothing). */
function checkAnswer(method: string, route: ApiRoute, status: number, type: string, text: string): boolean {
  expect(status).toBeGreaterThanOrEqual(200);
  // The health probes answer 503 when the node is not ready: the only status >= 500 allowed.
  if (status >= 500) expect([route.path.startsWith('/healthz') ? 503 : -1]).toContain(status);
  if (route.path === '/validate/radiuscheck' && (status === 204 || (status === 400 && text === ''))) {
    expect(text).toBe('');
    return false; // 400 with an empty body is a rejected authentication, not a refused request
  }
  // No body to look at: HEAD (a GET without its body), and the router's answer to OPTIONS.
  if (method === 'HEAD' || (method === 'OPTIONS' && text === '')) return status >= 400;
  if (!type.startsWith('application/json')) {
    // Node's own refusal of a request it cannot read (a URL or headers over 16 KiB): empty, no envelope.
    if (status === 400 || status === 431) {
      expect(text).toBe('');
      return true;
    }
    // Koa's 405 for a method the path does not have (a `..` segment can lead to another path).
    if (status === 405) return true;
    // Downloads: the audit CSV, a policy export, the documentation.
    expect(status).toBe(200);
    return false;
  }
  const json = JSON.parse(text) as Record<string, unknown>;
  if (status === 404 && !('result' in json)) {
    expect(json).toEqual({ error: 'Not found' });
    return true;
  }
  checkEnvelope(json);
  return status >= 400 || (json.result as { status: boolean }).status === false;
}

// --- the database -----------------------------------------------------------------------------

/**
 * Every table's rows, except what legitimately changes with a refused request: `audit` (every
 * request writes its row, refusals included), `clients` (the validate endpoints record the client
 * application whatever the outcome, as privacyIDEA does), `node` (its `last_seen` heartbeat) and
 * the audit id counter in `meta` (moved by every audit batch). The change counters in `meta` stay
 * in: a refused request must not move them either.
 */
const SKIPPED_TABLES = new Set(['audit', 'clients', 'node']);

async function snapshot(s: TestServer): Promise<string> {
  const db = s.rt.store.db;
  const tables = (await db.introspection.getTables())
    .map((t) => t.name)
    .filter((n) => !SKIPPED_TABLES.has(n));
  const out: Record<string, unknown[]> = {};
  for (const table of tables.sort()) {
    // biome-ignore lint/suspicious/noExplicitAny: every table, read by name
    const rows = await (db as any).selectFrom(table).selectAll().execute();
    const kept = table === 'meta' ? rows.filter((r: { name: string }) => !/audit/i.test(r.name)) : rows;
    out[table] = kept.map((r: Record<string, unknown>) => JSON.stringify(r)).sort();
  }
  return JSON.stringify(out);
}

// --- the test ---------------------------------------------------------------------------------

describe('fuzzing every route (sqlite)', () => {
  let s: TestServer;
  let op: Context;
  let routes: ApiRoute[];
  const tokens: Record<string, string> = {};

  /**
   * The objects the fuzzer aims at (the path values of MEANINGFUL), made again when it removed
   * them: a realm with a user (and that user's JWT, which stands only while the realm does), two
   * tokens, a token group, a configuration entry.
   */
  async function fixtures(): Promise<void> {
    const admin = tokens.admin!;
    const realm = await s.call('GET', '/realm/', {}, admin);
    if (!realm.json?.result?.value?.fuzzrealm) {
      await passwdRealm(s, admin, 'fuzzrealm', [pwUser('fuzzuser', 1000)], 'fuzzres');
      ok(await s.call('POST', '/defaultrealm/fuzzrealm', {}, admin));
      tokens.user = await userToken(s, 'fuzzuser', 'fuzzuserpw', 'fuzzrealm');
    }
    await s.call(
      'POST',
      '/token/init',
      {
        type: 'hotp',
        serial: 'FUZZ1',
        otpkey: '3132333435363738393031323334353637383930',
        user: 'fuzzuser',
        realm: 'fuzzrealm',
        pin: '1234',
      },
      admin,
    );
    await s.call('POST', '/token/init', { type: 'spass', serial: 'FUZZ2', pin: 'x' }, admin);
    await s.call('POST', '/tokengroup/fuzzgroup', { description: 'fuzz' }, admin);
    await s.call('POST', '/serviceid/fuzzservice', { description: 'fuzz' }, admin);
    const gateway = {
      name: 'fuzzgw',
      module: 'http',
      'option.URL': 'http://127.0.0.1:1/sms',
      'option.HTTP_METHOD': 'GET',
      'option.CHECK_SSL': 'yes',
      'option.SEND_DATA_AS_JSON': 'no',
      'option.PASSWORD': 'fuzzpw',
    };
    await s.call('POST', '/smsgateway', gateway, admin);
    const hosts = join(s.dataDir, 'hosts');
    writeFileSync(hosts, '10.0.0.1 fuzzhost fuzzhost.lab\n');
    await s.call('POST', '/machineresolver/fuzzmres', { type: 'hosts', filename: hosts }, admin);
    await s.call('POST', '/token/init', { type: 'sshkey', serial: 'FUZZ3', sshkey: FUZZ_SSHKEY }, admin);
    const attached = await s.call('GET', '/machine/token', { serial: 'FUZZ3' }, admin);
    if ((attached.json?.result?.value ?? []).length === 0) {
      const attach = { serial: 'FUZZ3', application: 'ssh', hostname: 'fuzzhost', user: 'fuzzuser' };
      await s.call('POST', '/machine/token', attach, admin);
    }
    // FUZZ1 attached for offline: a check with its OTP hands out values, a refill can be tried.
    const offline = await s.call('GET', '/machine/token', { serial: 'FUZZ1', application: 'offline' }, admin);
    if ((offline.json?.result?.value ?? []).length === 0) {
      const attach = { serial: 'FUZZ1', application: 'offline', count: '3', rounds: '10' };
      await s.call('POST', '/machine/token', attach, admin);
    }
    await s.call('POST', '/system/setConfig', { fuzzkey: 'fuzzvalue' }, admin);
  }

  beforeAll(async () => {
    // Behind a trusted proxy (this host), so that X-Forwarded-For is read and fuzzed too.
    s = await startTestServer({
      config: { 'security.sign_responses': 'false', 'http.trusted_proxies': '127.0.0.1, ::1' },
    });
    op = withCaller(s.rt, localOperator());
    tokens.admin = await s.adminToken();
    tokens.forged = `${tokens.admin.slice(0, -6)}AAAAAA`;
    tokens.garbage = "Bearer ' OR 1=1 --";
    await fixtures();
    routes = apiRoutes(s.rt);
  });
  afterAll(async () => s?.close());

  it(
    'answers every hostile request with the envelope, never a 500 or a hang, and refusals change nothing',
    async () => {
      expect(routes.length).toBeGreaterThan(100);
      let cases = 0;
      const perRoute = new Map<string, number>();
      const statuses = new Map<number, number>();
      const outcomes = { refused: 0, answered: 0 };
      // Uploads (token and policy import) are where files are parsed: they get a share of their own.
      const uploads = routes.flatMap((r, i) => (r.params.includes('filename') ? [i] : []));
      expect(uploads.length).toBeGreaterThanOrEqual(2);
      const caseArb: fc.Arbitrary<Case> = fc.record({
        route: fc.oneof(
          { weight: 12, arbitrary: fc.nat({ max: routes.length - 1 }) },
          { weight: 1, arbitrary: fc.constantFrom(...uploads) },
        ),
        pathValues: fc.array(pathValue, { minLength: 3, maxLength: 3 }),
        pairs,
        duplicate: fc.option(jsonValue, { nil: undefined, freq: 2 }), // half the cases
        headers: fc.oneof({ weight: 2, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extraHeaders }),
        method: fc.oneof(
          { weight: 9, arbitrary: fc.constant(undefined) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('OPTIONS', 'HEAD', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
          },
        ),
        upload: fc.option(
          fc.record({
            file: fc.oneof(fc.constantFrom(...HOSTILE_FILES), text),
            type: fc.constantFrom(
              'pskc',
              'pskc',
              'oathcsv',
              'oathcsv',
              'aladdin-xml',
              'aladdin-xml',
              'yubikeycsv',
              'x',
              '',
            ),
          }),
          { nil: undefined, freq: 4 }, // three cases in four (used on the upload routes only)
        ),
        body,
        auth,
      });
      console.log(`fuzz: seed ${SEED}, ${RUNS} runs over ${routes.length} routes`);
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const route = routes[c.route]!;
          const sent = request(s, tokens, route, c);
          const before = await snapshot(s);
          const sentBody =
            sent.body instanceof FormData ? JSON.stringify([...sent.body.entries()]) : sent.body;
          const described =
            `${sent.method} ${sent.url.slice(0, 300)} as ${c.auth} ${sent.headers['Content-Type'] ?? ''} ` +
            `${String(sentBody ?? '').slice(0, 500)} headers ${JSON.stringify(c.headers).slice(0, 300)}`;
          let res: Response;
          let answer: string;
          try {
            // A hang is a failure: no answer within TIMEOUT_MS.
            const signal = AbortSignal.timeout(TIMEOUT_MS);
            res = await fetch(sent.url, {
              method: sent.method,
              headers: sent.headers,
              body: sent.body,
              signal,
            });
            answer = await res.text();
          } catch (e) {
            throw new Error(`${described}: ${(e as Error).message}`);
          }
          const where = `${described} -> ${res.status} ${answer.slice(0, 300)}`;
          let refused: boolean;
          try {
            refused = checkAnswer(
              sent.method,
              route,
              res.status,
              res.headers.get('content-type') ?? '',
              answer,
            );
          } catch (e) {
            throw new Error(`${where}: ${(e as Error).message}`);
          }
          if (refused)
            expect(await snapshot(s), `a refused request changed the database: ${where}`).toBe(before);
          cases++;
          outcomes[refused ? 'refused' : 'answered']++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const key = `${route.method} ${route.path}`;
          perRoute.set(key, (perRoute.get(key) ?? 0) + 1);
          // What the fuzzer changed may lock it out (an admin policy) or remove the objects it aims
          // at: every 100 cases the policies go and the fixtures come back.
          if (cases % 100 === 0) {
            await deleteAllPolicies(op);
            await fixtures();
          }
        }),
        {
          numRuns: RUNS,
          seed: SEED,
          endOnFailure: true,
          // The failing request is in the error (cut short); the whole case would be megabytes.
          asyncReporter: async (run) => {
            if (!run.failed) return;
            const cause =
              run.errorInstance instanceof Error ? run.errorInstance.message : String(run.errorInstance);
            throw new Error(
              `fuzz case failed (replay: AUTHSRV_FUZZ_SEED=${run.seed}, path ${run.counterexamplePath}): ${cause.slice(0, 2000)}`,
            );
          },
        },
      );
      const byStatus = [...statuses].sort(([a], [b]) => a - b).map(([k, n]) => `${k}: ${n}`);
      console.log(
        `fuzz: ${cases} cases fuzzed on ${perRoute.size} of ${routes.length} routes (seed ${SEED}); ` +
          `${outcomes.refused} refused, ${outcomes.answered} answered; HTTP ${byStatus.join(', ')}`,
      );
      expect(cases).toBe(RUNS);
      expect(perRoute.size).toBe(routes.length);
    },
    60_000 + RUNS * 40,
  ); // about 12 ms a case on a busy machine; the limit is for a stuck run only
});
