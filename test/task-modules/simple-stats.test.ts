// SimpleStats: each option set to true records one value under the option's name, counted over a
// set of tokens: enrolled (software) and imported (hardware) tokens, some assigned to users (one
// user with two); options left out or false record nothing; all values of a run carry one time.
import { afterEach, describe, expect, it } from 'vitest';
import type { Context } from '../../src/core/context.ts';
import { lastStatsValues, statsKeys, statsValues } from '../../src/core/monitoring/index.ts';
import { importTokens } from '../../src/core/token/index.ts';
import { parseOptions, taskModule } from '../../src/task-modules/index.ts';
import { testDialects } from '../helpers/dialects.ts';
import { pwUser } from '../helpers/realms.ts';
import type { TestServer } from '../helpers/server.ts';
import { SEED } from '../helpers/token-files.ts';
import { initOk, useTokenServer } from '../helpers/token-fixture.ts';
import { ok } from '../helpers/user-stores.ts';

const OPTIONS = [
  'total_tokens',
  'hardware_tokens',
  'software_tokens',
  'unassigned_hardware_tokens',
  'assigned_tokens',
  'user_with_token',
];

describe.each(testDialects())('the SimpleStats task module on %s', (dialect) => {
  let s: TestServer;
  let op: Context;
  let admin: string;
  useTokenServer(
    dialect,
    {
      realms: { r1: [pwUser('alice', 1000), pwUser('bob', 1001), pwUser('carol', 1002)] },
      reset: ['tokens'],
    },
    (t) => ({ s, op, admin } = t),
  );
  afterEach(async () => {
    await s.rt.store.db.deleteFrom('monitoringstats').execute();
  });

  const stats = taskModule('SimpleStats');
  const run = (options: Record<string, string>) => stats.run(s.rt, parseOptions(stats, options));

  /** 3 software tokens (alice 2, bob 1) and 4 hardware tokens (1 of them bob's). */
  const tokens = async () => {
    await initOk(s, { type: 'spass', serial: 'S1', user: 'alice', realm: 'r1' }, admin);
    await initOk(s, { type: 'hotp', serial: 'S2', otpkey: SEED, user: 'alice', realm: 'r1' }, admin);
    await initOk(s, { type: 'spass', serial: 'S3', user: 'bob', realm: 'r1' }, admin);
    const csv = ['H1', 'H2', 'H3', 'H4'].map((serial) => `${serial}, ${SEED}, hotp, 6\n`).join('');
    expect((await importTokens(op, { type: 'oathcsv', content: csv })).n_imported).toBe(4);
    ok(await s.call('POST', '/token/assign', { serial: 'H2', user: 'bob', realm: 'r1' }, admin));
  };

  it('offers its six options as booleans', () => {
    expect(Object.keys(stats.options)).toEqual(OPTIONS);
    for (const spec of Object.values(stats.options))
      expect(spec).toMatchObject({ type: 'bool', required: false });
    expect(() => parseOptions(stats, { total_tokens: 'maybe' })).toThrow(
      "Option 'total_tokens' of task module SimpleStats must be true or false, not 'maybe'",
    );
  });

  it('records each enabled count under its option name, all at one time', async () => {
    await tokens();
    const all = Object.fromEntries(OPTIONS.map((o) => [o, 'True']));
    const expected = {
      total_tokens: 7,
      hardware_tokens: 4,
      software_tokens: 3,
      unassigned_hardware_tokens: 3,
      assigned_tokens: 4,
      user_with_token: 2,
    };
    expect(await run(all)).toEqual(expected);
    expect(await lastStatsValues(s.rt)).toEqual(expected);
    const times = new Set<string>();
    for (const key of OPTIONS) for (const [time] of await statsValues(s.rt, key)) times.add(time);
    expect(times.size).toBe(1);
  });

  it('records only the options set to true, and zeros without tokens', async () => {
    expect(await run({ total_tokens: 'true', hardware_tokens: 'false', user_with_token: '1' })).toEqual({
      total_tokens: 0,
      user_with_token: 0,
    });
    expect(await statsKeys(s.rt)).toEqual(['total_tokens', 'user_with_token']);
    expect(await run({})).toEqual({});
    expect(await statsKeys(s.rt)).toEqual(['total_tokens', 'user_with_token']);
  });
});
