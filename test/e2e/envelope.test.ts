import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, ParameterError, PolicyError, ResourceNotFoundError } from '../../src/errors.ts';
import { errorEnvelope, INTERNAL_ERROR_TEXT, successEnvelope } from '../../src/http/envelope.ts';
import { testDialects } from '../helpers/dialects.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { checkSignedBody, opensslVerify } from '../helpers/signature.ts';

interface RawResponse {
  status: number;
  text: string;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
  json: any;
}

async function request(
  s: TestServer,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: RequestInit['body'] } = {},
): Promise<RawResponse> {
  const res = await fetch(s.url + path, {
    method,
    headers: init.headers,
    body: init.body,
    ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, headers: res.headers, json };
}

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };

describe.each(testDialects())('envelope over HTTP on %s', (dialect) => {
  let s: TestServer;
  let token: string;
  let pub: string;
  beforeAll(async () => {
    s = await startTestServer({ dialect });
    token = await s.adminToken();
    pub = join(s.dataDir, 'signing.pub');
  });
  afterAll(async () => s?.close());

  const auth = () => ({ Authorization: token });

  describe('errors', () => {
    it('answers a service-level error with HTTP 200, status false and ERR<code>', async () => {
      const r = await request(s, 'GET', '/system/random?len=abc', { headers: auth() });
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.json.id).toBe(1);
      expect(r.json.jsonrpc).toBe('2.0');
      expect(r.json.detail).toBeNull();
      expect(r.json.result.status).toBe(false);
      expect(r.json.result).not.toHaveProperty('value');
      expect(r.json.result.error.code).toBe(905);
      expect(r.json.result.error.message).toMatch(/^ERR905: /);
      expect(r.json).not.toHaveProperty('versionnumber');
      expect(typeof r.json.time).toBe('number');
      expect(r.json.signature).toMatch(/^rsa_sha256_pss:[0-9a-f]+$/);
    });

    it('answers "not found" of a service with HTTP 200 and ERR601, not 404', async () => {
      const r = await request(s, 'DELETE', '/system/no.such.key', { headers: auth() });
      expect(r.status).toBe(200);
      expect(r.json.result.status).toBe(false);
      expect(r.json.result.error.code).toBe(601);
      expect(r.json.result.error.message).toMatch(/^ERR601: /);
      expect(r.json.detail).toBeNull();
    });

    it('answers an unknown route with 404 and the bare {"error": "Not found"}', async () => {
      for (const path of ['/nosuch', '/nosuch/deeper', '/system/random/extra']) {
        const r = await request(s, 'GET', path, { headers: auth() });
        expect({ path, status: r.status }).toEqual({ path, status: 404 });
        expect(r.json).toEqual({ error: 'Not found' });
      }
    });

    it('answers a wrong method on a known route with 405', async () => {
      expect((await request(s, 'DELETE', '/auth', { headers: auth() })).status).toBe(405);
      expect((await request(s, 'PUT', '/system/random', { headers: auth() })).status).toBe(405);
      expect((await request(s, 'POST', '/healthz')).status).toBe(405);
    });

    it('answers a malformed JSON body with a 400 envelope, and keeps serving', async () => {
      const r = await request(s, 'POST', '/auth?nonce=q1', {
        headers: { 'Content-Type': 'application/json' },
        body: '{"username": "admin", "password": ',
      });
      expect(r.status).toBe(400);
      expect(r.json.nonce).toBe('q1');
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.json.result.status).toBe(false);
      expect(r.json.result.error.code).toBe(905);
      expect(r.json.result.error.message).toMatch(/^ERR905: /);
      expect(r.json.detail).toBeNull();
      expect((await checkSignedBody(r.text, pub)).verified).toBe(true);
      const array = await request(s, 'POST', '/auth', {
        headers: { 'Content-Type': 'application/json' },
        body: '["admin"]',
      });
      expect(array.status).toBe(400);
      expect((await request(s, 'GET', '/healthz/livez')).status).toBe(200);
    });

    it('answers a malformed multipart body with a 400 envelope', async () => {
      const r = await request(s, 'POST', '/system/setConfig', {
        headers: { ...auth(), 'Content-Type': 'multipart/form-data; boundary=zzz' },
        body: '--zzz\r\nContent-Disposition: form-data; name="a"\r\n\r\nno closing boundary',
      });
      expect(r.status).toBe(400);
      expect(r.json.result.status).toBe(false);
      expect(r.json.result.error.code).toBe(905);
    });

    it('answers an unexpected failure with 500, code -500 and the generic text, no internals', async () => {
      const real = s.rt.store;
      const broken = new Proxy(
        {},
        {
          get() {
            throw new TypeError('boom at /secret/internal/path');
          },
        },
      );
      s.rt.store = { ...real, db: broken as typeof real.db };
      let r: RawResponse;
      try {
        r = await request(s, 'GET', '/system/', { headers: auth() });
      } finally {
        s.rt.store = real;
      }
      expect(r.status).toBe(500);
      expect(r.json.result).toEqual({ status: false, error: { code: -500, message: INTERNAL_ERROR_TEXT } });
      expect(r.json.detail).toBeNull();
      expect(r.text).not.toContain('boom');
      expect(r.text).not.toContain('TypeError');
      expect((await checkSignedBody(r.text, pub)).verified).toBe(true);
      expect((await request(s, 'GET', '/system/', { headers: auth() })).status).toBe(200);
    });

    it('echoes a nonce of any JSON type without failing', async () => {
      const withObject = await request(s, 'POST', '/auth', {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: s.adminPassword, nonce: { n: [1, 2] } }),
      });
      expect(withObject.status).toBe(200);
      expect(withObject.json.nonce).toEqual({ n: [1, 2] });
      expect((await checkSignedBody(withObject.text, pub)).verified).toBe(true);
    });
  });

  describe('routing', () => {
    it('answers with and without the trailing slash', async () => {
      const a = await request(s, 'GET', '/system/', { headers: auth() });
      const b = await request(s, 'GET', '/system', { headers: auth() });
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
      expect(b.json.result.value).toEqual(a.json.result.value);
      const login = await request(s, 'POST', '/auth/', {
        headers: FORM,
        body: new URLSearchParams({ username: 'admin', password: s.adminPassword }).toString(),
      });
      expect(login.status).toBe(200);
      expect(login.json.result.value.role).toBe('admin');
      expect((await request(s, 'GET', '/healthz/')).status).toBe(200);
      expect((await request(s, 'GET', '/healthz/livez/')).status).toBe(200);
      const rnd = await request(s, 'GET', '/system/random/?len=4', { headers: auth() });
      expect(rnd.json.result.value).toMatch(/^[0-9a-f]{8}$/);
      const audit = await request(s, 'GET', '/audit?page_size=1', { headers: auth() });
      expect(audit.status).toBe(200);
      expect(audit.json.result.status).toBe(true);
    });

    it('serves /healthz with status OK and /healthz/livez', async () => {
      const h = await request(s, 'GET', '/healthz');
      expect(h.status).toBe(200);
      expect(h.json.result.value.status).toBe('OK');
      const l = await request(s, 'GET', '/healthz/livez');
      expect(l.status).toBe(200);
      expect(l.json.result.status).toBe(true);
    });
  });

  describe('parameters end to end', () => {
    const getConfig = async (key: string) =>
      (await request(s, 'GET', `/system/${key}`, { headers: auth() })).json.result.value;

    it('decodes form values twice, except for the privacyIDEA plugins', async () => {
      const r = await request(s, 'POST', '/system/setConfig', {
        headers: { ...auth(), ...FORM },
        body: 'dq1=ab%2541',
      });
      expect(r.json.result.value).toBe(true);
      expect(await getConfig('dq1')).toBe('abA');
      await request(s, 'POST', '/system/setConfig?dq2=ab%2541', { headers: auth() });
      expect(await getConfig('dq2')).toBe('abA');
      await request(s, 'POST', '/system/setConfig', {
        headers: { ...auth(), ...FORM, 'User-Agent': 'privacyIDEA-CP/3.0 Windows/10' },
        body: 'dq3=ab%2541',
      });
      expect(await getConfig('dq3')).toBe('ab%41');
      await request(s, 'POST', '/system/setConfig', {
        headers: { ...auth(), ...FORM, 'User-Agent': 'SimpleSAMLphp/2.0' },
        body: 'dq4=ab%2541&dq5=%zz',
      });
      expect(await getConfig('dq4')).toBe('ab%41');
      expect(await getConfig('dq5')).toBe('%zz');
    });

    it('never decodes JSON values, and JSON wins over the query', async () => {
      await request(s, 'POST', '/system/setConfig?js1=fromquery&js3=onlyquery', {
        headers: { ...auth(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ js1: 'fromjson', js2: 'ab%2541' }),
      });
      expect(await getConfig('js1')).toBe('fromjson');
      expect(await getConfig('js2')).toBe('ab%2541');
      expect(await getConfig('js3')).toBe('onlyquery');
    });

    it('uses an undeclared body that is a JSON object', async () => {
      await request(s, 'POST', '/system/setConfig', {
        headers: { ...auth(), 'Content-Type': 'text/plain' },
        body: JSON.stringify({ und1: 'yes' }),
      });
      expect(await getConfig('und1')).toBe('yes');
    });

    it('merges multipart fields', async () => {
      const form = new FormData();
      form.append('mp1', 'multi');
      form.append('mp2', 'x%2541');
      await request(s, 'POST', '/system/setConfig?mp3=q', { headers: auth(), body: form });
      expect(await getConfig('mp1')).toBe('multi');
      expect(await getConfig('mp2')).toBe('x%41');
      expect(await getConfig('mp3')).toBe('q');
    });

    it('lets path variables win and decodes them a second time', async () => {
      await request(s, 'POST', '/system/setConfig', {
        headers: { ...auth(), ...FORM },
        body: 'PV=path&other=x',
      });
      expect((await request(s, 'GET', '/system/PV?key=other', { headers: auth() })).json.result.value).toBe(
        'path',
      );
      expect((await request(s, 'GET', '/system/%2550V', { headers: auth() })).json.result.value).toBe('path');
    });
  });

  describe('signatures', () => {
    it('signs success and error answers so that python3 + openssl verify them', async () => {
      const answers = [
        await request(s, 'POST', '/auth', {
          headers: FORM,
          body: new URLSearchParams({ username: 'admin', password: s.adminPassword }).toString(),
        }),
        await request(s, 'POST', '/auth', { headers: FORM, body: 'username=admin&password=wrong' }),
        await request(s, 'GET', '/system/random?len=abc', { headers: auth() }),
        await request(s, 'GET', '/system/', { headers: auth() }),
        await request(s, 'GET', '/system/'),
        await request(s, 'GET', '/healthz'),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 401, 200, 200, 401, 200]);
      for (const a of answers) {
        expect(a.json.signature).toMatch(/^rsa_sha256_pss:[0-9a-f]{512}$/);
        const check = await checkSignedBody(a.text, pub);
        expect({ body: a.text.slice(0, 80), ...check }).toMatchObject({
          wireIsPythonDump: true,
          verified: true,
        });
      }
    });

    it('covers non-ASCII text, escaped as Python does', async () => {
      await request(s, 'POST', '/system/setConfig', {
        headers: { ...auth(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ uni: 'é€😀\u007f<>&' }),
      });
      const r = await request(s, 'GET', '/system/uni', { headers: auth() });
      expect(r.text).toContain('"value": "\\u00e9\\u20ac\\ud83d\\ude00\\u007f<>&"');
      expect(r.json.result.value).toBe('é€😀\u007f<>&');
      expect(await checkSignedBody(r.text, pub)).toMatchObject({ wireIsPythonDump: true, verified: true });
    });

    it('fails verification for a tampered body', async () => {
      const r = await request(s, 'GET', '/system/', { headers: auth() });
      const tampered = r.text.replace('"status": true', '"status": false');
      expect(tampered).not.toBe(r.text);
      const check = await checkSignedBody(tampered, pub);
      expect(check.verified).toBe(false);
      expect(check.opensslOutput).not.toContain('Verified OK');
      // and with another key
      const other = join(s.dataDir, 'other.pub');
      writeFileSync(
        other,
        '-----BEGIN PUBLIC KEY-----\nMFwwDQYJKoZIhvcNAQEBBQADSwAwSAJBAMnVWBd+HJ/mzq1Q4YIU9Vd5GgMpUf0t\nHCXvjY2N0kJgkgnIK6L+1I5p6JjMMDkhcsPZTjuwHiyT0bKjgv8Ew1cCAwEAAQ==\n-----END PUBLIC KEY-----\n',
      );
      expect((await checkSignedBody(r.text, other)).verified).toBe(false);
    });

    it('echoes the request nonce inside the signed body', async () => {
      const r = await request(s, 'GET', '/system/?nonce=abc', { headers: auth() });
      expect(r.json.nonce).toBe('abc');
      expect(r.text).toContain('"nonce": "abc"');
      expect(await checkSignedBody(r.text, pub)).toMatchObject({ wireIsPythonDump: true, verified: true });
      // Removing the nonce breaks the signature: it is part of what was signed.
      const stripped = r.text.replace('"nonce": "abc", ', '');
      expect(stripped).not.toBe(r.text);
      expect((await checkSignedBody(stripped, pub)).verified).toBe(false);
      const err = await request(s, 'POST', '/auth', {
        headers: FORM,
        body: 'username=x&password=y&nonce=n%C3%A9',
      });
      expect(err.status).toBe(401);
      expect(err.json.nonce).toBe('né');
      expect((await checkSignedBody(err.text, pub)).verified).toBe(true);
    });

    it('signs with the key whose public half is signing.pub (openssl on raw parts)', async () => {
      const r = await request(s, 'GET', '/healthz/livez');
      const { signature, ...rest } = r.json;
      // Re-serialise with python3 only, as a client would.
      const check = await checkSignedBody(r.text, pub);
      expect(check.verified).toBe(true);
      expect(
        (await opensslVerify(Buffer.from(JSON.stringify(rest)), signature.slice(15), pub)).verified,
      ).toBe(false);
    });
  });

  describe('client address in the audit log', () => {
    it('ignores X-Forwarded-For from an untrusted peer', async () => {
      const ua = `probe-untrusted-${dialect}`;
      await request(s, 'POST', '/auth', {
        headers: { ...FORM, 'X-Forwarded-For': '203.0.113.77', 'User-Agent': `${ua}/1.2` },
        body: 'username=admin&password=wrong',
      });
      const rows = await s.rt.store.db.selectFrom('audit').selectAll().where('user_agent', '=', ua).execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.client).toBe('127.0.0.1');
      expect(rows[0]!.user_agent_version).toBe('1.2');
      expect(rows[0]!.action).toBe('POST /auth');
    });
  });
});

