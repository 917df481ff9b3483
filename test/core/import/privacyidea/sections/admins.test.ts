// The administrators of the privacyIDEA fixture after an import: `admin` logs in at /auth with the
// manifest's password (privacyIDEA's hash of PI_PEPPER + password), which is then re-hashed with
// authsrv's own scheme; a wrong password is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LoginResult, listAdmins, login } from '../../../../../src/core/auth/index.ts';
import { testDialects } from '../../../../helpers/dialects.ts';
import { piManifest } from '../../../../helpers/privacyidea-fixture.ts';
import { type ImportedFixture, importedFixture } from '../../../../helpers/privacyidea-import.ts';

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
