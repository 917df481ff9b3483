// Files that resolver settings name come only from the allowed directories (the data directory and
// files.allowed_dirs), are regular files, never the server's own, and are read with a size limit:
// refused with a clear ERR905 when saved or tested, and again at login when the file was replaced
// or has grown since (docs/security.md, "Files the server reads").

import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_DETAIL_TEXT } from '../../src/errors.ts';
import { testDialects } from '../helpers/dialects.ts';
import { type ApiResponse, startTestServer, type TestServer } from '../helpers/server.ts';
import {
  expectServiceError,
  ok,
  sqlResolverParams,
  userToken,
  writePasswdFile,
  writeSqliteUsers,
} from '../helpers/user-stores.ts';

const MAX_BYTES = 65_536;
const OUTSIDE =
  "is not in a directory allowed for the server's files (files.allowed_dirs in the configuration file; an entry may also name one file)";
const OWN = "is one of the server's own files (keys, database, configuration)";

/** Waits until a passwd store looks at its file again (at most once a second). */
const nextLook = () => new Promise((r) => setTimeout(r, 1100));

describe.each(testDialects())('files named by settings on %s', (dialect) => {
  let s: TestServer;
  let admin: string;
  let extra: string;
  let passwd: string;

  beforeAll(async () => {
    extra = mkdtempSync(join(tmpdir(), 'authsrv-allowed-'));
    s = await startTestServer({
      dialect,
      config: { 'files.allowed_dirs': extra, 'files.max_bytes': String(MAX_BYTES) },
    });
    admin = await s.adminToken();
    passwd = await writePasswdFile(s.dataDir, 'passwd', [{ login: 'alice', password: 'alicepw', uid: 1001 }]);
    mkdirSync(join(s.dataDir, 'sub'));
    symlinkSync('/etc/passwd', join(s.dataDir, 'link-out'));
    writeFileSync(join(s.dataDir, 'big'), Buffer.alloc(MAX_BYTES + 1, 'a'));
  });
  afterAll(async () => {
    await s?.close();
    rmSync(extra, { recursive: true, force: true });
  });

  const resolverCount = async () =>
    (await s.rt.store.db.selectFrom('resolver').select('id').execute()).length;

  /** A clear ERR905 naming the setting, the path and the rule: never HTTP 500. */
  const refused = (r: ApiResponse, setting: string, path: string, rule: string) =>
    expectServiceError(r, 905, `${setting}: ${path} ${rule}`);

  it.each([
    ['/etc/shadow', OUTSIDE],
    ['/proc/self/environ', OUTSIDE],
    ['/dev/zero', OUTSIDE],
    ['{data}/sub', 'is not a regular file'],
    ['{data}/link-out', OUTSIDE],
    ['{data}/../../etc/passwd', OUTSIDE],
    ['{data}/big', `is larger than ${MAX_BYTES} bytes (files.max_bytes)`],
    ['{data}/encryption.key', OWN],
    ['{data}/jwt.secret', OWN],
    ['/nonexistent/passwd', OUTSIDE],
  ])('refuses a passwdresolver on %s when saved and when tested', async (name, rule) => {
    const Filename = name.replace('{data}', s.dataDir);
    const before = await resolverCount();
    for (const [path, params] of [
      ['/resolver/files', { type: 'passwdresolver', Filename }],
      ['/resolver/test', { type: 'passwdresolver', Filename }],
      ['/resolver/files', { type: 'passwdresolver', fileName: Filename }],
    ] as const) {
      refused(await s.call('POST', path, params, admin), 'Filename', Filename, rule);
    }
    expect(await resolverCount()).toBe(before);
  });

  it('refuses an LDAP TLS_CA_FILE and an SQLite Database the same way', async () => {
    const ldap = { type: 'ldapresolver', LDAPURI: 'ldap://127.0.0.1:9', LDAPBASE: 'dc=example,dc=org' };
    for (const path of ['/resolver/ldap1', '/resolver/test']) {
      refused(
        await s.call('POST', path, { ...ldap, TLS_CA_FILE: '/etc/shadow' }, admin),
        'TLS_CA_FILE',
        '/etc/shadow',
        OUTSIDE,
      );
      refused(
        await s.call('POST', path, { ...ldap, TLS_CA_FILE: `${s.dataDir}/sub` }, admin),
        'TLS_CA_FILE',
        `${s.dataDir}/sub`,
        'is not a regular file',
      );
      const sql = sqlResolverParams('/etc/shadow');
      refused(await s.call('POST', path, sql, admin), 'Database', '/etc/shadow', OUTSIDE);
    }
    // The server's own database, opened read-write by an editable SQL resolver, would be its end.
    if (dialect === 'sqlite') {
      const own = s.rt.config.databaseUrl.slice('sqlite:'.length);
      refused(await s.call('POST', '/resolver/sql1', sqlResolverParams(own), admin), 'Database', own, OWN);
    }
  });

  it('uses files of the data directory and of files.allowed_dirs as before', async () => {
    ok(await s.call('POST', '/resolver/files', { type: 'passwdresolver', Filename: passwd }, admin));
    const other = await writePasswdFile(extra, 'passwd', [{ login: 'bob', password: 'bobpw', uid: 1002 }]);
    ok(await s.call('POST', '/resolver/others', { type: 'passwdresolver', Filename: other }, admin));
    const users = await writeSqliteUsers(extra, 'users.db', [{ username: 'carol', password: 'carolpw' }]);
    ok(await s.call('POST', '/resolver/sql', sqlResolverParams(users), admin));
    ok(await s.call('POST', '/realm/files', { resolvers: 'files,others,sql' }, admin));
    await userToken(s, 'alice', 'alicepw', 'files');
    await userToken(s, 'bob', 'bobpw', 'files');
    await userToken(s, 'carol', 'carolpw', 'files');
    // A file that does not exist yet may be named inside an allowed directory.
    const later = await s.call(
      'POST',
      '/resolver/test',
      { type: 'passwdresolver', Filename: `${extra}/later` },
      admin,
    );
    expect(ok(later)).toBe(false);
    expect(later.json.detail.description).toBe(`Filename: ${extra}/later does not exist`);
  });

  it('refuses at login a file replaced by a link out, a directory or a bigger file since it was saved', async () => {
    const login = () => s.call('POST', '/auth', { username: 'alice', realm: 'files', password: 'alicepw' });
    const check = () => s.call('POST', '/validate/check', { user: 'alice', realm: 'files', pass: 'alicepw' });
    const users = () => s.call('GET', '/user/', { realm: 'files' }, admin);
    const replace = async (change: () => void, rule: string) => {
      change();
      await nextLook();
      refused(await users(), 'Filename', passwd, rule);
      // An unauthenticated caller gets the same code, without the path (docs/security.md).
      expectServiceError(await check(), 905, SERVER_DETAIL_TEXT);
      // /auth answers every failed login alike (the reason goes to the log).
      expect((await login()).json.result.error.code).toBe(4031);
    };
    expect(ok(await login()).token).toBeTypeOf('string');
    await replace(() => {
      rmSync(passwd);
      symlinkSync('/etc/passwd', passwd);
    }, OUTSIDE);
    await replace(() => {
      rmSync(passwd);
      mkdirSync(passwd);
    }, 'is not a regular file');
    await replace(() => {
      rmSync(passwd, { recursive: true });
      writeFileSync(`${passwd}.new`, Buffer.alloc(MAX_BYTES + 1, 'a'));
      renameSync(`${passwd}.new`, passwd);
    }, `is larger than ${MAX_BYTES} bytes (files.max_bytes)`);
    // Put right, it works again.
    await writePasswdFile(s.dataDir, 'passwd', [{ login: 'alice', password: 'alicepw', uid: 1001 }]);
    await nextLook();
    expect(ok(await login()).token).toBeTypeOf('string');
  });
});
