// The 4eyes token's record of the tokens presented so far: realm names are keys, also those
// named like Object.prototype members.
import { describe, expect, it } from 'vitest';
import { missingEyes, newEyes, parseEyes, requirementsOf } from '../../src/tokens/four-eyes.ts';

describe('eyes by realm', () => {
  it('keeps realms named __proto__ and constructor as keys through JSON and copies', () => {
    const eyes = parseEyes('{"__proto__":["S1"],"constructor":["S2","S3"],"x":"not a list"}');
    expect(Object.keys(eyes)).toEqual(['__proto__', 'constructor']);
    expect(eyes.__proto__).toEqual(['S1']);
    const copy = newEyes(eyes);
    copy.constructor!.push('S4');
    expect(eyes.constructor).toEqual(['S2', 'S3']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":["S1"],"constructor":["S2","S3","S4"]}');
    const fresh = newEyes();
    fresh.__proto__ = ['S9'];
    expect(Object.keys(fresh)).toEqual(['__proto__']);
  });

  it('counts the tokens still missing in such a realm', () => {
    const required = requirementsOf({ info: { '4eyes': '__proto__:2' } } as never);
    expect([...missingEyes(required, parseEyes('{"__proto__":["S1"]}'))]).toEqual([['__proto__', 1]]);
  });
});
