// The ResponseMangler's pointers and typed values, and the edits it asks the answer for.
import { describe, expect, it } from 'vitest';
import type { EventRun, ResponseValue } from '../../src/event-handlers/module.ts';
import { pointerPath, responseManglerModule, typedValue } from '../../src/event-handlers/response-mangler.ts';
import { eventRun } from '../helpers/event-run.ts';

describe('ResponseMangler', () => {
  it('reads JSON pointers of 1 to 3 levels', () => {
    expect(pointerPath('/detail/message')).toEqual(['detail', 'message']);
    expect(pointerPath('/a~1b/c~0d')).toEqual(['a/b', 'c~d']);
    expect(pointerPath('/result/value/x')).toEqual(['result', 'value', 'x']);
    for (const bad of ['', '/', 'detail/message', '/a/b/c/d', '/a//b'])
      expect(() => pointerPath(bad)).toThrow(/JSON pointer/);
  });

  it('types values', () => {
    expect(typedValue('string', '42')).toBe('42');
    expect(typedValue('integer', '42')).toBe(42);
    expect(typedValue('integer', '-7')).toBe(-7);
    expect(() => typedValue('integer', '4.2')).toThrow(/not an integer/);
    expect(typedValue('bool', 'True')).toBe(true);
    expect(typedValue('bool', 'no')).toBe(false);
    expect(() => typedValue('float', '1')).toThrow(/unknown type/);
  });

  it('asks the answer for the edits, and fails without an answer', async () => {
    const edits: [string, readonly string[], ResponseValue?][] = [];
    const run: EventRun = eventRun({
      position: 'post',
      options: { 'JSON pointer': '/detail/count', type: 'integer', value: '5' },
      response: {
        delete: (path) => edits.push(['delete', path]),
        set: (path, value) => edits.push(['set', path, value]),
      },
    });
    await responseManglerModule.run('set', run);
    await responseManglerModule.run('delete', run);
    expect(edits).toEqual([
      ['set', ['detail', 'count'], 5],
      ['delete', ['detail', 'count']],
    ]);
    await expect(responseManglerModule.run('set', { ...run, response: undefined })).rejects.toThrow(
      /no JSON answer/,
    );
  });
});
