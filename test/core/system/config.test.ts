import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { withCaller } from '../../../src/core/context.ts';
import {
  CENSORED,
  deleteConfig,
  getConfigValue,
  listConfig,
  setConfig,
  setDefaults,
  validateEntry,
} from '../../../src/core/system/config.ts';
import { ParameterError, ResourceNotFoundError } from '../../../src/errors.ts';
import { testDialects } from '../../helpers/dialects.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

describe('validateEntry', () => {
  it('normalises known keys and booleans', () => {
    expect(validateEntry({ key: 'DefaultOtpLen', value: '8' }).value).toBe('8');
    expect(validateEntry({ key: 'DefaultMaxFailCount', value: ' 007 ' }).value).toBe('7');
    expect(validateEntry({ key: 'PrependPin', value: 'TRUE' }).value).toBe('True');
    expect(validateEntry({ key: 'no_auth_counter', value: '0' }).value).toBe('False');
    expect(validateEntry({ key: 'DefaultResetFailCount', value: 'false' }).value).toBe('False');
    expect(validateEntry({ key: 'free.key', value: 'anything' })).toEqual({
      key: 'free.key',
      value: 'anything',
      type: '',
      description: '',
    });
  });

  it('refuses bad keys, types and values', () => {
    const bad: Parameters<typeof validateEntry>[0][] = [
      { key: 'DefaultOtpLen', value: '7' },
      { key: 'DefaultSyncWindow', value: '0' },
      { key: 'SerialLength', value: '100' },
      { key: 'AutoResync', value: 'yes please' },
      { key: 'n', value: '1e3', type: 'int' },
      { key: 'n', value: 'x', type: 'float' },
      { key: '.hidden', value: 'x' },
      { key: 'white space', value: 'x' },
      { key: 'ctl\u0001', value: 'x' },
      { key: 'k.type', value: 'password' },
      { key: 'k.desc', value: 'd' },
      { key: 'k', value: 'x'.repeat(70_000) },
      { key: 'k', value: 'x', description: 'd'.repeat(3000) },
      { key: 'k', value: 'nul\u0000' },
    ];
    for (const e of bad)
      expect(() => validateEntry(e), JSON.stringify(e).slice(0, 80)).toThrow(ParameterError);
  });

  it("takes keys named like an object's inherited members as ordinary keys", () => {
    // Found by test/e2e/fuzz.test.ts: `hasOwnProperty` was looked up as a known key's validator.
    for (const key of [
      'constructor',
      'hasOwnProperty',
      'valueOf',
      'toString',
      '__proto__',
      '__defineGetter__',
    ])
      expect(validateEntry({ key, value: '1' })).toEqual({ key, value: '1', type: '', description: '' });
  });

  it('validates with the stored type when none is given', () => {
    expect(() => validateEntry({ key: 'n', value: 'abc' }, { type: 'int', description: '' })).toThrow(
      ParameterError,
    );
    expect(validateEntry({ key: 'p', value: 's' }, { type: 'password', description: 'd' })).toEqual({
      key: 'p',
      value: 's',
      type: 'password',
      description: 'd',
    });
    expect(
      validateEntry({ key: 'p', value: 's', type: '' }, { type: 'password', description: 'd' }).type,
    ).toBe('');
  });
});

