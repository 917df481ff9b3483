import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pythonUnquote } from '../../src/http/unquote.ts';

/** Runs Python's urllib.parse.unquote over every input; the answer comes back as ASCII-only JSON. */
function pythonReference(inputs: string[]): string[] {
  const script =
    'import json, sys, urllib.parse\n' +
    'print(json.dumps([urllib.parse.unquote(s) for s in json.load(sys.stdin)]))\n';
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(inputs), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

const TRICKY = [
  '',
  'plain',
  'a+b',
  'ab%41',
  'ab%2541',
  '%41%42%43',
  '%zz',
  '%',
  '%%',
  '%4',
  '%4g',
  '%41%',
  '100%',
  '%%41',
  '%25',
  '%2525',
  '%00',
  '%0A%0d',
  '%7F',
  '%c3%a9',
  '%C3%A9',
  '%C3',
  '%C3x',
  '%C3%zz%A9',
  '%C3é%A9',
  'é%41',
  '€%E2%82%AC€',
  '%E2%82',
  '%E2%82x',
  '%E2%28%A1',
  '%F0%9F%98%80',
  '%F0%9F%98',
  '%F0%9F%98%80%F0',
  '%ED%A0%80',
  '%ED%B0%80',
  '%C0%AF',
  '%E0%80%AF',
  '%F0%80%80',
  '%F4%90%80%80',
  '%F8%88%80%80%80',
  '%80',
  '%BF%80',
  '%FF%FE',
  '%FE%FF%41',
  'x%C3%A9y%zz%41z',
  '😀%F0%9F%98%80😀',
  '%ef%bb%bfBOM',
  ' %20 ',
];

describe('pythonUnquote', () => {
  it('decodes exactly like urllib.parse.unquote for tricky inputs', () => {
    const expected = pythonReference(TRICKY);
    expect(expected).toHaveLength(TRICKY.length);
    const pairs = (out: string[]) => TRICKY.map((input, i) => ({ input, out: out[i] }));
    expect(pairs(TRICKY.map(pythonUnquote))).toEqual(pairs(expected));
  });

  it('decodes one level only, keeps invalid escapes and replaces invalid UTF-8', () => {
    expect(pythonUnquote('ab%2541')).toBe('ab%41');
    expect(pythonUnquote('ab%41')).toBe('abA');
    expect(pythonUnquote('%zz%41')).toBe('%zzA');
    expect(pythonUnquote('%FF')).toBe('\uFFFD');
    expect(pythonUnquote('%C3%A9')).toBe('é');
    expect(pythonUnquote('a+b')).toBe('a+b');
    expect(pythonUnquote('%EF%BB%BFx')).toBe('\uFEFFx');
  });
});