describe.each(testDialects())('server options on %s', (dialect) => {
  it('honours X-Forwarded-For from a trusted proxy', async () => {
    const s = await startTestServer({ dialect, config: { 'http.trusted_proxies': '127.0.0.1, ::1' } });
    try {
      const ua = `probe-trusted-${dialect}`;
      await request(s, 'POST', '/auth', {
        headers: { ...FORM, 'X-Forwarded-For': '198.51.100.1, 203.0.113.77', 'User-Agent': `${ua}/1` },
        body: 'username=admin&password=wrong',
      });
      const rows = await s.rt.store.db.selectFrom('audit').selectAll().where('user_agent', '=', ua).execute();
      expect(rows.map((r) => r.client)).toEqual(['203.0.113.77']);
    } finally {
      await s.close();
    }
  });

  it('sends no signature (and no nonce) when security.sign_responses is false', async () => {
    const s = await startTestServer({ dialect, config: { 'security.sign_responses': 'false' } });
    try {
      const ok = await request(s, 'GET', '/healthz?nonce=abc');
      expect(ok.status).toBe(200);
      expect(ok.json).not.toHaveProperty('signature');
      expect(ok.json).not.toHaveProperty('nonce');
      const bad = await request(s, 'POST', '/auth', { headers: FORM, body: 'username=admin&password=wrong' });
      expect(bad.status).toBe(401);
      expect(bad.json).not.toHaveProperty('signature');
      // Still Python's serialisation on the wire.
      expect(ok.text).toContain('"jsonrpc": "2.0"');
    } finally {
      await s.close();
    }
  });

  it('refuses bodies over http.max_body_bytes with a 413 envelope', async () => {
    const s = await startTestServer({ dialect, config: { 'http.max_body_bytes': '2048' } });
    try {
      const big = `username=admin&password=${'x'.repeat(4000)}`;
      const declared = await request(s, 'POST', '/auth', { headers: FORM, body: big });
      expect(declared.status).toBe(413);
      expect(declared.json.result.status).toBe(false);
      expect(declared.json.result.error.code).toBe(905);
      expect(declared.json.result.error.message).toMatch(/^ERR905: /);
      expect(declared.headers.get('cache-control')).toBe('no-store');
      // Streamed without a length, and still arriving when the limit is passed.
      const chunks = [
        Buffer.from('username=admin&password='),
        Buffer.alloc(1500, 'y'),
        Buffer.alloc(1500, 'z'),
        Buffer.alloc(1500, 'w'),
      ];
      const stream = new ReadableStream({
        async pull(controller) {
          const next = chunks.shift();
          await new Promise((r) => setTimeout(r, 150));
          if (next) controller.enqueue(new Uint8Array(next));
          else controller.close();
        },
      });
      const streamed = await request(s, 'POST', '/auth', { headers: FORM, body: stream });
      expect(streamed.status).toBe(413);
      expect(streamed.json.result.error.code).toBe(905);
      const small = await request(s, 'POST', '/auth', {
        headers: FORM,
        body: new URLSearchParams({ username: 'admin', password: s.adminPassword }).toString(),
      });
      expect(small.status).toBe(200);
    } finally {
      await s.close();
    }
  });
});

