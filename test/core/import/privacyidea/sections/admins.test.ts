// The administrators of the privacyIDEA fixture after an import: `admin` logs in at /auth with the
// manifest's password (privacyIDEA's hash of PI_PEPPER + password), which is then re-hashed with
// authsrv's own scheme; a wrong password is refused. Through the service and over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAdmin, type LoginResult, listAdmins, login } from '../../../../../src/core/auth/index.ts';
import { localOperator, withCaller } from '../../../../../src/core/context.ts';
import { importPrivacyidea } from '../../../../../src/core/import/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { fixtureImport, PI_FIXTURE, piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';
import { startTestServer, type TestServer } from '../../../../helpers/server.ts';

const [adminName, admin] = Object.entries(piManifest.admins)[0] as [
  string,
  { password: string; hash: string },
];

describe.each(testDialects())('import privacyidea: admins (%s)', (dialect) => {
  let f: ImportedFixture;
  beforeAll(async () => {
    f = await importedFixture(dialect);
  }, 120_000);
  afterAll(async () => f.close());

  const loginWith = (password: string) =>
    login(f.t.rt, { username: adminName, password, realm: '', client: '127.0.0.1' });
  const stored = () =>
    f.t.rt.store.db
      .selectFrom('admin')
      .select(['password_hash', 'password_pepper'])
      .where('name', '=', adminName)
      .executeTakeFirstOrThrow();

  it('imports the administrator with its privacyIDEA hash and the pepper sealed', async () => {
    expect(f.section('admins').objects).toEqual([adminName]);
    expect((await listAdmins(f.t.rt)).map((a) => a.name)).toEqual([adminName]);
    const row = await stored();
    expect(row.password_hash).toBe(admin.hash);
    expect(row.password_pepper).not.toContain(piManifest.fixture.pi_cfg_relevant.PI_PEPPER);
    expect(f.t.rt.hsm.decrypt(row.password_pepper!)).toBe(piManifest.fixture.pi_cfg_relevant.PI_PEPPER);
  });

  it('refuses a wrong password and keeps the imported hash', async () => {
    await expect(loginWith('wrong-password')).rejects.toThrow(/Wrong credentials/);
    await expect(loginWith(piManifest.fixture.pi_cfg_relevant.PI_PEPPER + admin.password)).rejects.toThrow(
      /Wrong credentials/,
    );
    expect((await stored()).password_hash).toBe(admin.hash);
  });

  it('logs the administrator in with the manifest password, then re-hashes it without the pepper', async () => {
    const result = (await loginWith(admin.password)) as LoginResult;
    expect(result.caller).toMatchObject({ role: 'admin', username: adminName });
    expect(result.token).toMatch(/^ey/);
    const row = await stored();
    expect(row.password_pepper).toBeNull();
    expect(row.password_hash).not.toBe(admin.hash);
    expect(row.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(((await loginWith(admin.password)) as LoginResult).caller.username).toBe(adminName);
    await expect(loginWith('wrong-password')).rejects.toThrow(/Wrong credentials/);
  });
});

describe.each(testDialects())('import privacyidea: admins over HTTP (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ dialect, config: { 'files.allowed_dirs': PI_FIXTURE } });
    // The server's first administrator is also called admin: the import would refuse to run.
    const operator = withCaller(s.rt, localOperator());
    await deleteAdmin(operator, 'admin');
    await importPrivacyidea(operator, fixtureImport());
  }, 120_000);
  afterAll(async () => s.close());

  it('answers POST /auth with a token for the manifest password, and refuses a wrong one', async () => {
    const wrong = await s.call('POST', '/auth', { username: adminName, password: 'not-the-password' });
    expect(wrong.status).toBe(401);
    expect(wrong.json.result.status).toBe(false);
    const ok = await s.call('POST', '/auth', { username: adminName, password: admin.password });
    expect(ok.status).toBe(200);
    expect(ok.json.result.value).toMatchObject({ username: adminName, role: 'admin' });
    const listed = await s.call('GET', '/smtpserver/', {}, ok.json.result.value.token);
    expect(listed.json.result.value[piManifest.smtpservers[0].identifier].password).toBe('__CENSORED__');
  });
});
