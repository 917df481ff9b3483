import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bumpCounter,
  CONFIG_VERSION_ROW,
  POLICY_VERSION_ROW,
  readCounters,
} from '../../src/core/change-counters.ts';
import { type Context, localOperator, type Runtime, withCaller } from '../../src/core/context.ts';
import { setPolicy } from '../../src/core/policy/index.ts';
import { openRuntime } from '../../src/core/runtime.ts';
import {
  configFlag,
  configNumber,
  configSnapshot,
  deleteConfig,
  setConfig,
  setDefaults,
} from '../../src/core/system/config.ts';
import { initToken } from '../../src/core/token/enroll.ts';
import { typeSettings } from '../../src/core/token/settings.ts';
import { check } from '../../src/core/validate/check.ts';
import { testDialects } from '../helpers/dialects.ts';
import { hotp } from '../helpers/otp.ts';
import { openTestRuntime, type TestRuntime } from '../helpers/runtime.ts';
import { holdStatements, readsOf, recordSql } from '../helpers/sql-recorder.ts';

const KEY = '3132333435363738393031323334353637383930';
const CLIENT = '10.0.0.1';

/** Counts the statements of a runtime's store that read the `meta` and `config` tables. */
function countReads(rt: Runtime): { take(): { meta: number; config: number; sql: string[] } } {
  const recorded = recordSql(rt);
  return {
    take() {
      const sql = recorded.take();
      return { meta: readsOf(sql, 'meta'), config: readsOf(sql, 'config'), sql };
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const metaRow = (rt: Runtime, name: string) =>
  rt.store.db.selectFrom('meta').select('value').where('name', '=', name).executeTakeFirst();

describe.each(testDialects())('the configuration cache on %s', (dialect) => {
  let a: TestRuntime;
  /** A second node: its own connection pool and caches on the same database. */
  let b: Runtime;
  let bctx: Context;
  let counter = 0;

  beforeEach(async () => {
    a = await openTestRuntime(dialect);
    b = await openRuntime(a.rt.config, { logger: pino({ level: 'silent' }), clock: () => a.rt.clock() });
    bctx = withCaller(b, localOperator());
    await initToken(a.ctx, { type: 'hotp', otpkey: KEY, pin: '1234', serial: 'CACHE1' });
    counter = 0;
  });
  afterEach(async () => {
    await b?.store.close();
    await a?.close();
  });

  /** The next HOTP value, with the PIN before or after it. */
  const pass = (pinFirst: boolean) => {
    const otp = hotp(KEY, counter++);
    return pinFirst ? `1234${otp}` : `${otp}1234`;
  };
  const accepts = async (rt: Runtime, p: string) =>
    (await check(rt, { serial: 'CACHE1', pass: p, client: CLIENT })).value;

  it('moves config_version with every write, inserting the row when it is absent', async () => {
    expect(await metaRow(a.rt, CONFIG_VERSION_ROW)).toBeUndefined();
    expect((await readCounters(a.rt.store)).config).toBe(0);
    await setConfig(a.ctx, [{ key: 'PrependPin', value: 'False' }]);
    expect((await metaRow(a.rt, CONFIG_VERSION_ROW))?.value).toBe('1');
    await setConfig(a.ctx, [
      { key: 'PrependPin', value: 'True' },
      { key: 'x.y', value: 'z' },
    ]);
    expect((await metaRow(a.rt, CONFIG_VERSION_ROW))?.value).toBe('2');
    await setDefaults(a.ctx, { DefaultMaxFailCount: '7' });
    expect((await metaRow(a.rt, CONFIG_VERSION_ROW))?.value).toBe('3');
    await deleteConfig(a.ctx, 'x.y');
    expect((await metaRow(a.rt, CONFIG_VERSION_ROW))?.value).toBe('4');
    // A write that fails moves nothing.
    await expect(deleteConfig(a.ctx, 'x.y')).rejects.toThrow(/does not exist/);
    await expect(setConfig(a.ctx, [{ key: 'DefaultOtpLen', value: '7' }])).rejects.toThrow();
    expect((await metaRow(a.rt, CONFIG_VERSION_ROW))?.value).toBe('4');
    expect(await readCounters(b.store)).toEqual({
      policy: 0,
      config: 4,
      realm: 0,
      session: 0,
      machinetoken: 0,
      event: 0,
    });
    await setPolicy(a.ctx, 'p1', { scope: 'admin', action: 'policyread' });
    expect(await readCounters(b.store)).toEqual({
      policy: 1,
      config: 4,
      realm: 0,
      session: 0,
      machinetoken: 0,
      event: 0,
    });
  });

  it('loses no increment when two nodes write at once, the first time included', async () => {
    const writes = [
      () => setConfig(a.ctx, [{ key: 'k.a', value: '1' }]),
      () => setConfig(bctx, [{ key: 'k.b', value: '1' }]),
      () => setConfig(a.ctx, [{ key: 'k.c', value: '1' }]),
      () => setConfig(bctx, [{ key: 'k.d', value: '1' }]),
    ];
    // Two SQLite connections in one thread cannot wait for each other's write lock (the wait
    // blocks the thread the holder needs): there the writes of the two nodes take turns.
    if (dialect === 'sqlite') for (const w of writes) await w();
    else await Promise.all(writes.map((w) => w()));
    expect((await metaRow(a.rt, CONFIG_VERSION_ROW))?.value).toBe('4');
    // A policy counter row missing (a database from before migration 0004's row) is inserted too.
    await a.rt.store.db.deleteFrom('meta').where('name', '=', POLICY_VERSION_ROW).execute();
    await a.rt.store.db.transaction().execute((trx) => bumpCounter(trx, a.rt.store, POLICY_VERSION_ROW));
    expect((await metaRow(a.rt, POLICY_VERSION_ROW))?.value).toBe('1');
  });

  it('applies a change to the next check, made on this node or on another one', async () => {
    expect(await accepts(a.rt, pass(true))).toBe(true);
    expect(await accepts(b, pass(true))).toBe(true);
    // Written on node a: both nodes check the PIN after the OTP value from the next check on.
    await setConfig(a.ctx, [{ key: 'PrependPin', value: 'False' }]);
    expect(await accepts(a.rt, pass(false))).toBe(true);
    expect(await accepts(b, pass(false))).toBe(true);
    // Deleted on node b: the default (True) again, on both.
    await deleteConfig(bctx, 'PrependPin');
    expect(await accepts(b, pass(true))).toBe(true);
    expect(await accepts(a.rt, pass(true))).toBe(true);
    expect(await accepts(a.rt, pass(false))).toBe(false);
  });

  it('reads the meta table once and the config table not at all in a check when nothing changed', async () => {
    await setConfig(a.ctx, [{ key: 'no_auth_counter', value: 'False' }]);
    // Warm: policies compiled, configuration loaded, the client row written.
    expect(await accepts(b, pass(true))).toBe(true);
    const reads = countReads(b);
    for (let i = 0; i < 3; i++) {
      expect(await accepts(b, pass(true))).toBe(true);
      const r = reads.take();
      expect(r, r.sql.join('\n')).toMatchObject({ meta: 1, config: 0 });
    }
    // After a change on the other node, the next check reloads the configuration once.
    await setConfig(a.ctx, [{ key: 'failcounter_clear_timeout', value: '5' }]);
    expect(await accepts(b, pass(true))).toBe(true);
    expect(reads.take()).toMatchObject({ meta: 1, config: 1 });
    expect(await accepts(b, pass(true))).toBe(true);
    expect(reads.take()).toMatchObject({ meta: 1, config: 0 });
  });

  it('shares one read of the counters and of the rows among concurrent readers', async () => {
    await setConfig(a.ctx, [
      { key: 'DefaultChallengeValidityTime', value: '300' },
      { key: 'AutoResync', value: 'True' },
      { key: 'smtp.password', value: 'secret', type: 'password' },
    ]);
    const reads = countReads(b);
    const [flag, n, settings, snapshot] = await Promise.all([
      configFlag(b, 'AutoResync', false),
      configNumber(b, 'DefaultChallengeValidityTime', 120),
      typeSettings(b),
      configSnapshot(b),
    ]);
    expect(reads.take()).toMatchObject({ meta: 1, config: 1 });
    expect(flag).toBe(true);
    expect(n).toBe(300);
    expect(await configFlag(b, 'PrependPin', true)).toBe(true);
    expect(await configNumber(b, 'SerialLength', 8)).toBe(8);
    // Password-typed values stay sealed in the snapshot, and token types never see them.
    expect(snapshot.get('smtp.password')?.value).toMatch(/^aesgcm1:/);
    expect(settings.get('smtp.password')).toBeUndefined();
    expect(settings.get('DefaultChallengeValidityTime')).toBe('300');
  });

  it('hands out no read begun before a local write', async () => {
    await setConfig(a.ctx, [{ key: 'x.warm', value: '1' }]);
    // A snapshot read whose rows arrive only after the next write has committed.
    const gate = holdStatements(a.rt, /^select .* from ["`]config["`]$/i);
    const before = configFlag(a.rt, 'AutoResync', false);
    while (!gate.holding()) await sleep(5);
    gate.stop();
    await setConfig(a.ctx, [{ key: 'AutoResync', value: 'True' }]);
    const after = configFlag(a.rt, 'AutoResync', false);
    expect(await Promise.race([after, sleep(3000).then(() => 'joined the read begun before')])).toBe(true);
    gate.release();
    expect(await before).toBe(false);
    // Nor does that read, ending last, leave its rows in the cache.
    expect(await configFlag(a.rt, 'AutoResync', false)).toBe(true);
    expect(await configFlag(b, 'AutoResync', false)).toBe(true);
    await deleteConfig(a.ctx, 'AutoResync');
    expect(await configFlag(a.rt, 'AutoResync', false)).toBe(false);
  });
});
