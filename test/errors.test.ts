import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AuthError,
  AuthsrvError,
  asAuthsrvError,
  ConfigAdminError,
  DatabaseError,
  ERR,
  HsmError,
  InternalError,
  namesServerPath,
  ParameterError,
  PolicyError,
  RequestBodyError,
  ResolverError,
  ResourceNotFoundError,
  SERVER_DETAIL_TEXT,
  ThrottledError,
  TokenAdminError,
  UserError,
} from '../src/errors.ts';

describe('the code table', () => {
  it('gives every code one name', () => {
    const codes = Object.values(ERR);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('holds whole numbers only, privacyIDEA’s ids and -500 for the unexpected', () => {
    for (const [name, code] of Object.entries(ERR)) {
      expect(Number.isInteger(code), name).toBe(true);
      expect(code > 0 || name === 'Internal', name).toBe(true);
    }
    expect(ERR.Internal).toBe(-500);
  });

  it('keeps the numbers clients branch on', () => {
    expect(ERR).toMatchObject({
      Generic: 10,
      TokenAdmin: 301,
      ConfigAdmin: 302,
      Policy: 303,
      ResourceNotFound: 601,
      Hsm: 707,
      Database: 902,
      User: 904,
      Parameter: 905,
      Resolver: 907,
      TokenLocked: 1007,
      WrongCredentials: 4031,
    });
  });
});

describe('the error classes', () => {
  const serviceLevel: [string, AuthsrvError, number][] = [
    ['AuthsrvError', new AuthsrvError('m'), ERR.Generic],
    ['ParameterError', new ParameterError('m'), ERR.Parameter],
    ['PolicyError', new PolicyError('m'), ERR.Policy],
    ['ResourceNotFoundError', new ResourceNotFoundError('m'), ERR.ResourceNotFound],
    ['UserError', new UserError('m'), ERR.User],
    ['ConfigAdminError', new ConfigAdminError('m'), ERR.ConfigAdmin],
    ['HsmError', new HsmError('m'), ERR.Hsm],
    ['DatabaseError', new DatabaseError('m'), ERR.Database],
    ['ResolverError', new ResolverError('m'), ERR.Resolver],
    ['TokenAdminError', new TokenAdminError('m'), ERR.TokenAdmin],
  ];

  it.each(serviceLevel)('%s: HTTP 200, message shown as ERR<code>, its default code', (_, e, code) => {
    expect(e.httpStatus).toBe(200);
    expect(e.expose).toBe(true);
    expect(e.code).toBe(code);
    expect(e.wireMessage()).toBe(`ERR${code}: m`);
  });

  it('shows outsiders a generic text of the same code instead of a message naming a server path', () => {
    const withPath = new ParameterError('Cannot read the passwd file /etc/authsrv/users: ENOENT');
    expect(withPath.outsiderWireMessage()).toBe(`ERR905: ${SERVER_DETAIL_TEXT}`);
    expect(withPath.wireMessage()).toBe(`ERR905: ${withPath.message}`);
    expect(new AuthError('bad key in /x/y').outsiderWireMessage()).toBe(SERVER_DETAIL_TEXT);
    expect(new UserError('User <alice@r> does not exist.').outsiderWireMessage()).toBe(
      'ERR904: User <alice@r> does not exist.',
    );
  });

  it('recognises absolute paths, not URLs, relative paths or slashes in words', () => {
    for (const text of [
      '/etc/passwd',
      'file /tmp/x: ENOENT',
      "key file '/var/lib/authsrv/key.json' is damaged",
      'security.key_password_file=/run/secrets/pw',
      '(in /etc/authsrv/authsrv.toml)',
      'GnuPG home ~/.gnupg',
      'C:\\ProgramData\\authsrv',
    ])
      expect(namesServerPath(text), text).toBe(true);
    for (const text of [
      'cannot reach ldap://ldap.example.org/dc=example',
      'the answer of https://scim.example.org/v2/Users is not JSON',
      'yes/no, and/or, 1/2',
      'data/passwd',
      'a / b',
      'User <alice@realm1> does not exist.',
    ])
      expect(namesServerPath(text), text).toBe(false);
  });

  it('takes a more specific code by name', () => {
    const e = new TokenAdminError('locked', ERR.TokenLocked);
    expect([e.code, e.httpStatus, e.wireMessage()]).toEqual([1007, 200, 'ERR1007: locked']);
  });

  it('AuthError: HTTP 401, the plain message, wrong credentials unless told otherwise', () => {
    const e = new AuthError('no');
    expect([e.httpStatus, e.expose, e.code, e.wireMessage()]).toEqual([
      401,
      true,
      ERR.WrongCredentials,
      'no',
    ]);
    expect(new AuthError('expired', ERR.JwtExpired).code).toBe(4305);
  });

  it('ThrottledError: HTTP 429, the plain message with the wait, the wait in the details', () => {
    const e = new ThrottledError(30);
    expect([e.httpStatus, e.code, e.retryAfter, e.details]).toEqual([429, 4290, 30, { retry_after: 30 }]);
    expect(e.wireMessage()).toBe(
      'Authentication throttled: too many failed attempts. Try again in 30 seconds.',
    );
  });

  it('RequestBodyError: HTTP 400 when malformed, 413 when too large, a ParameterError (905) either way', () => {
    const malformed = RequestBodyError.malformed('bad JSON');
    const large = RequestBodyError.tooLarge(10);
    expect([malformed.httpStatus, malformed.code, malformed.expose]).toEqual([400, 905, true]);
    expect([large.httpStatus, large.code, large.message]).toEqual([
      413,
      905,
      'The request body is larger than 10 bytes',
    ]);
    expect(large).toBeInstanceOf(ParameterError);
  });

  it('InternalError: HTTP 500, code -500, message hidden, the original as its cause', () => {
    const cause = new Error('secret internals');
    const e = new InternalError(cause);
    expect([e.httpStatus, e.expose, e.code]).toEqual([500, false, -500]);
    expect(e.message).not.toContain('secret');
    expect(e.cause).toBe(cause);
  });

  it('asAuthsrvError keeps authsrv’s own errors and wraps anything else', () => {
    const own = new UserError('gone');
    expect(asAuthsrvError(own)).toBe(own);
    for (const thrown of [new TypeError('x'), 'text', undefined]) {
      const e = asAuthsrvError(thrown);
      expect(e).toBeInstanceOf(InternalError);
      expect(e.cause).toBe(thrown);
    }
  });
});

/** The last argument of every `new …Error(…)` in a source text that is a bare number. */
function literalCodes(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/new\s+\w*Error\s*\(/g)) {
    const args = argumentsFrom(text, (m.index ?? 0) + m[0].length);
    const last = args.at(-1)?.trim() ?? '';
    if (/^-?\d+$/.test(last)) found.push(`${m[0]}… ${last})`);
  }
  return found;
}

/** The top-level arguments of a call whose '(' ends just before `start`, strings and nesting skipped. */
function argumentsFrom(text: string, start: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let current = '';
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"' || c === '`') {
      const end = closingQuote(text, i);
      current += text.slice(i, end + 1);
      i = end;
      continue;
    }
    if (c === '(' || c === '[' || c === '{') depth++;
    if (c === ')' || c === ']' || c === '}') {
      if (depth === 0) break;
      depth--;
    }
    if (c === ',' && depth === 0) {
      args.push(current);
      current = '';
    } else current += c;
  }
  if (current.trim() !== '') args.push(current);
  return args;
}

function closingQuote(text: string, open: number): number {
  for (let i = open + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === text[open]) return i;
  }
  return text.length;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the throw sites', () => {
  it('finds a bare number given as a code', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the source text of a template literal
    expect(literalCodes("throw new TokenAdminError(`x ${f('a, b')}`, 1007);")).toEqual([
      'new TokenAdminError(… 1007)',
    ]);
    expect(literalCodes('throw new TokenAdminError(TOKEN_LOCKED, ERR.TokenLocked);')).toEqual([]);
    expect(literalCodes("throw new ParameterError('a (b), c');")).toEqual([]);
  });

  it('name every code from the table: no bare number anywhere in src/', () => {
    const src = resolve(import.meta.dirname, '../src');
    const offenders = sourceFiles(src).flatMap((file) =>
      literalCodes(readFileSync(file, 'utf8')).map((hit) => `${file.slice(src.length + 1)}: ${hit}`),
    );
    expect(offenders).toEqual([]);
  });
});
