import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../../src/core/context.ts';
import { setRealm } from '../../../src/core/realm/realm.ts';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { cliDialects } from '../../helpers/dialects.ts';
import { writePasswdFile, writeSqliteUsers } from '../../helpers/user-stores.ts';

const SCIM = [
  '--type',
  'scimresolver',
  'Authserver=http://127.0.0.1:9/',
  'Resourceserver=http://127.0.0.1:9/scim',
  'Client=authsrv',
];

async function storedConfig(c: CliEnv, name: string): Promise<string | undefined> {
  const rt = await c.runtime();
  const row = await rt.store.db
    .selectFrom('resolver')
    .selectAll()
    .where('name', '=', name)
    .executeTakeFirst();
  return row?.config;
}

describe.each(cliDialects())('authsrv resolver on %s', (dialect) => {
  let c: CliEnv;
  let passwd: string;
  beforeEach(async () => {
    c = await cliEnv(dialect);
    passwd = await writePasswdFile(c.dataDir, 'passwd', [
      { login: 'alice', uid: 1001, gecos: 'Alice Smith' },
      { login: 'bob', uid: 1002 },
    ]);
  });
  afterEach(async () => c?.close());

  it('creates, updates, shows, lists and deletes a resolver, auditing each change', async () => {
    const set = ['resolver', 'set', 'files', '--type', 'passwdresolver'];
    expect(await c.run([...set, `Filename=${passwd}`])).toEqual({
      code: 0,
      stdout: "Resolver 'files' created.\n",
      stderr: '',
    });
    // The alias fileName is folded into Filename; an update keeps what it does not name.
    expect((await c.run([...set, `fileName=${passwd}.2`])).stdout).toBe("Resolver 'files' updated.\n");
    const show = JSON.parse((await c.run(['resolver', 'show', 'FILES', '--json'])).stdout);
    expect(show).toEqual({
      resolvername: 'files',
      type: 'passwdresolver',
      data: { Filename: `${passwd}.2` },
      censor_keys: [],
    });
    expect((await c.run(['resolver', 'show', 'files'])).stdout).toMatch(
      /files \(passwdresolver\)[\s\S]*Filename/,
    );

    expect(
      (await c.run(['resolver', 'set', 'cloud', ...SCIM, 'Secret=-', '--password-stdin'], 'S3cret-x\n')).code,
    ).toBe(0);
    const list = JSON.parse((await c.run(['resolver', 'list', '--json'])).stdout);
    expect(Object.keys(list)).toEqual(['cloud', 'files']);
    expect(list.files).toEqual(show);
    const only = JSON.parse((await c.run(['resolver', 'list', '--type', 'passwdresolver', '--json'])).stdout);
    expect(Object.keys(only)).toEqual(['files']);
    expect(JSON.parse((await c.run(['resolver', 'list', '--editable', '--json'])).stdout)).toEqual({});
    const table = await c.run(['resolver', 'list']);
    expect(table.stdout).toMatch(/Name.*Type.*Settings/);
    expect(table.stdout).toMatch(/files.*passwdresolver.*Filename=/);

    expect(await c.run(['resolver', 'delete', 'files'])).toMatchObject({
      code: 0,
      stdout: "Resolver 'files' deleted.\n",
    });
    expect(await storedConfig(c, 'files')).toBeUndefined();
    expect(expectOneLineError(await c.run(['resolver', 'delete', 'files']))).toBe(
      "authsrv: The resolver 'files' does not exist",
    );
    expect(expectOneLineError(await c.run(['resolver', 'show', 'files']))).toBe(
      "authsrv: The resolver 'files' does not exist",
    );

    const rt = await c.runtime();
    const rows = await rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info.split(' ')[0]])).toEqual([
      ['CLI resolver set', 1, `${CLI_USER}@cli`, 'files'],
      ['CLI resolver set', 1, `${CLI_USER}@cli`, 'files'],
      ['CLI resolver set', 1, `${CLI_USER}@cli`, 'cloud'],
      ['CLI resolver delete', 1, `${CLI_USER}@cli`, 'files'],
      ['CLI resolver delete', 0, `${CLI_USER}@cli`, 'files'],
    ]);
    expect(JSON.stringify(rows)).not.toContain('S3cret');
  });

  it('reads secrets from stdin or a prompt only, stores them sealed and shows them censored', async () => {
    const set = ['resolver', 'set', 'cloud', ...SCIM];
    // On the command line, a secret is refused before anything is stored.
    expect(expectOneLineError(await c.run([...set, 'Secret=S3cret-x']))).toMatch(
      /Secret is a secret setting: give it as Secret=- or --secret Secret/,
    );
    expect(expectOneLineError(await c.run([...set, 'Secret=-']))).toMatch(
      /No terminal to ask for Secret: pipe it in with --password-stdin/,
    );
    expect(expectOneLineError(await c.run([...set, 'Secret=-', '--password-stdin'], ''))).toMatch(
      /No value for Secret on standard input/,
    );
    expect(await storedConfig(c, 'cloud')).toBeUndefined();

    // Two secrets, one a line: the type's own (Secret) and one marked with --secret.
    const r = await c.run(
      [...set, 'Secret=-', '--secret', 'CACHE_TIMEOUT', '--password-stdin'],
      'S3cret-x\r\n60\n',
    );
    expect(r).toMatchObject({ code: 0, stdout: "Resolver 'cloud' created.\n" });
    const config = (await storedConfig(c, 'cloud'))!;
    expect(config).not.toContain('S3cret');
    const rt = await c.runtime();
    const stored = JSON.parse(config);
    expect(stored.secrets).toEqual(['CACHE_TIMEOUT', 'Secret']);
    expect(rt.hsm.decrypt(stored.settings.Secret)).toBe('S3cret-x');
    expect(rt.hsm.decrypt(stored.settings.CACHE_TIMEOUT)).toBe('60');

    const show = await c.run(['resolver', 'show', 'cloud', '--json']);
    expect(JSON.parse(show.stdout).data).toMatchObject({
      Secret: '__CENSORED__',
      CACHE_TIMEOUT: '__CENSORED__',
    });
    expect((await c.run(['resolver', 'list'])).stdout).not.toContain('S3cret');

    // __CENSORED__ is not a secret: it keeps the stored one, as on the API, but only for the
    // destination it was stored for (another Client must give its own secret).
    const update = ['resolver', 'set', 'cloud', '--type', 'scimresolver', 'Secret=__CENSORED__'];
    expect(expectOneLineError(await c.run([...update, 'Client=other']))).toMatch(
      /Secret and CACHE_TIMEOUT must be given again: Client differs from the stored settings/,
    );
    expect(await storedConfig(c, 'cloud')).toBe(config);
    expect((await c.run([...update, 'TIMEOUT=7'])).code).toBe(0);
    const after = JSON.parse((await storedConfig(c, 'cloud'))!);
    expect(after.settings.TIMEOUT).toBe('7');
    expect(rt.hsm.decrypt(after.settings.Secret)).toBe('S3cret-x');
  });
});

