// The policy export file: authsrv's JSON values and privacyIDEA's Python-literal values.
import { describe, expect, it } from 'vitest';
import { formatPolicyFile, parsePolicyFile, parsePythonLiteral } from '../../src/policy/policy-file.ts';

describe('parsePythonLiteral', () => {
  it('reads the scalars repr() writes', () => {
    expect(parsePythonLiteral("'text'")).toBe('text');
    expect(parsePythonLiteral('"it\'s"')).toBe("it's");
    expect(parsePythonLiteral('42')).toBe(42);
    expect(parsePythonLiteral('-7')).toBe(-7);
    expect(parsePythonLiteral('+3.25')).toBe(3.25);
    expect(parsePythonLiteral('True')).toBe(true);
    expect(parsePythonLiteral('False')).toBe(false);
    expect(parsePythonLiteral('None')).toBe(null);
    expect(parsePythonLiteral('  None  ')).toBe(null);
  });

  it('reads string escapes; an unknown escape stays as written', () => {
    expect(parsePythonLiteral(String.raw`'a\nb\tc\rd\\e\'f\"g\0h'`)).toBe('a\nb\tc\rd\\e\'f"g\0h');
    expect(parsePythonLiteral(String.raw`'\x41\u00e9\U0001F600'`)).toBe('Aé😀');
    expect(parsePythonLiteral(String.raw`'\q\d+'`)).toBe(String.raw`\q\d+`);
  });

  it('reads lists, tuples and dicts, nested, with trailing commas and spaces', () => {
    expect(parsePythonLiteral("['realm1', 'realm2']")).toEqual(['realm1', 'realm2']);
    expect(parsePythonLiteral("('userinfo', 'email', 'matches', '.*', True, 'raise_error')")).toEqual([
      'userinfo',
      'email',
      'matches',
      '.*',
      true,
      'raise_error',
    ]);
    expect(parsePythonLiteral("{'tokenlist': True, 'auditlog_age': '5d', 'n': [1, (2,), {}],}")).toEqual({
      tokenlist: true,
      auditlog_age: '5d',
      n: [1, [2], {}],
    });
    expect(parsePythonLiteral('[ ]')).toEqual([]);
    expect(parsePythonLiteral('{1: None}')).toEqual({ 1: null });
  });

  it('refuses what is not one literal', () => {
    for (const bad of [
      '',
      "'open",
      "['a' 'b']",
      "{'a' 1}",
      "{'a': 1",
      '[1, 2',
      'true',
      'none',
      "'a' tail",
      String.raw`'\x4'`,
      String.raw`'\xZZ'`,
      String.raw`'\u12'`,
      "'a\\",
      'abc',
      '.5',
    ])
      expect(() => parsePythonLiteral(bad), bad).toThrow(/not a Python literal at \d+/);
  });
});

describe('parsePolicyFile', () => {
  it("reads authsrv's JSON export back to the values written", () => {
    const policies = [
      {
        name: 'pol1',
        scope: 'admin',
        action: { tokenlist: true, auditlog_age: '5d' },
        realm: ['r1'],
        active: true,
      },
      { name: 'p2', scope: 'user', action: {}, description: null, priority: 2 },
    ];
    const read = parsePolicyFile(formatPolicyFile(policies));
    expect([...read.keys()]).toEqual(['pol1', 'p2']);
    expect({ ...read.get('pol1') }).toEqual(policies[0]);
    expect({ ...read.get('p2') }).toEqual(policies[1]);
  });

  it("reads privacyIDEA's export: Python literals and bare text", () => {
    const text = [
      '[pol1]',
      'name = pol1',
      'scope = admin',
      "action = {'tokenlist': True}",
      "realm = ['realm1']",
      'active = True',
      'description = None',
      'time = Mon-Fri: 9-18',
      '# a comment',
      '',
    ].join('\n');
    expect({ ...parsePolicyFile(text).get('pol1') }).toEqual({
      name: 'pol1',
      scope: 'admin',
      action: { tokenlist: true },
      realm: ['realm1'],
      active: true,
      description: null,
      time: 'Mon-Fri: 9-18',
    });
  });

  it('refuses a line that is neither a section nor key = value', () => {
    expect(() => parsePolicyFile('name = x')).toThrow(
      "Error loading policy. Line 1 is neither '[name]' nor 'key = value'",
    );
    expect(() => parsePolicyFile('[p]\njunk')).toThrow('Line 2');
  });
});
