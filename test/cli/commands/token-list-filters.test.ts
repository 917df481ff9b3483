// `authsrv token list` filter options (the GET /token/ filters; tested on every dialect in
// test/e2e/token-list-filters.test.ts).
import { beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import { setInfoOfToken } from '../../../src/core/token/attributes.ts';
import { initToken } from '../../../src/core/token/enroll.ts';
import { type CliEnv, expectOneLineError, type Json } from '../../helpers/cli.ts';
import { filesRealm, useCliEnv } from '../../helpers/cli-fixture.ts';
import { cliDialects } from '../../helpers/dialects.ts';

describe.each(cliDialects())('authsrv token list filters on %s', (dialect) => {
  let c: CliEnv;
  let ctx: Context;
  useCliEnv(dialect, 'all', (f) => ({ c, ctx } = f));
  beforeAll(async () => {
    await filesRealm({ c, ctx }, [
      { login: 'alice', uid: 1001 },
      { login: 'bob', uid: 1002 },
    ]);
    await initToken(ctx, { type: 'hotp', serial: 'A1', genkey: '1', user: 'alice', realm: 'main' });
    await initToken(ctx, { type: 'totp', serial: 'B1', genkey: '1', user: 'bob', realm: 'main' });
    await initToken(ctx, { type: 'spass', serial: 'S1', pin: 'abcd', description: 'spare one' });
    await setInfoOfToken(ctx, 'A1', 'dept', 'sales');
    await setInfoOfToken(ctx, 'S1', 'dept', 'sales');
  });

  const serials = async (args: string[]) => {
    const r = await c.run(['token', 'list', '--json', ...args]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    return (JSON.parse(r.stdout) as Json[]).map((t) => t.serial);
  };

  it('filters by types, owner, realm, tokeninfo, description and rollout state', async () => {
    expect(await serials([])).toEqual(['A1', 'B1', 'S1']);
    expect(await serials(['--type-list', 'hotp,SPASS'])).toEqual(['A1', 'S1']);
    expect(await serials(['--userid', '1002'])).toEqual(['B1']);
    expect(await serials(['--resolver', 'fil*'])).toEqual(['A1', 'B1']);
    expect(await serials(['--tokenrealm', 'main'])).toEqual(['A1', 'B1']);
    expect(await serials(['--infokey', 'dept', '--infovalue', 'sales'])).toEqual(['A1', 'S1']);
    expect(await serials(['--infokey', 'dept', '--infovalue', 'sales', '--type-list', 'spass'])).toEqual([
      'S1',
    ]);
    expect(await serials(['--description', 'spare*'])).toEqual(['S1']);
    expect(await serials(['--rollout-state', 'clientwait'])).toEqual([]);
    const table = await c.run(['token', 'list', '--userid', '100*']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/A1 +│ hotp/);
    expect(table.stdout).not.toMatch(/S1/);
  });

  it('fails in one line on bad combinations', async () => {
    expect(expectOneLineError(await c.run(['token', 'list', '--infokey', 'dept']))).toMatch(
      /Missing parameter: 'infovalue'/,
    );
    expect(expectOneLineError(await c.run(['token', 'list', '--type-list', ' , ']))).toMatch(
      /'type_list' must name at least one token type/,
    );
  });
});