// Dialect-independent: settings checks and input errors need no database server of each kind.
describe('authsrv resolver test and input errors', () => {
  let c: CliEnv;
  let passwd: string;
  beforeEach(async () => {
    c = await cliEnv('sqlite');
    passwd = await writePasswdFile(c.dataDir, 'passwd', [
      { login: 'alice', uid: 1001, gecos: 'Alice Smith' },
      { login: 'bob', uid: 1002 },
    ]);
  });
  afterEach(async () => c?.close());

  it('tests settings: prints the description, exit 0 when they work and 1 when not', async () => {
    const ok = await c.run(['resolver', 'test', '--type', 'passwdresolver', `Filename=${passwd}`]);
    expect(ok).toEqual({ code: 0, stdout: `Found 2 users in ${passwd}.\n`, stderr: '' });
    // A missing file in an allowed directory (here the data directory) fails the test.
    const missing = await c.run([
      'resolver',
      'test',
      '--type',
      'passwdresolver',
      `Filename=${c.dataDir}/nonexistent/passwd`,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/nonexistent/);
    const json = await c.run([
      'resolver',
      'test',
      '--type',
      'passwdresolver',
      `Filename=${c.dataDir}/nonexistent`,
      '--json',
    ]);
    expect(JSON.parse(json.stdout)).toEqual({
      value: false,
      description: expect.stringMatching(/nonexistent/),
    });
    // A file outside the allowed directories is refused, as over the API (files.allowed_dirs).
    expect(
      expectOneLineError(
        await c.run(['resolver', 'test', '--type', 'passwdresolver', 'Filename=/etc/shadow']),
      ),
    ).toBe(
      "authsrv: Filename: /etc/shadow is not in a directory allowed for the server's files (files.allowed_dirs in the configuration file; an entry may also name one file)",
    );

    // SQL answers with a user count, -1 when it fails; --resolver starts from a stored resolver.
    const db = await writeSqliteUsers(c.dataDir, 'users.db', [{ username: 'carol' }]);
    const sql = ['--type', 'sqlresolver', 'Driver=sqlite', `Database=${db}`, 'Table=users'];
    const map = 'Map={"userid":"id","username":"username"}';
    expect((await c.run(['resolver', 'set', 'people', ...sql, map])).code).toBe(0);
    expect(await c.run(['resolver', 'test', '--type', 'sqlresolver', '--resolver', 'people'])).toMatchObject({
      code: 0,
      stdout: 'Found 1 users.\n',
    });
    const badTable = await c.run([
      'resolver',
      'test',
      '--type',
      'sqlresolver',
      '--resolver',
      'people',
      'Table=nope',
    ]);
    expect(badTable).toMatchObject({ code: 1, stdout: 'Failed to retrieve users.\n' });
    // Testing changes nothing and writes no audit row.
    expect(JSON.parse((await storedConfig(c, 'people'))!).settings.Table).toBe('users');
    const rt = await c.runtime();
    expect(await rt.store.db.selectFrom('audit').select('action').execute()).toEqual([
      { action: 'CLI resolver set' },
    ]);
  });

  it('warns on stderr about LDAP settings that are accepted but not used, and in the test description', async () => {
    const ldap = ['--type', 'ldapresolver', 'LDAPURI=ldap://127.0.0.1:9', 'LDAPBASE=dc=example,dc=org'];
    const set = await c.run([
      'resolver',
      'set',
      'corp',
      ...ldap,
      'KEYTABFILE=/etc/krb5.keytab',
      'SERVERPOOL_STRATEGY=ROUND_ROBIN',
      'group_base_dn=ou=groups,dc=example,dc=org',
    ]);
    expect(set).toEqual({
      code: 0,
      stdout: "Resolver 'corp' created.\n",
      stderr:
        'warning: LDAP setting KEYTABFILE is accepted but not used: Kerberos/SASL binds are not supported.\n' +
        'warning: LDAP setting group_base_dn is accepted but not used: group lookups are not supported, users get no group memberships.\n',
    });
    // The warnings are about the stored settings, also those the update does not name.
    const update = await c.run(['resolver', 'set', 'corp', ...ldap, 'group_base_dn=']);
    expect(update.stderr).toBe(
      'warning: LDAP setting KEYTABFILE is accepted but not used: Kerberos/SASL binds are not supported.\n',
    );
    expect(await c.run(['resolver', 'set', 'corp', ...ldap, 'KEYTABFILE='])).toEqual({
      code: 0,
      stdout: "Resolver 'corp' updated.\n",
      stderr: '',
    });

    // A failed test keeps its reason and ends with the warnings.
    const test = await c.run([
      'resolver',
      'test',
      ...ldap,
      '--resolver',
      'corp',
      'SERVERPOOL_STRATEGY=RANDOM',
    ]);
    expect(test.code).toBe(1);
    expect(test.stdout).toMatch(
      /^LDAP server unreachable: .+\. LDAP setting SERVERPOOL_STRATEGY is accepted but not used: servers are always tried in the given order \(as with FIRST\)\.\n$/,
    );
    const json = JSON.parse((await c.run(['resolver', 'test', ...ldap, 'KEYTABFILE=/k', '--json'])).stdout);
    expect(json).toEqual({
      value: false,
      description: expect.stringMatching(
        /\. LDAP setting KEYTABFILE is accepted but not used: Kerberos\/SASL binds are not supported\.$/,
      ),
    });
  });

  it('refuses bad input with a one-line error and changes nothing', async () => {
    const set = (name: string, ...rest: string[]) => c.run(['resolver', 'set', name, ...rest]);
    expect(expectOneLineError(await set('x', '--type', 'nosuchresolver'))).toMatch(
      /Unknown resolver type 'nosuchresolver': use passwdresolver/,
    );
    expect(expectOneLineError(await set('x', '--type', 'passwdresolver', 'Bogus=1'))).toMatch(
      /Unknown setting 'Bogus' for a passwdresolver/,
    );
    expect(expectOneLineError(await set('x', '--type', 'passwdresolver', 'Filename'))).toMatch(
      /'Filename' is not of the form KEY=VALUE/,
    );
    expect(expectOneLineError(await set('bad name', '--type', 'passwdresolver'))).toMatch(
      /Invalid resolver name/,
    );
    expect((await c.run(['resolver', 'set', 'x'])).code).not.toBe(0);

    expect((await set('files', '--type', 'passwdresolver', `Filename=${passwd}`)).code).toBe(0);
    expect(expectOneLineError(await set('files', ...SCIM))).toMatch(
      /passwdresolver; its type cannot be changed/,
    );
    const rt = await c.runtime();
    await setRealm(withCaller(rt, localOperator()), 'main', ['files'], {});
    expect(expectOneLineError(await c.run(['resolver', 'delete', 'files']))).toBe(
      "authsrv: The resolver 'files' is still contained in realm 'main'.",
    );
    const rows = await rt.store.db.selectFrom('resolver').select(['name', 'type']).execute();
    expect(rows).toEqual([{ name: 'files', type: 'passwdresolver' }]);
  });
});
