import { describe, expect, it } from 'vitest';
import { textList } from '../src/text-list.ts';

describe('textList', () => {
  it('splits comma-separated text, trimming items and dropping empty ones', () => {
    expect(textList(' a, b ,,c , ')).toEqual(['a', 'b', 'c']);
    expect(textList('')).toEqual([]);
    expect(textList('a b')).toEqual(['a b']);
  });

  it('takes a list as it is, items trimmed and made text', () => {
    expect(textList([' x', 'y ', '', 3])).toEqual(['x', 'y', '3']);
  });

  it('reads nothing as the empty list', () => {
    expect(textList(undefined)).toEqual([]);
    expect(textList(null)).toEqual([]);
  });
});