describe('envelope builders', () => {
  const now = new Date(1718000000123);

  it('computes result.authentication for id 2 answers', () => {
    const auth = (value: unknown, detail?: Record<string, unknown>) =>
      (successEnvelope({ rid: 2, value, detail }, now).result as { authentication: string }).authentication;
    expect(auth(true)).toBe('ACCEPT');
    expect(auth({ auth: true, token: 'x' })).toBe('ACCEPT');
    expect(auth(false)).toBe('REJECT');
    expect(auth('CHALLENGE')).toBe('CHALLENGE');
    expect(auth(false, { multi_challenge: [{ serial: 'x' }] })).toBe('CHALLENGE');
    expect(auth(false, { multi_challenge: [] })).toBe('REJECT');
    expect(auth(false, { challenge_status: 'declined' })).toBe('DECLINED');
    expect(successEnvelope({ value: true }, now).result).toEqual({ status: true, value: true });
  });

  it('adds threadid to a non-empty detail and omits an empty one', () => {
    const env = successEnvelope({ value: 1, detail: { message: 'm' } }, now);
    expect(env.detail).toEqual({ message: 'm', threadid: expect.any(Number) });
    expect(successEnvelope({ value: 1, detail: {} }, now)).not.toHaveProperty('detail');
    expect(successEnvelope({ value: 1 }, now).time).toBe(1718000000.123);
  });

  it('hides unexpected errors behind the generic 500 text with code -500', () => {
    const env = errorEnvelope(new Error('secret internals at /etc/x'), now);
    expect(env.result).toEqual({ status: false, error: { code: -500, message: INTERNAL_ERROR_TEXT } });
    expect(JSON.stringify(env)).not.toContain('secret internals');
    expect(env.detail).toBeNull();
  });

  it('prefixes ERR<code> except for authentication failures', () => {
    expect((errorEnvelope(new ParameterError('bad'), now).result as { error: unknown }).error).toEqual({
      code: 905,
      message: 'ERR905: bad',
    });
    expect((errorEnvelope(new PolicyError('denied'), now).result as { error: unknown }).error).toEqual({
      code: 303,
      message: 'ERR303: denied',
    });
    expect(
      (errorEnvelope(new ResourceNotFoundError('gone'), now).result as { error: unknown }).error,
    ).toEqual({
      code: 601,
      message: 'ERR601: gone',
    });
    expect((errorEnvelope(new AuthError('no', 4031), now).result as { error: unknown }).error).toEqual({
      code: 4031,
      message: 'no',
    });
  });
});
