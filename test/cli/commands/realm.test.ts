import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localOperator, withCaller } from '../../../src/core/context.ts';
import { saveResolver } from '../../../src/core/resolver/resolver.ts';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { cliDialects, type DialectName } from '../../helpers/dialects.ts';
import { writePasswdFile } from '../../helpers/user-stores.ts';

/** A CLI environment with two passwd resolvers, resA and resB. */
async function withResolvers(dialect: DialectName): Promise<CliEnv> {
  const c = await cliEnv(dialect);
  const ctx = withCaller(await c.runtime(), localOperator());
  for (const name of ['resA', 'resB']) {
    const file = await writePasswdFile(c.dataDir, name, [{ login: 'alice', uid: 1001 }]);
    await saveResolver(ctx, name, { type: 'passwdresolver', Filename: file });
  }
  return c;
}

const realms = async (c: CliEnv): Promise<Json> =>
  JSON.parse((await c.run(['realm', 'list', '--json'])).stdout);

describe.each(cliDialects())('authsrv realm on %s', (dialect) => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await withResolvers(dialect);
  });
  afterEach(async () => c?.close());
  const list = () => realms(c);

  it('sets, lists, reorders and deletes realms, auditing each change', async () => {
    expect(await c.run(['realm', 'set', 'Main Office', 'resA', 'resB:5'])).toEqual({
      code: 0,
      stdout: "Realm 'main-office': added resA, resB\n",
      stderr: '',
    });
    // Lower priority first; no priority counts as 1000.
    expect(await list()).toEqual({
      'main-office': {
        id: expect.any(Number),
        default: true,
        resolver: [
          { name: 'resB', type: 'passwdresolver', priority: 5, node: '' },
          { name: 'resA', type: 'passwdresolver', priority: null, node: '' },
        ],
      },
    });
    // A second set replaces the resolver list; an unknown resolver is reported and fails the command.
    const partial = await c.run(['realm', 'set', 'main-office', 'resA:1', 'ghost']);
    expect(partial).toMatchObject({
      code: 1,
      stdout: "Realm 'main-office': added resA\nRealm 'main-office': failed ghost (no such resolver)\n",
    });
    expect((await list())['main-office'].resolver).toEqual([
      { name: 'resA', type: 'passwdresolver', priority: 1, node: '' },
    ]);
    expect((await c.run(['realm', 'set', 'second', 'resB'])).code).toBe(0);
    const table = await c.run(['realm', 'list']);
    expect(table.stdout).toMatch(/Realm.*Default.*Resolvers/);
    expect(table.stdout).toMatch(/main-office.*yes.*resA \(passwdresolver, priority 1\)/);
    expect(table.stdout).toMatch(/second\s+│\s+│ resB \(passwdresolver\)/);

    expect(await c.run(['realm', 'delete', 'Second'])).toMatchObject({
      code: 0,
      stdout: "Realm 'second' deleted.\n",
    });
    expect(Object.keys(await list())).toEqual(['main-office']);
    expect(expectOneLineError(await c.run(['realm', 'delete', 'second']))).toBe(
      'authsrv: The requested Realm could not be found.',
    );

    const rt = await c.runtime();
    const rows = await rt.store.db.selectFrom('audit').selectAll().orderBy('id').execute();
    expect(rows.map((r) => [r.action, r.success, r.administrator, r.info])).toEqual([
      ['CLI realm set', 1, `${CLI_USER}@cli`, 'main-office resA resB:5'],
      ['CLI realm set', 1, `${CLI_USER}@cli`, 'main-office resA:1 ghost'],
      ['CLI realm set', 1, `${CLI_USER}@cli`, 'second resB'],
      ['CLI realm delete', 1, `${CLI_USER}@cli`, 'Second'],
      ['CLI realm delete', 0, `${CLI_USER}@cli`, 'second The requested Realm could not be found.'],
    ]);
  });

  it('shows, sets and clears the default realm', async () => {
    expect(await c.run(['realm', 'default'])).toMatchObject({ code: 0, stdout: 'No default realm.\n' });
    expect((await c.run(['realm', 'set', 'one', 'resA'])).code).toBe(0);
    expect((await c.run(['realm', 'set', 'two', 'resB'])).code).toBe(0);
    expect((await c.run(['realm', 'default'])).stdout).toBe('one\n');
    expect(await c.run(['realm', 'default', 'TWO'])).toMatchObject({
      code: 0,
      stdout: "Realm 'two' is now the default.\n",
    });
    expect(JSON.parse((await c.run(['realm', 'default', '--json'])).stdout)).toEqual({ default: 'two' });
    expect((await c.run(['realm', 'default', '--clear'])).stdout).toBe(
      "Realm 'two' is no longer the default.\n",
    );
    expect(JSON.parse((await c.run(['realm', 'default', '--json'])).stdout)).toEqual({ default: null });
    expect(
      Object.values((await list()) as Record<string, { default: boolean }>).map((r) => r.default),
    ).toEqual([false, false]);
    expect(expectOneLineError(await c.run(['realm', 'default', 'three']))).toBe(
      'authsrv: The requested Realm could not be found.',
    );
    expect(expectOneLineError(await c.run(['realm', 'default', 'one', '--clear']))).toMatch(/not both/);
  });
});

// Dialect-independent: input errors.
describe('authsrv realm input errors', () => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await withResolvers('sqlite');
  });
  afterEach(async () => c?.close());
  const list = () => realms(c);

  it('refuses bad input with a one-line error and changes nothing', async () => {
    expect(expectOneLineError(await c.run(['realm', 'set', 'r', 'ghost', 'phantom']))).toBe(
      'authsrv: None of the resolvers exists: ghost, phantom',
    );
    expect(expectOneLineError(await c.run(['realm', 'set', 'r', 'resA:high']))).toMatch(
      /The priority in 'resA:high' is not a whole number/,
    );
    expect(expectOneLineError(await c.run(['realm', 'set', 'bad/name', 'resA']))).toMatch(
      /Invalid realm name/,
    );
    expect((await c.run(['realm', 'set', 'r'])).code).not.toBe(0);
    expect(await list()).toEqual({});
  });
});
