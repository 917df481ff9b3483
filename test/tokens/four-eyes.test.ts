// The 4eyes token's record of the tokens presented so far: realm names are keys, also those
// named like Object.prototype members.
import { describe, expect, it } from 'vitest';
import { missingEyes, newEyes, parseEyes, requirementsOf } from '../../src/tokens/four-eyes.ts';

describe('eyes by realm', () => {
  it('keeps realms named __proto__ and constructor as keys through JSON and copies', () => {
    const eyes = parseEyes('{"__proto__":["S1"],"constructor":["S2","S3"],"x":"not a list"}');
    expect(Object.keys(eyes)).toEqual(['__proto__', 'constructor']);
    const proto: string = '__proto__';
    expect(eyes[proto]).toEqual(['S1']);
    const copy = newEyes(eyes);
    const ctor: string = 'constructor';
    copy[ctor]!.push('S4');
    expect(eyes[ctor]).toEqual(['S2', 'S3']);
    expect(JSON.stringify(copy)).toBe('{"__proto__":["S1"],"constructor":["S2","S3","S4"]}');
    const fresh = newEyes();
    fresh[proto] = ['S9'];
    expect(Object.keys(fresh)).toEqual(['__proto__']);
  });

  it('counts the tokens still missing in such a realm', () => {
    const required = requirementsOf({ info: { '4eyes': '__proto__:2' } } as never);
    expect([...missingEyes(required, parseEyes('{"__proto__":["S1"]}'))]).toEqual([['__proto__', 1]]);
  });
});
