// The stored-settings logic user resolvers and machine resolvers share, on a kind that exists only
// here: omitted settings kept, __CENSORED__ keeping a sealed secret only for its destination,
// types checked, the type fixed, the censored view, and a test of unsaved settings.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../../../src/core/context.ts';
import {
  censoredView,
  mergeSettings,
  parseStored,
  settingsToSave,
  testBase,
  testSettings,
} from '../../../src/core/plugin-settings/index.ts';
import type { SettingsKind } from '../../../src/resolvers/index.ts';
import { openTestRuntime, type TestRuntime } from '../../helpers/runtime.ts';

const toy: SettingsKind = {
  type: 'toy',
  settings: {
    URL: { type: 'string', description: 'where', required: true },
    USER: { type: 'string', description: 'who' },
    PASS: { type: 'password', description: 'secret', destination: ['URL', 'USER'] },
    COUNT: { type: 'int', description: 'how many', default: '3' },
  },
  async test(settings) {
    if (settings.URL === 'throw') throw new Error('boom');
    return { value: settings.PASS === 'right', description: `tried ${settings.URL}` };
  },
  warnings: (settings) => (settings.COUNT === '0' ? ['COUNT 0 does nothing.'] : []),
};
const NOT = new Set(['type', 'resolver']);

// Settings are no database rows: one dialect is enough.
describe('plugin settings', () => {
  let t: TestRuntime;
  let ctx: Context;
  beforeAll(async () => {
    t = await openTestRuntime('sqlite');
    ctx = t.ctx;
  });
  afterAll(async () => t?.close());

  const save = (params: Record<string, string>, existing?: { name: string; type: string; config: string }) =>
    settingsToSave(ctx, { label: 'Toy', name: 'x', existing, params, notSettings: NOT, kindOf: () => toy });

  it('seals secrets, censors them, keeps omitted settings and refuses another type', () => {
    const first = save({ type: 'toy', URL: 'a', USER: 'u', PASS: 'p' });
    expect(first.config).not.toContain('"p"');
    const stored = { name: 'x', type: 'toy', config: first.config };
    expect(censoredView('x', 'toy', first.config)).toEqual({
      resolvername: 'x',
      type: 'toy',
      data: { URL: 'a', USER: 'u', PASS: '__CENSORED__' },
      censor_keys: ['PASS'],
    });
    const second = save({ COUNT: '0', PASS: '__CENSORED__' }, stored);
    expect(second.warnings).toEqual(['COUNT 0 does nothing.']);
    expect(parseStored(ctx, second.config).settings).toEqual({ URL: 'a', USER: 'u', PASS: 'p', COUNT: '0' });
    // An empty value removes a setting (the account is the secret's destination: give it again).
    expect(() => save({ USER: '' }, stored)).toThrow(/^PASS must be given again: USER differs/);
    expect(parseStored(ctx, save({ USER: '', PASS: 'p2' }, stored).config).settings).toEqual({
      URL: 'a',
      PASS: 'p2',
    });
    expect(() => save({ type: 'other' }, stored)).toThrow(
      "Toy 'x' is a toy; its type cannot be changed to other",
    );
    expect(() => save({ URL: 'a' })).toThrow("Missing parameter: 'type'");
  });

  it('keeps a stored secret only for its destination, and checks types and names', () => {
    const stored = { settings: { URL: 'a', USER: 'u', PASS: 'p' }, secrets: new Set(['PASS']) };
    expect(() => mergeSettings(toy, { URL: 'evil' }, NOT, stored, ctx.files)).toThrow(
      /^PASS must be given again: URL differs from the stored settings/,
    );
    expect(mergeSettings(toy, { URL: 'b', PASS: 'q' }, NOT, stored, ctx.files).settings.PASS).toBe('q');
    expect(() => mergeSettings(toy, { COUNT: 'many' }, NOT, stored, ctx.files)).toThrow(
      'COUNT must be a whole number',
    );
    expect(() => mergeSettings(toy, { COLOUR: 'red' }, NOT, stored, ctx.files)).toThrow(
      "Unknown setting 'COLOUR' for a toy: use URL, USER, PASS, COUNT",
    );
    expect(() =>
      mergeSettings(
        toy,
        { PASS: '__CENSORED__' },
        NOT,
        { settings: { URL: 'a' }, secrets: new Set() },
        ctx.files,
      ),
    ).toThrow('PASS is __CENSORED__ but no value is stored');
  });

  it('tests unsaved settings from a stored base of the same type; a throwing test fails', async () => {
    const config = save({ type: 'toy', URL: 'a', PASS: 'right' }).config;
    const base = testBase(ctx, { name: 'x', type: 'toy', config }, 'toy');
    expect(await testSettings(ctx, toy, { PASS: '__CENSORED__' }, NOT, base)).toEqual({
      value: true,
      description: 'tried a',
    });
    expect(testBase(ctx, { name: 'x', type: 'other', config }, 'toy')).toEqual({
      settings: {},
      secrets: new Set(),
    });
    expect(await testSettings(ctx, toy, { URL: 'throw', PASS: 'x', COUNT: '0' }, NOT, base)).toEqual({
      value: false,
      description: 'boom. COUNT 0 does nothing.',
    });
  });
});
