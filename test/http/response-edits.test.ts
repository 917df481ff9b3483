// The ResponseMangler's edits applied to an envelope: delete and set along a path, missing objects
// created on a set, values that are no object never replaced, keys like __proto__ as plain members.
import { describe, expect, it } from 'vitest';
import { applyResponseEdits, type ResponseEdit, responseBody } from '../../src/http/response-edits.ts';

const envelope = () => ({
  result: { status: true, value: true },
  detail: { message: 'matching 1 tokens', serial: 'S1' },
  version: 'privacyIDEA 3.13.3',
});

describe('applyResponseEdits', () => {
  it('deletes and sets members in order', () => {
    const env: Record<string, unknown> = envelope();
    const edits: ResponseEdit[] = [];
    const body = responseBody((edit) => edits.push(edit));
    body.delete(['detail', 'message']);
    body.set(['detail', 'site'], 'north');
    body.set(['result', 'value'], false);
    body.set(['extra', 'deep', 'count'], 3);
    body.delete(['detail', 'missing']);
    body.delete(['nothing', 'here']);
    applyResponseEdits(env, edits);
    expect(env).toEqual({
      result: { status: true, value: false },
      detail: { serial: 'S1', site: 'north' },
      version: 'privacyIDEA 3.13.3',
      extra: { deep: { count: 3 } },
    });
  });

  it('leaves values that are no object alone, and sets __proto__ as an own member', () => {
    const env: Record<string, unknown> = envelope();
    applyResponseEdits(env, [
      { op: 'set', path: ['version', 'x'], value: 'y' },
      { op: 'set', path: ['detail', '__proto__'], value: 'p' },
    ]);
    expect(env.version).toBe('privacyIDEA 3.13.3');
    const detail = env.detail as Record<string, unknown>;
    expect(Object.getPrototypeOf(detail)).toBe(Object.prototype);
    expect(Object.hasOwn(detail, '__proto__')).toBe(true);
    expect(JSON.stringify(detail)).toContain('"__proto__":"p"');
  });
});
