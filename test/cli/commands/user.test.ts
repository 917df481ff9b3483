import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../../src/core/context.ts';
import { setRealm } from '../../../src/core/realm/realm.ts';
import { saveResolver } from '../../../src/core/resolver/resolver.ts';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { cliDialects, type DialectName } from '../../helpers/dialects.ts';
import {
  sqliteUsers,
  sqlResolverParams,
  writePasswdFile,
  writeSqliteUsers,
} from '../../helpers/user-stores.ts';

/**
 * A CLI environment with realm main (passwd resolver files: alice, anna, bob, read-only) and realm
 * staff (editable sqlresolver people over an SQLite users table: dave).
 */
async function withStores(dialect: DialectName): Promise<{ c: CliEnv; usersDb: string }> {
  const c = await cliEnv(dialect);
  const ctx = withCaller(await c.runtime(), localOperator());
  const passwd = await writePasswdFile(c.dataDir, 'passwd', [
    { login: 'alice', uid: 1001, gecos: 'Alice Smith,,,,alice@example.com' },
    { login: 'anna', uid: 1002, gecos: 'Anna Jones' },
    { login: 'bob', uid: 1003 },
  ]);
  await saveResolver(ctx, 'files', { type: 'passwdresolver', Filename: passwd });
  const usersDb = await writeSqliteUsers(c.dataDir, 'users.db', [
    { username: 'dave', password: 'Dave-pass-1' },
  ]);
  await saveResolver(ctx, 'people', sqlResolverParams(usersDb));
  await setRealm(ctx, 'main', ['files'], {});
  await setRealm(ctx, 'staff', ['people'], {});
  return { c, usersDb };
}

describe.each(cliDialects())('authsrv user on %s', (dialect) => {
  let c: CliEnv;
  let usersDb: string;
  beforeEach(async () => {
    ({ c, usersDb } = await withStores(dialect));
  });
  afterEach(async () => c?.close());

  const json = async (args: string[]) => {
    const r = await c.run(args);
    if (r.code !== 0) throw new Error(r.stderr);
    return JSON.parse(r.stdout) as Json;
  };

  it('lists and shows users of a read-only store, and manages their custom attributes', async () => {
    const all = await json(['user', 'list', '--json']);
    expect(all.map((u: Json) => [u.username, u.resolver, u.editable])).toEqual([
      ['alice', 'files', false],
      ['anna', 'files', false],
      ['bob', 'files', false],
      ['dave', 'people', true],
    ]);
    const some = await json(['user', 'list', '--realm', 'main', 'username=a*', '--json']);
    expect(some.map((u: Json) => u.username)).toEqual(['alice', 'anna']);
    expect(
      (await json(['user', 'list', '--resolver', 'people', '--json'])).map((u: Json) => u.username),
    ).toEqual(['dave']);
    const table = await c.run(['user', 'list', '--realm', 'main', 'email=*@example.com']);
    expect(table.stdout).toMatch(/Username.*Resolver.*Given name.*Surname.*Email/);
    expect(table.stdout).toMatch(/alice.*files.*Alice.*Smith.*alice@example\.com/);
    expect(table.stdout).not.toMatch(/anna/);

    const set = await c.run(['user', 'attr', 'set', 'alice@main', 'department', 'sales', '--type', 'text']);
    expect(set).toMatchObject({ code: 0, stdout: "Attribute 'department' of alice@main set.\n" });
    // Without @realm, the default realm (main, the first) is meant.
    expect(await json(['user', 'attr', 'list', 'alice', '--json'])).toEqual({ department: 'sales' });
    expect((await c.run(['user', 'attr', 'list', 'alice', 'department'])).stdout).toBe('sales\n');
    const shown = await json(['user', 'show', 'alice', '--realm', 'main', '--json']);
    expect(shown).toMatchObject({
      username: 'alice',
      userid: '1001',
      givenname: 'Alice',
      surname: 'Smith',
      email: 'alice@example.com',
      realm: 'main',
      resolver: 'files',
      custom_attributes: { department: 'sales' },
    });
    const human = await c.run(['user', 'show', 'alice@main']);
    expect(human.stdout).toMatch(/givenname\s+│ Alice/);
    expect(human.stdout).toMatch(/Custom attribute[\s\S]*department\s+│ sales/);

    expect((await c.run(['user', 'attr', 'delete', 'alice', 'department'])).stdout).toBe(
      "Attribute 'department' of alice@main deleted.\n",
    );
    expect(await json(['user', 'attr', 'list', 'alice@main', '--json'])).toEqual({});
    expect(expectOneLineError(await c.run(['user', 'attr', 'delete', 'alice', 'department']))).toBe(
      "authsrv: The attribute 'department' is not set for alice@main",
    );
    expect(expectOneLineError(await c.run(['user', 'show', 'nobody@main']))).toBe(
      'authsrv: User <nobody@main> does not exist.',
    );
    expect(expectOneLineError(await c.run(['user', 'attr', 'set', 'bob', 'last_used_token', 'x']))).toMatch(
      /reserved for internal use/,
    );

    const rt = await c.runtime();
    const rows = await rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(
      rows.map((r) => [r.action, r.success, r.administrator, r.info.split(' ').slice(0, 2).join(' ')]),
    ).toEqual([
      ['CLI user attr set', 1, `${CLI_USER}@cli`, 'alice@main department'],
      ['CLI user attr delete', 1, `${CLI_USER}@cli`, 'alice department'],
      ['CLI user attr delete', 0, `${CLI_USER}@cli`, 'alice department'],
      ['CLI user attr set', 0, `${CLI_USER}@cli`, 'bob last_used_token'],
    ]);
  });

  it('adds, edits and deletes a user of an editable SQL store, who can then log in', async () => {
    const add = await c.run(
      [
        'user',
        'add',
        'carol',
        '--resolver',
        'people',
        'givenname=Carol',
        'email=carol@example.com',
        '--password-stdin',
      ],
      'Carol-pass-1\n',
    );
    expect(add).toMatchObject({ code: 0, stderr: '' });
    expect(add.stdout).toMatch(/^User 'carol' created in resolver 'people' \(userid \d+\)\.\n$/);
    const row = sqliteUsers(usersDb).find((u) => u.username === 'carol')!;
    expect(row).toMatchObject({ givenname: 'Carol', email: 'carol@example.com' });
    expect(String(row.password)).toMatch(/^\{SSHA256\}/);

    const server = await c.server();
    const login = async (password: string) =>
      fetch(`${server.url}/auth`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'carol@staff', password }),
      });
    const ok = await login('Carol-pass-1');
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as Json).result.value).toMatchObject({ role: 'user', username: 'carol' });

    const edit = await c.run(
      [
        'user',
        'edit',
        'carol',
        '--resolver',
        'people',
        'email=c@example.org',
        'givenname=',
        '--password-stdin',
      ],
      'Carol-pass-2\n',
    );
    expect(edit).toMatchObject({ code: 0, stdout: "User 'carol' of resolver 'people' changed.\n" });
    expect(await json(['user', 'show', 'carol@staff', '--json'])).toMatchObject({
      username: 'carol',
      email: 'c@example.org',
      resolver: 'people',
      realm: 'staff',
    });
    expect((await login('Carol-pass-1')).status).toBe(401);
    expect((await login('Carol-pass-2')).status).toBe(200);
    expect((await c.run(['user', 'edit', 'carol', '--resolver', 'people', 'mobile=+49 1'])).code).toBe(0);
    expect(sqliteUsers(usersDb).find((u) => u.username === 'carol')).toMatchObject({
      givenname: '',
      email: 'c@example.org',
      mobile: '+49 1',
    });

    expect(await c.run(['user', 'delete', 'carol', '--resolver', 'people'])).toMatchObject({
      code: 0,
      stdout: "User 'carol' deleted from resolver 'people'.\n",
    });
    expect(sqliteUsers(usersDb).map((u) => u.username)).toEqual(['dave']);
    expect(expectOneLineError(await c.run(['user', 'delete', 'carol', '--resolver', 'people']))).toBe(
      "authsrv: The user 'carol' does not exist in resolver 'people'.",
    );

    const rt = await c.runtime();
    const rows = await rt.store.db
      .selectFrom('audit')
      .selectAll()
      .where('action', 'like', 'CLI %')
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.action, r.success, r.info.split(' ').slice(0, 2).join(' ')])).toEqual([
      ['CLI user add', 1, 'carol people'],
      ['CLI user edit', 1, 'carol people'],
      ['CLI user edit', 1, 'carol people'],
      ['CLI user delete', 1, 'carol people'],
      ['CLI user delete', 0, 'carol people'],
    ]);
    // The same columns the API fills for these actions.
    expect(rows.every((r) => r.user === 'carol' && r.resolver === 'people')).toBe(true);
    expect(JSON.stringify(rows)).not.toContain('Carol-pass');
  });
});

