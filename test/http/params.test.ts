import type { IncomingMessage } from 'node:http';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ParameterError, RequestBodyError } from '../../src/errors.ts';
import { needsSecondUnquote, Params, parseParams, readBody, withPathParams } from '../../src/http/params.ts';

const FORM = 'application/x-www-form-urlencoded';

function raw(
  search: string,
  contentType: string | undefined,
  body: string | Buffer = '',
  userAgent?: string,
) {
  return { search, contentType, userAgent, body: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8') };
}

/** A real multipart body as a browser or curl would send it. */
async function multipart(
  fields: Record<string, string>,
  files: Record<string, { name: string; content: string }> = {},
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const [k, f] of Object.entries(files)) form.append(k, new Blob([f.content]), f.name);
  const req = new Request('http://x/', { method: 'POST', body: form });
  return { contentType: req.headers.get('content-type')!, body: Buffer.from(await req.arrayBuffer()) };
}

describe('parseParams: sources and precedence', () => {
  it('reads the query string', async () => {
    const p = await parseParams(raw('a=1&b=two&c=', undefined));
    expect(p.values).toEqual({ a: '1', b: 'two', c: '' });
  });

  it('merges query and urlencoded form; the query wins for a repeated key (werkzeug request.values)', async () => {
    const p = await parseParams(raw('a=q&x=1', FORM, 'a=f&b=2&b=3'));
    expect(p.values).toEqual({ a: 'q', x: '1', b: '2' });
  });

  it('decodes + as space in query and form, like werkzeug', async () => {
    const p = await parseParams(raw('q=a+b', FORM, 'f=c+d%2Be'));
    expect(p.values).toEqual({ q: 'a b', f: 'c d+e' });
  });

  it('merges multipart fields and keeps uploaded files with their content', async () => {
    const m = await multipart(
      { username: 'alice', note: 'ab%2541' },
      { file: { name: 'policies.cfg', content: '[p1]\nscope = admin\n' } },
    );
    const p = await parseParams(raw('realm=r1', m.contentType, m.body));
    // Multipart fields arrive without percent-encoding, so the one unquote privacyIDEA applies decodes once.
    expect(p.values).toEqual({ realm: 'r1', username: 'alice', note: 'ab%41' });
    expect(p.files.file).toEqual({ name: 'policies.cfg', content: '[p1]\nscope = admin\n' });
    expect(p.has('file')).toBe(false);
  });

  it('takes a JSON body; JSON values win over query values and are never unquoted', async () => {
    const p = await parseParams(
      raw('a=q&keep=1', 'application/json; charset=utf-8', '{"a": "j%2541", "n": 5, "t": true, "l": [1]}'),
    );
    expect(p.values).toEqual({ a: 'j%2541', keep: '1', n: 5, t: true, l: [1] });
    expect(p.str('n')).toBe('5');
    expect(p.str('t')).toBe('true');
  });

  it('accepts +json media types as JSON', async () => {
    const p = await parseParams(raw('', 'application/vnd.api+json', '{"a": "b"}'));
    expect(p.values).toEqual({ a: 'b' });
  });

  it('uses an undeclared body that parses as a JSON object', async () => {
    const p = await parseParams(raw('a=q', 'text/plain', '{"a": "body", "b": "%41"}'));
    expect(p.values).toEqual({ a: 'body', b: '%41' });
    const none = await parseParams(raw('', undefined, '{"user": "bob"}'));
    expect(none.values).toEqual({ user: 'bob' });
  });

  it('ignores an undeclared body that is not a JSON object', async () => {
    for (const body of ['[1, 2]', '"text"', '42', 'not json', '{broken']) {
      const p = await parseParams(raw('a=1', 'text/plain', body));
      expect(p.values).toEqual({ a: '1' });
    }
  });

  it('refuses malformed or non-object JSON when declared, with a 400 request error', async () => {
    for (const body of ['{broken', '[1, 2]', '"text"', 'null']) {
      const e = await parseParams(raw('', 'application/json', body)).catch((x) => x);
      expect(e).toBeInstanceOf(RequestBodyError);
      expect(e.httpStatus).toBe(400);
      expect(e.code).toBe(905);
    }
  });

  it('refuses a malformed multipart body with a 400 request error', async () => {
    const e = await parseParams(
      raw('', 'multipart/form-data; boundary=xyz', 'garbage without boundary'),
    ).catch((x) => x);
    expect(e).toBeInstanceOf(RequestBodyError);
    expect(e.httpStatus).toBe(400);
  });

  it('treats an empty body as no parameters, whatever the declared type', async () => {
    expect((await parseParams(raw('a=1', 'application/json', ''))).values).toEqual({ a: '1' });
    expect((await parseParams(raw('', FORM, ''))).values).toEqual({});
  });

  it('lets path variables win over every other source, unquoted a second time', () => {
    const p = new Params({ serial: 'from-body', other: 'x' });
    // The router hands over the path decoded once (/token/S%2541 -> S%41).
    const q = withPathParams(p, { serial: 'S%41' }, undefined);
    expect(q.values).toEqual({ serial: 'SA', other: 'x' });
    const raw = withPathParams(p, { serial: 'S%41' }, 'privacyidea-cp/2.0');
    expect(raw.values.serial).toBe('S%41');
  });
});

