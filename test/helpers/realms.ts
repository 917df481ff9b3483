// The user stores and token tables most token tests start from: realms backed by passwd files,
// created over HTTP, and a way back to no tokens between tests.
import type { TestServer } from './server.ts';
import { ok, type PasswdEntry, writePasswdFile } from './user-stores.ts';

/** Creates a passwd-file resolver (`<realm>-res` unless named) holding `users` and the realm on it. */
export async function passwdRealm(
  s: TestServer,
  admin: string,
  realm: string,
  users: PasswdEntry[],
  resolver = `${realm}-res`,
): Promise<void> {
  const file = await writePasswdFile(s.dataDir, `${realm}-users`, users);
  ok(await s.call('POST', `/resolver/${resolver}`, { type: 'passwdresolver', Filename: file }, admin));
  ok(await s.call('POST', `/realm/${realm}`, { resolvers: resolver }, admin));
}

/** A passwd entry whose password is `<login>pw`. */
export const pwUser = (login: string, uid: number, gecos?: string): PasswdEntry => ({
  login,
  password: `${login}pw`,
  uid,
  ...(gecos === undefined ? {} : { gecos }),
});

/** Removes every token with its tokeninfo, owners, realms and challenges. */
export async function deleteAllTokens(s: TestServer): Promise<void> {
  const db = s.rt.store.db;
  for (const table of [
    'machinetoken_option',
    'machinetoken',
    'challenge',
    'tokeninfo',
    'tokenowner',
    'tokenrealm',
    'token',
  ] as const)
    await db.deleteFrom(table).execute();
}

/** Deletes every token over the API (DELETE /token/<serial>), as the administrator. */
export async function deleteTokensOverApi(s: TestServer, admin: string): Promise<void> {
  for (const t of await s.rt.store.db.selectFrom('token').select('serial').execute())
    ok(await s.call('DELETE', `/token/${t.serial}`, {}, admin));
}