// Dialect-independent: input errors and read-only stores.
describe('authsrv user input errors', () => {
  let c: CliEnv;
  let usersDb: string;
  beforeEach(async () => {
    ({ c, usersDb } = await withStores('sqlite'));
  });
  afterEach(async () => c?.close());

  it('refuses passwords on the command line, read-only stores and bad input, changing nothing', async () => {
    const add = (...rest: string[]) => c.run(['user', 'add', 'erin', ...rest], 'Erin-pass-1\n');
    expect(
      expectOneLineError(await add('--resolver', 'people', 'password=Erin-pass-1', '--password-stdin')),
    ).toMatch(/The password is not given as a field/);
    expect(expectOneLineError(await c.run(['user', 'add', 'erin', '--resolver', 'people']))).toMatch(
      /No terminal to ask for a password: pipe it in with --password-stdin, or use --no-password/,
    );
    expect(expectOneLineError(await add('--resolver', 'people', 'realm=x', '--no-password'))).toMatch(
      /'realm' cannot be set as a field/,
    );
    expect(expectOneLineError(await add('--resolver', 'files', '--no-password'))).toBe(
      "authsrv: The resolver 'files' is not editable.",
    );
    expect(expectOneLineError(await c.run(['user', 'edit', 'bob', '--resolver', 'files', 'email=b@x']))).toBe(
      "authsrv: The resolver 'files' is not editable.",
    );
    expect(expectOneLineError(await c.run(['user', 'delete', 'bob', '--resolver', 'files']))).toBe(
      "authsrv: The resolver 'files' is not editable.",
    );
    expect(expectOneLineError(await add('--resolver', 'nowhere', '--password-stdin'))).toBe(
      "authsrv: The resolver 'nowhere' does not exist!",
    );
    expect(
      expectOneLineError(await c.run(['user', 'add', 'dave', '--resolver', 'people', '--no-password'])),
    ).toBe("authsrv: The user 'dave' already exists in resolver 'people'.");
    expect(expectOneLineError(await c.run(['user', 'edit', 'dave', '--resolver', 'people']))).toMatch(
      /Nothing to change/,
    );
    expect(sqliteUsers(usersDb).map((u) => u.username)).toEqual(['dave']);
  });
});
