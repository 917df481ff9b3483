// Realm names: stored lower-case with spaces as '-', and refused when not a name.
import { describe, expect, it } from 'vitest';
import { normaliseRealmName, storedRealmName } from '../../../src/core/realm/index.ts';
import { ParameterError } from '../../../src/errors.ts';

describe('realm names', () => {
  it('are stored and looked up lower-case, trimmed, with spaces as -', () => {
    expect(storedRealmName(' My Realm ')).toBe('my-realm');
    expect(storedRealmName('CORP')).toBe('corp');
    expect(normaliseRealmName('Sales Team')).toBe('sales-team');
  });

  it('are refused with other characters', () => {
    for (const bad of ['a/b', 'a@b', '', 'ä'])
      expect(() => normaliseRealmName(bad), bad).toThrow(ParameterError);
  });
});
