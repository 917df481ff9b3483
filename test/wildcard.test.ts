import { describe, expect, it } from 'vitest';
import { likeLiteral, likeWildcard, wildcardMatcher } from '../src/wildcard.ts';

/** Regular-expression and LIKE metacharacters; none of them may act as anything but itself. */
const NASTY = ['(', '[', 'a{1000000}', '(a+)+$', '.', '.*', '?', '+', '^', '$', '|', '\\', '%', '_', '!'];

/** An independent reading of a pattern for short texts: an escaped, anchored regex. */
function oracle(pattern: string): RegExp {
  const literal = (part: string) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${pattern.split('*').map(literal).join('.*')}$`, 'is');
}

/** Every text of up to `n` characters over `alphabet`. */
function texts(alphabet: string, n: number): string[] {
  let level = [''];
  const out = [''];
  for (let i = 0; i < n; i++) {
    level = level.flatMap((t) => [...alphabet].map((c) => t + c));
    out.push(...level);
  }
  return out;
}

describe('wildcardMatcher', () => {
  it('reads * as any text (also none) and every other character as itself', () => {
    const m = wildcardMatcher('a*b*c');
    expect(['abc', 'aXbYc', 'abbc', 'a*b*c'].map(m)).toEqual([true, true, true, true]);
    expect(['ab', 'acb', 'abcd', 'xabc', ''].map(m)).toEqual([false, false, false, false, false]);
    expect(wildcardMatcher('*')('')).toBe(true);
    expect(wildcardMatcher('**')('anything')).toBe(true);
    expect(wildcardMatcher('')('')).toBe(true);
    expect(wildcardMatcher('')('x')).toBe(false);
    expect(wildcardMatcher('x')(undefined)).toBe(false);
  });

  it('matches regular-expression and LIKE metacharacters literally', () => {
    for (const value of NASTY) {
      expect(wildcardMatcher(value)(value), value).toBe(true);
      expect(wildcardMatcher(`*${value}*`)(`x${value}y`), value).toBe(true);
      expect(wildcardMatcher(value)('a'), value).toBe(false);
      expect(wildcardMatcher(value)('aaaa'), value).toBe(false);
    }
    expect(wildcardMatcher('a{3}')('aaa')).toBe(false);
    expect(wildcardMatcher('[ab]')('a')).toBe(false);
    expect(wildcardMatcher('a.c')('abc')).toBe(false);
    expect(wildcardMatcher('a_c')('abc')).toBe(false);
    expect(wildcardMatcher('a%')('abc')).toBe(false);
  });

  it('is case-insensitive unless asked, both ways', () => {
    expect(wildcardMatcher('Al*E')('alICE')).toBe(true);
    expect(wildcardMatcher('Al*E', { caseSensitive: true })('alICE')).toBe(false);
    expect(wildcardMatcher('Al*E', { caseSensitive: true })('AlicE')).toBe(true);
  });

  it('agrees with an escaped regex on every short pattern and text', () => {
    const patterns = texts('ab*.', 4);
    const values = texts('ab.', 4);
    for (const pattern of patterns) {
      const m = wildcardMatcher(pattern);
      const re = oracle(pattern);
      for (const value of values) expect(m(value), `${pattern} ~ ${value}`).toBe(re.test(value));
    }
  });

  it('takes no time on patterns that backtrack exponentially as a regex, and any length', () => {
    const started = Date.now();
    const bomb = wildcardMatcher(`${'*a'.repeat(500)}*b`);
    expect(bomb('a'.repeat(100_000))).toBe(false);
    expect(wildcardMatcher('a'.repeat(100_000))('a'.repeat(100_000))).toBe(true);
    expect(wildcardMatcher(`*${'(a+)+$'.repeat(10_000)}`)('x')).toBe(false);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('LIKE patterns', () => {
  it('escape % _ and the escape character; * alone becomes %', () => {
    expect(likeLiteral('50%_off!*')).toBe('50!%!_off!!*');
    expect(likeWildcard('50%_off!*')).toBe('50!%!_off!!%');
    expect(likeWildcard('a*b**')).toBe('a%b%%');
    expect(likeWildcard('(a+)+$ [x] \\')).toBe('(a+)+$ [x] \\');
  });
});