describe.each(testDialects())('system config service on %s', (dialect) => {
  let t: TestRuntime;
  beforeEach(async () => {
    t = await openTestRuntime(dialect);
  });
  afterEach(async () => t?.close());

  const stored = (name: string) =>
    t.rt.store.db.selectFrom('config').selectAll().where('name', '=', name).executeTakeFirst();

  it('inserts, then updates, and says which', async () => {
    expect(
      await setConfig(t.ctx, [
        { key: 'a', value: '1' },
        { key: 'b', value: '2' },
      ]),
    ).toEqual({
      a: 'insert',
      b: 'insert',
    });
    expect(await setConfig(t.ctx, [{ key: 'a', value: '1' }])).toEqual({ a: 'update' });
    expect(await setConfig(t.ctx, [{ key: 'a', value: '3' }])).toEqual({ a: 'update' });
    expect(await getConfigValue(t.ctx, 'a')).toBe('3');
  });

  it('keeps keys that differ only in case apart', async () => {
    await setConfig(t.ctx, [
      { key: 'Mixed', value: 'upper' },
      { key: 'mixed', value: 'lower' },
    ]);
    expect(await getConfigValue(t.ctx, 'Mixed')).toBe('upper');
    expect(await getConfigValue(t.ctx, 'mixed')).toBe('lower');
  });

  it('seals passwords and lists them censored', async () => {
    await setConfig(t.ctx, [{ key: 'pw', value: 'clear-text', type: 'password', description: 'a secret' }]);
    const row = (await stored('pw'))!;
    expect(row.value.startsWith('aesgcm1:')).toBe(true);
    expect(t.rt.hsm.decrypt(row.value)).toBe('clear-text');
    expect((await listConfig(t.ctx)).pw).toBe(CENSORED);
    expect(await getConfigValue(t.ctx, 'pw')).toBe(CENSORED);
    expect(await deleteConfig(t.ctx, 'pw')).toBe(CENSORED);
  });

  it('stores a long value and a non-ASCII one unchanged', async () => {
    const long = 'ä😀'.repeat(10_000);
    await setConfig(t.ctx, [{ key: 'long', value: long, type: 'text' }]);
    expect(await getConfigValue(t.ctx, 'long')).toBe(long);
  });

  it('stores nothing when one entry is bad, including a stored-type violation', async () => {
    await setConfig(t.ctx, [{ key: 'n', value: '1', type: 'int' }]);
    await expect(
      setConfig(t.ctx, [
        { key: 'fresh', value: 'x' },
        { key: 'n', value: 'not a number' },
      ]),
    ).rejects.toThrow(ParameterError);
    expect(await stored('fresh')).toBeUndefined();
    expect((await stored('n'))?.value).toBe('1');
    await expect(setConfig(t.ctx, [])).rejects.toThrow(ParameterError);
  });

  it('shows users only public keys and .identifier keys, without the admin defaults', async () => {
    await setConfig(t.ctx, [
      { key: 'pub', value: 'p', type: 'public' },
      { key: 'sms.identifier', value: 'gw' },
      { key: 'private', value: 'x' },
    ]);
    const user = withCaller(t.rt, {
      role: 'user',
      username: 'u',
      realm: 'r',
      authtype: 'password',
      client: '',
    });
    expect(await listConfig(user)).toEqual({ pub: 'p', 'sms.identifier': 'gw' });
    expect(await getConfigValue(user, 'private')).toBeNull();
    const admin = await listConfig(t.ctx);
    expect(admin).toMatchObject({ PrependPin: 'True', private: 'x', pub: 'p' });
  });

  it("stores, lists, reads and deletes keys named like an object's inherited members", async () => {
    const keys = ['constructor', 'hasOwnProperty', 'isPrototypeOf', '__proto__'];
    expect(await getConfigValue(t.ctx, 'constructor')).toBeNull();
    await setConfig(
      t.ctx,
      keys.map((key) => ({ key, value: `v-${key}` })),
    );
    const listed = await listConfig(t.ctx);
    for (const key of keys) {
      expect(Object.hasOwn(listed, key), key).toBe(true);
      expect(listed[key]).toBe(`v-${key}`);
      expect(await getConfigValue(t.ctx, key)).toBe(`v-${key}`);
      expect(await deleteConfig(t.ctx, key)).toBe(`v-${key}`);
    }
  });

  it('lets a stored value override a true-when-absent default', async () => {
    await setConfig(t.ctx, [{ key: 'IncFailCountOnFalsePin', value: 'false' }]);
    expect((await listConfig(t.ctx)).IncFailCountOnFalsePin).toBe('False');
    expect(await deleteConfig(t.ctx, 'IncFailCountOnFalsePin')).toBe('False');
    expect((await listConfig(t.ctx)).IncFailCountOnFalsePin).toBe('True');
  });

  it('deletes and returns the value, unknown keys are not found', async () => {
    await setConfig(t.ctx, [{ key: 'd', value: 'v' }]);
    expect(await deleteConfig(t.ctx, 'd')).toBe('v');
    await expect(deleteConfig(t.ctx, 'd')).rejects.toThrow(ResourceNotFoundError);
  });

  it('sets defaults case-insensitively, refuses unknown names and no names', async () => {
    expect(await setDefaults(t.ctx, { defaultotplen: '8', DefaultCountWindow: '15' })).toEqual({
      DefaultOtpLen: 'insert',
      DefaultCountWindow: 'insert',
    });
    expect(await getConfigValue(t.ctx, 'DefaultOtpLen')).toBe('8');
    await expect(setDefaults(t.ctx, { DefaultOtpLen: '6', Bogus: '1' })).rejects.toThrow(/Bogus/);
    expect(await getConfigValue(t.ctx, 'DefaultOtpLen')).toBe('8');
    const none = await setDefaults(t.ctx, {}).catch((e: ParameterError) => e);
    expect(none).toBeInstanceOf(ParameterError);
    expect((none as ParameterError).code).toBe(77);
    expect((none as ParameterError).wireMessage()).toBe(
      'ERR77: Usage: parameters are: DefaultMaxFailCount, DefaultSyncWindow, DefaultCountWindow, DefaultOtpLen, DefaultResetFailCount',
    );
  });
});
