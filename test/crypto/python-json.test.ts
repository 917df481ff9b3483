import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { pythonJsonDumps, pythonJsonMembers, pythonJsonObject } from '../../src/crypto/python-json.ts';

/** json.dumps(json.loads(text), sort_keys=True) for every text, computed by python3 itself. */
function pythonDumps(texts: string[]): string[] {
  const script =
    'import json, sys\n' +
    'print(json.dumps([json.dumps(json.loads(t), sort_keys=True) for t in json.load(sys.stdin)]))\n';
  const r = spawnSync('python3', ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

// JSON texts as a client or a service could produce them; each is parsed by JavaScript and by
// Python and both serialisations must agree byte for byte.
const TEXTS = [
  'null',
  'true',
  'false',
  '0',
  '-1',
  '42',
  '9007199254740991',
  '-9007199254740991',
  '9007199254740992',
  '1152921504606846976',
  '100000000000000000000',
  '0.1',
  '-0.1',
  '0.5',
  '1.5',
  '2.675',
  '1e-7',
  '-1e-7',
  '1.5e-10',
  '0.0001',
  '0.00001',
  '0.001234',
  '1e21',
  '1e22',
  '-1e21',
  '1.7976931348623157e308',
  '5e-324',
  '123456789.123',
  '-123456789.123',
  '1718000000.123456',
  '1718000000.5',
  '3.141592653589793',
  '1e300',
  '1.2345678901234567e+25',
  '""',
  '"plain ascii"',
  '"quote \\" backslash \\\\ slash /"',
  '"\\n\\r\\t\\b\\f"',
  '"\\u0000\\u0001\\u001f \\u007f"',
  '"tilde ~ and space"',
  '"é ü ß € ™"',
  '"\\u00ff\\u0100\\uffff"',
  '"😀 astral 𝄞"',
  '"\\ud83d\\ude00"',
  '"\\u2028\\u2029"',
  '"<script>&amp;</script>"',
  '[]',
  '{}',
  '[[], {}, [{}], {"a": []}]',
  '[1, "two", 3.5, null, true, false]',
  '{"b": 1, "a": 2, "c": {"z": [3, 2, 1], "y": {"x": null}}}',
  '{"B": 1, "a": 2, "_": 3, "1": 4, "": 5, "aa": 6, "a ": 7}',
  '{"é": 1, "e": 2, "z": 3, "€": 4, "😀": 5, "\\uffff": 6, "\\u00e9x": 7}',
  '{"\\ud83d\\ude00": "astral key sorts after BMP keys", "\\uff5e": "fullwidth tilde"}',
  '{"nested": {"deeper": {"deepest": [{"k": "v", "a": [1, {"y": 2, "x": 1}]}]}}}',
  '{"id": 1, "jsonrpc": "2.0", "result": {"status": true, "value": {"token": "x.y.z", "rights": ["a", "b"]}}, "time": 1718000000.123, "version": "privacyIDEA 3.13.3"}',
];

describe('pythonJsonDumps', () => {
  it('serialises like python3 json.dumps(json.loads(x), sort_keys=True)', () => {
    const expected = pythonDumps(TEXTS);
    expect(expected).toHaveLength(TEXTS.length);
    const pairs = (out: string[]) => TEXTS.map((input, i) => ({ input, out: out[i] }));
    expect(pairs(TEXTS.map((t) => pythonJsonDumps(JSON.parse(t))))).toEqual(pairs(expected));
  });

  it('round-trips through Python unchanged (the signed text is the text Python re-serialises)', () => {
    const values: unknown[] = [
      { time: Date.UTC(2024, 5, 10, 6, 13, 20, 123) / 1000, id: 2, nested: { list: [0.1, -2.5e-8, 7] } },
      { s: 'é\u0000\u007f😀', empty: '', obj: {}, arr: [] },
      [1e16, 123456789012345680000, 2 ** 53, -(2 ** 60)],
    ];
    const ours = values.map(pythonJsonDumps);
    expect(pythonDumps(ours)).toEqual(ours);
  });

  it('escapes non-ASCII and control characters as lower-case \\uXXXX, surrogate pairs for astral', () => {
    expect(pythonJsonDumps('é\u007f\u0001😀')).toBe('"\\u00e9\\u007f\\u0001\\ud83d\\ude00"');
    expect(pythonJsonDumps({ b: 1, a: [true, null] })).toBe('{"a": [true, null], "b": 1}');
  });

  it('leaves out undefined members like JSON.stringify and Python never sees them', () => {
    expect(pythonJsonDumps({ a: undefined, b: 1 })).toBe('{"b": 1}');
    expect(pythonJsonDumps([undefined])).toBe('[null]');
  });
});

describe('pythonJsonObject: an object from members serialised once', () => {
  it('is the text pythonJsonDumps writes for the object with one more member', () => {
    const body = JSON.parse(TEXTS[TEXTS.length - 1]!) as Record<string, unknown>;
    const extra = {
      ...body,
      '😀': 'astral',
      '\uffff': 'last BMP',
      nonce: 'n',
      signature: 'rsa_sha256_pss:ab',
    };
    const members = pythonJsonMembers({ ...body, '😀': 'astral', '\uffff': 'last BMP', nonce: 'n' });
    expect(pythonJsonObject(members)).toBe(
      pythonJsonDumps({ ...body, '😀': 'astral', '\uffff': 'last BMP', nonce: 'n' }),
    );
    expect(pythonJsonObject([...members, ['signature', pythonJsonDumps('rsa_sha256_pss:ab')]])).toBe(
      pythonJsonDumps(extra),
    );
  });

  it('leaves out undefined and function members; sorts the members it is given', () => {
    expect(pythonJsonMembers({ a: 1, b: undefined, c: () => 1 })).toEqual([['a', '1']]);
    expect(
      pythonJsonObject([
        ['b', '1'],
        ['a', '"x"'],
      ]),
    ).toBe('{"a": "x", "b": 1}');
  });
});