describe('parseParams: limits of every source', () => {
  const pairs = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => `${prefix}${i}=v`).join('&');
  const refusal = (body: Promise<unknown>) =>
    body.then(
      () => undefined,
      (e: RequestBodyError) => [e.constructor.name, e.httpStatus, e.message],
    );
  const TOO_MANY = ['RequestBodyError', 400, 'The request has more than 1000 parameters'];

  it('takes 1000 parameters from query and body together, and refuses one more from any source', async () => {
    expect(Object.keys((await parseParams(raw(pairs(400, 'q'), FORM, pairs(600)))).values)).toHaveLength(
      1000,
    );
    expect(await refusal(parseParams(raw(pairs(400, 'q'), FORM, pairs(601))))).toEqual(TOO_MANY);
    expect(await refusal(parseParams(raw(pairs(1001), undefined)))).toEqual(TOO_MANY);
    const json = JSON.stringify(Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, i])));
    expect(await refusal(parseParams(raw('q=1', 'application/json', json)))).toEqual(TOO_MANY);
    expect(await refusal(parseParams(raw('q=1', 'text/plain', json)))).toEqual(TOO_MANY);
    const fields = Object.fromEntries(Array.from({ length: 999 }, (_, i) => [`f${i}`, 'v']));
    const m = await multipart(fields, { file: { name: 'f.csv', content: 'x' } });
    expect(Object.keys((await parseParams(raw('', m.contentType, m.body))).values)).toHaveLength(999);
    expect(await refusal(parseParams(raw('q=1', m.contentType, m.body)))).toEqual(TOO_MANY);
  });

  it('refuses 100 000 form parameters quickly', async () => {
    const started = performance.now();
    expect(await refusal(parseParams(raw('', FORM, pairs(100_000))))).toEqual(TOO_MANY);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('refuses a JSON body nested deeper than 32 levels, declared or not', async () => {
    const deep = (levels: number) => `{"nonce": ${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;
    const DEEP = ['RequestBodyError', 400, 'The JSON request body is nested deeper than 32 levels'];
    expect((await parseParams(raw('', 'application/json', deep(32)))).has('nonce')).toBe(true);
    for (const type of ['application/json', 'text/plain', undefined])
      expect(await refusal(parseParams(raw('', type, deep(5000))))).toEqual(DEEP);
    expect(await refusal(parseParams(raw('', 'application/json', deep(33))))).toEqual(DEEP);
  });
});

describe('parseParams: the second percent-decoding (Python unquote)', () => {
  it('decodes form and query values twice', async () => {
    const p = await parseParams(raw('q=ab%2541', FORM, 'f=ab%2541&bad=%25zz&utf=%25C3%25A9&inv=%25FF'));
    expect(p.values).toEqual({ q: 'abA', f: 'abA', bad: '%zz', utf: 'é', inv: '\uFFFD' });
  });

  it('keeps invalid escapes and replaces invalid UTF-8 in the first decoding too', async () => {
    const p = await parseParams(raw('a=%zz&b=%FF&c=%EF%BB%BFx', undefined));
    expect(p.values).toEqual({ a: '%zz', b: '\uFFFD', c: '\uFEFFx' });
  });

  it('skips the second decoding for the privacyIDEA plugins, case-insensitively', async () => {
    for (const ua of [
      'privacyidea-cp/2.0 Windows/Laptop-1231312',
      'PrivacyIDEA-CP/3.1',
      'privacyidea-ldap-proxy/1.0',
      'SimpleSAMLphp/2.1.0',
      'simplesamlphp',
    ]) {
      const p = await parseParams(raw('q=ab%2541', FORM, 'f=ab%2541', ua));
      expect({ ua, values: p.values }).toEqual({ ua, values: { q: 'ab%41', f: 'ab%41' } });
    }
  });

  it('decodes twice for every other client', async () => {
    for (const ua of [
      undefined,
      '',
      'curl/8.0',
      'privacyidea-cp-fake/1.0',
      'Mozilla/5.0 privacyidea-cp/2.0',
      'FreeRADIUS/3.0',
      'privacyIDEA-PAM/1.0',
    ]) {
      const p = await parseParams(raw('q=ab%2541', undefined, '', ua));
      expect({ ua, q: p.values.q }).toEqual({ ua, q: 'abA' });
    }
  });

  it('needsSecondUnquote looks at the product name of the first token only', () => {
    expect(needsSecondUnquote('privacyidea-cp')).toBe(false);
    expect(needsSecondUnquote('privacyidea-cp (Windows)')).toBe(false);
    expect(needsSecondUnquote('  simplesamlphp/2.0')).toBe(false);
    expect(needsSecondUnquote('simplesamlphp2/2.0')).toBe(true);
    expect(needsSecondUnquote('x privacyidea-cp/1')).toBe(true);
  });
});

describe('parameter names that are also object properties', () => {
  it('treats __proto__, constructor and toString as plain names', async () => {
    const p = await parseParams(
      raw('toString=q', 'application/json', '{"__proto__": {"nonce": "x"}, "constructor": "c", "a": 1}'),
    );
    expect(Object.keys(p.values).sort()).toEqual(['__proto__', 'a', 'constructor', 'toString']);
    expect(p.has('nonce')).toBe(false);
    expect(p.str('nonce')).toBeUndefined();
    expect(p.str('constructor')).toBe('c');
    expect(p.str('toString')).toBe('q');
    expect(p.has('hasOwnProperty')).toBe(false);
    expect(p.str('valueOf')).toBeUndefined();
    expect(() => p.strings()).toThrow(ParameterError); // "__proto__" holds an object
    const q = withPathParams(p, { key: 'k' }, undefined);
    expect(q.has('nonce')).toBe(false);
    expect(q.str('key')).toBe('k');
    expect(({} as Record<string, unknown>).nonce).toBeUndefined();
  });
});

describe('Params accessors', () => {
  it('str, required, bool and strings follow privacyIDEA', () => {
    const p = new Params({ s: 'x', n: 0, t: true, o: { a: 1 }, z: null, one: '1', True: 'True', yes: 'yes' });
    expect(p.str('s')).toBe('x');
    expect(p.str('n')).toBe('0');
    expect(p.str('z')).toBeUndefined();
    expect(p.str('missing')).toBeUndefined();
    expect(() => p.str('o')).toThrow(ParameterError);
    expect(() => p.required('missing')).toThrow("Missing parameter: 'missing'");
    expect(p.bool('t')).toBe(true);
    expect(p.bool('one')).toBe(true);
    expect(p.bool('True')).toBe(true);
    expect(p.bool('yes')).toBe(false);
    expect(p.bool('n')).toBe(false);
  });
});

describe('readBody', () => {
  function request(chunks: string[], contentLength?: number): IncomingMessage {
    const s = new PassThrough();
    for (const c of chunks) s.write(c);
    s.end();
    return Object.assign(s, {
      headers: contentLength === undefined ? {} : { 'content-length': String(contentLength) },
    }) as unknown as IncomingMessage;
  }

  it('returns the whole body within the limit', async () => {
    expect((await readBody(request(['ab', 'cd'], 4), 4)).toString()).toBe('abcd');
  });

  it('refuses a declared length over the limit with 413 before reading', async () => {
    const e = await readBody(request(['x'], 5000), 1024).catch((x) => x);
    expect(e).toBeInstanceOf(RequestBodyError);
    expect(e.httpStatus).toBe(413);
  });

  it('turns a broken or aborted body stream into a 400 request error', async () => {
    const s = new PassThrough();
    s.write('partial');
    setImmediate(() => s.destroy(new Error('aborted')));
    const req = Object.assign(s, { headers: {} }) as unknown as IncomingMessage;
    const e = await readBody(req, 1024).catch((x) => x);
    expect(e).toBeInstanceOf(RequestBodyError);
    expect(e.httpStatus).toBe(400);
  });

  it('refuses a streamed body that grows over the limit with 413', async () => {
    const e = await readBody(request(['a'.repeat(600), 'b'.repeat(600)]), 1024).catch((x) => x);
    expect(e).toBeInstanceOf(RequestBodyError);
    expect(e.httpStatus).toBe(413);
  });
});
