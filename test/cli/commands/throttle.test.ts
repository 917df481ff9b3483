import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_USER, type CliEnv, cliEnv, expectOneLineError } from '../../helpers/cli.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv throttle on %s', (dialect) => {
  let c: CliEnv;
  beforeEach(async () => {
    c = await cliEnv(dialect);
  });
  afterEach(async () => c?.close());

  /** Stores counts as the server would have: failures of alice from two addresses, recently. */
  async function seed() {
    const rt = await c.runtime();
    const now = Date.now();
    const row = (
      kind: 'account' | 'address',
      account: string,
      address: string,
      failures: number,
      blockedFor: number,
    ) => ({
      key: `${kind}-${account}-${address}`,
      kind,
      account,
      address,
      failures,
      last_failure: new Date(now - 1000).toISOString(),
      blocked_until: new Date(now + blockedFor * 1000).toISOString(),
    });
    await rt.store.db
      .insertInto('login_failure')
      .values([
        row('account', 'alice@realm1', '10.0.0.1', 25, 900),
        row('address', '', '10.0.0.1', 25, 0),
        row('account', 'alice@realm1', '10.0.0.2', 1, 0),
      ])
      .execute();
  }

  it('lists the counts, blocked ones first, as a table and as JSON', async () => {
    await seed();
    const json = await c.run(['throttle', 'list', '--json']);
    expect(json.code, json.stderr).toBe(0);
    const entries = JSON.parse(json.stdout);
    expect(entries).toHaveLength(3);
    expect(entries[0]).toMatchObject({
      kind: 'account',
      account: 'alice@realm1',
      address: '10.0.0.1',
      failures: 25,
    });
    expect(entries[0].retryAfter).toBeGreaterThan(800);
    expect(entries[1].blockedUntil).toBe('');
    const table = await c.run(['throttle', 'list']);
    expect(table.stdout).toContain('alice@realm1');
    expect(table.stdout).toContain('Refused until');
  });

  it('clears by account and by everything, with an audit row; refuses a request without a target', async () => {
    await seed();
    const r = await c.run(['throttle', 'clear', '--account', 'Alice@Realm1']);
    expect(r).toMatchObject({ code: 0, stdout: 'Cleared 2 failure counts.\n' });
    expect(JSON.parse((await c.run(['throttle', 'clear', '--all', '--json'])).stdout)).toEqual({
      cleared: 1,
    });
    expect(expectOneLineError(await c.run(['throttle', 'clear']))).toBe(
      'authsrv: Give --account, --address or --all',
    );
    expect(JSON.parse((await c.run(['throttle', 'list', '--json'])).stdout)).toEqual([]);
    const rt = await c.runtime();
    const rows = await rt.store.db
      .selectFrom('audit')
      .select(['action', 'success', 'info', 'administrator'])
      .where('action', '=', 'CLI throttle clear')
      .orderBy('id')
      .execute();
    expect(rows.map((x) => [x.success, x.info.split(' ')[0], x.administrator])).toEqual([
      [1, 'Alice@Realm1', `${CLI_USER}@cli`],
      [1, 'all', `${CLI_USER}@cli`],
      [0, 'Give', `${CLI_USER}@cli`],
    ]);
  });
});
