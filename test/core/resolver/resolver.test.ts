import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testResolver } from '../../../src/core/resolver/index.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';
import { writePasswdFile, writeSqliteUsers } from '../../helpers/user-stores.ts';

// The user stores are files: one dialect is enough.
describe('testResolver', () => {
  let t: TestRuntime;
  beforeAll(async () => {
    t = await openTestRuntime('sqlite');
  });
  afterAll(async () => t?.close());

  it("says whether the settings work: privacyIDEA's false, or an SQL count of -1, is a failure", async () => {
    const file = await writePasswdFile(t.dataDir, 'passwd', [{ login: 'alice', uid: 1001 }]);
    const passwd = (Filename: string) => testResolver(t.ctx, { type: 'passwdresolver', Filename });
    expect(await passwd(file)).toMatchObject({ value: true, succeeded: true });
    expect(await passwd(`${t.dataDir}/nonexistent/passwd`)).toMatchObject({ value: false, succeeded: false });
    // A file outside the allowed directories is no failed test but refused (files.allowed_dirs).
    await expect(passwd('/nonexistent/passwd')).rejects.toThrow(
      expect.objectContaining({ code: 905, message: expect.stringMatching(/is not in a directory allowed/) }),
    );

    const db = await writeSqliteUsers(t.dataDir, 'users.db', []);
    const sql = (Table: string) =>
      testResolver(t.ctx, {
        type: 'sqlresolver',
        Driver: 'sqlite',
        Database: db,
        Table,
        Map: '{"userid":"id","username":"username"}',
      });
    expect(await sql('users')).toMatchObject({ value: 0, succeeded: true });
    expect(await sql('nope')).toMatchObject({ value: -1, succeeded: false });
  });
});
