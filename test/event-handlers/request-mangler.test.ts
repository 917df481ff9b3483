// The RequestMangler on a parameter map: delete, set, set from the groups of a pattern matched at
// the start of another parameter, and a pattern that is no regular expression.
import { describe, expect, it } from 'vitest';
import type { EventRun } from '../../src/event-handlers/module.ts';
import { formatGroups, requestManglerModule } from '../../src/event-handlers/request-mangler.ts';
import { eventRun } from '../helpers/event-run.ts';

function runWith(params: Record<string, string>, options: Record<string, string>): EventRun {
  return eventRun({
    position: 'pre',
    options,
    parameters: {
      get: (name) => params[name],
      set: (name, value) => {
        params[name] = value;
      },
      delete: (name) => {
        delete params[name];
      },
    },
  });
}

describe('RequestMangler', () => {
  it('deletes a parameter', async () => {
    const params = { user: 'alice', pass: 'x' };
    expect(await requestManglerModule.run('delete', runWith(params, { parameter: 'pass' }))).toBe(true);
    expect(params).toEqual({ user: 'alice' });
  });

  it('sets a parameter, unconditionally or from the groups of a match at the start', async () => {
    const params: Record<string, string> = { user: 'alice@corp' };
    await requestManglerModule.run('set', runWith(params, { parameter: 'realm', value: 'fixed' }));
    expect(params.realm).toBe('fixed');
    const fromGroups = {
      parameter: 'realm',
      value: '{1}-{0}',
      match_parameter: 'user',
      match_pattern: '(\\w+)@(\\w+)',
    };
    await requestManglerModule.run('set', runWith(params, fromGroups));
    expect(params.realm).toBe('corp-alice');
    // Matched at the start only, as Python's re.match.
    const later = { ...fromGroups, match_pattern: 'corp', value: 'no' };
    await requestManglerModule.run('set', runWith(params, later));
    expect(params.realm).toBe('corp-alice');
    // A missing match parameter sets nothing either.
    await requestManglerModule.run('set', runWith(params, { ...fromGroups, match_parameter: 'serial' }));
    expect(params.realm).toBe('corp-alice');
  });

  it('fails for a pattern that is no regular expression and for a run without parameters', async () => {
    const bad = { parameter: 'realm', value: 'x', match_parameter: 'user', match_pattern: '(' };
    await expect(requestManglerModule.run('set', runWith({ user: 'a' }, bad))).rejects.toThrow(
      /not a regular expression/,
    );
    const run = runWith({}, { parameter: 'x' });
    delete run.parameters;
    await expect(requestManglerModule.run('delete', run)).rejects.toThrow(/no parameters/);
  });

  it('formats groups as Python does for {n}; unmatched groups are empty, unknown indexes kept', () => {
    expect(formatGroups('{0}/{1}/{2}', ['a', undefined])).toBe('a//{2}');
  });
});
