// User stores for API tests: a passwd file and an SQLite users table, written outside the code under
// test, plus a JSON-body call (the server helper sends forms); and the file rule of the stores' unit
// tests.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { makeCryptHash } from '../../src/crypto/crypt-hashes.ts';
import { AllowedFiles } from '../../src/files/index.ts';
import type { ApiResponse, TestServer } from './server.ts';

/** The file rule of a user store's tests: files in these directories, at most 10 MiB. */
export function allowedFilesIn(...allowedDirs: string[]): AllowedFiles {
  return new AllowedFiles({ allowedDirs, ownFiles: [], maxBytes: 10 * 1024 * 1024 });
}

export interface PasswdEntry {
  login: string;
  password?: string;
  uid: number;
  /** The whole GECOS field: `Given Sur,room,mobile,phone,mail`. */
  gecos?: string;
}

/** Writes a passwd-format file (sha512-crypt hashes) and returns its path. */
export async function writePasswdFile(dir: string, name: string, entries: PasswdEntry[]): Promise<string> {
  const lines: string[] = ['# test users', ''];
  for (const e of entries) {
    const hash = e.password === undefined ? 'x' : await makeCryptHash('sha512-crypt', e.password);
    lines.push(`${e.login}:${hash}:${e.uid}:${e.uid}:${e.gecos ?? ''}:/home/${e.login}:/bin/sh`);
  }
  const path = join(dir, name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

export interface SqlUser {
  username: string;
  password?: string;
  givenname?: string;
  surname?: string;
  email?: string;
  phone?: string;
  mobile?: string;
  description?: string;
}

export const SQL_MAP = JSON.stringify({
  userid: 'id',
  username: 'username',
  password: 'password',
  givenname: 'givenname',
  surname: 'surname',
  email: 'email',
  phone: 'phone',
  mobile: 'mobile',
  description: 'description',
});

/** Creates an SQLite file with a `users` table (bcrypt-free SSHA256 hashes) and returns its path. */
export async function writeSqliteUsers(dir: string, name: string, users: SqlUser[]): Promise<string> {
  const path = join(dir, name);
  const db = new BetterSqlite3(path);
  try {
    db.exec(`CREATE TABLE users (
      id INTEGER PRIMARY KEY AUTOINCREMENT, username TEXT NOT NULL UNIQUE, password TEXT,
      givenname TEXT, surname TEXT, email TEXT, phone TEXT, mobile TEXT, description TEXT)`);
    const insert = db.prepare(
      'INSERT INTO users (username, password, givenname, surname, email, phone, mobile, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    for (const u of users) {
      const hash = u.password === undefined ? null : await makeCryptHash('SSHA256', u.password);
      insert.run(
        u.username,
        hash,
        u.givenname ?? null,
        u.surname ?? null,
        u.email ?? null,
        u.phone ?? null,
        u.mobile ?? null,
        u.description ?? null,
      );
    }
  } finally {
    db.close();
  }
  return path;
}

/** Rows of the SQLite users table as they are now. */
export function sqliteUsers(path: string): Record<string, unknown>[] {
  const db = new BetterSqlite3(path, { readonly: true });
  try {
    return db.prepare('SELECT * FROM users ORDER BY id').all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** The parameters of an editable sqlresolver over a file of writeSqliteUsers. */
export function sqlResolverParams(path: string, editable = true): Record<string, string> {
  return {
    type: 'sqlresolver',
    Driver: 'sqlite',
    Database: path,
    Table: 'users',
    Map: SQL_MAP,
    Editable: editable ? 'True' : 'False',
    Password_Hash_Type: 'SSHA256',
  };
}

/** Calls the API with a JSON body. */
export async function jsonCall(
  s: TestServer,
  method: string,
  path: string,
  body: unknown,
  token?: string,
): Promise<ApiResponse> {
  const headers: Record<string, string> = { Accept: 'application/json', 'Content-Type': 'application/json' };
  if (token) headers.Authorization = token;
  const res = await fetch(s.url + path, { method, headers, body: JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, text, headers: res.headers, json };
}

/** Logs a user in and returns the JWT (throws when the login fails). */
export async function userToken(
  s: TestServer,
  username: string,
  password: string,
  realm?: string,
): Promise<string> {
  const r = await s.call('POST', '/auth', { username, password, ...(realm ? { realm } : {}) });
  if (r.status !== 200) throw new Error(`login of ${username} failed: ${r.text}`);
  return r.json.result.value.token as string;
}

/** Asserts a service-level error: HTTP 200, status false, `ERR<code>: …`. */
export function expectServiceError(r: ApiResponse, code: number, message?: string | RegExp): void {
  if (r.status !== 200 || r.json?.result?.status !== false) {
    throw new Error(`expected ERR${code}, got HTTP ${r.status}: ${r.text}`);
  }
  if (r.json.result.error.code !== code) throw new Error(`expected ERR${code}, got ${r.text}`);
  const m: string = r.json.result.error.message;
  if (!m.startsWith(`ERR${code}: `)) throw new Error(`message without ERR${code}: prefix: ${m}`);
  if (typeof message === 'string' && m !== `ERR${code}: ${message}`) {
    throw new Error(`expected message 'ERR${code}: ${message}', got '${m}'`);
  }
  if (message instanceof RegExp && !message.test(m))
    throw new Error(`message ${m} does not match ${message}`);
}

/** Asserts a successful call and returns its value. */
// biome-ignore lint/suspicious/noExplicitAny: tests inspect arbitrary JSON
export function ok(r: ApiResponse): any {
  if (r.status !== 200 || r.json?.result?.status !== true) {
    throw new Error(`expected success, got HTTP ${r.status}: ${r.text}`);
  }
  return r.json.result.value;
}

/**
 * A realm of one passwd resolver (`<realm>-files`) holding `entries`, made through the API: for a
 * JWT of a user of that realm, which stands only while the realm holds a resolver.
 */
export async function passwdRealm(s: TestServer, realm: string, entries: PasswdEntry[] = []): Promise<void> {
  const admin = await s.adminToken();
  const file = await writePasswdFile(s.dataDir, `${realm}.passwd`, entries);
  ok(await s.call('POST', `/resolver/${realm}-files`, { type: 'passwdresolver', Filename: file }, admin));
  ok(await s.call('POST', `/realm/${realm}`, { resolvers: `${realm}-files` }, admin));
}
