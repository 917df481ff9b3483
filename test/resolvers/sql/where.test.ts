// Every form the SQL resolver's Where setting accepts, and every refusal with its message (the
// position names the character where reading stopped, counted in the trimmed text). The settings
// and the statements built from them are tested in resolver.test.ts.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../../src/errors.ts';
import { parseWhere, type WhereCondition } from '../../../src/resolvers/sql/where.ts';

const ALLOWED =
  'Allowed: column <op> value joined by AND, with <op> one of = == != <> < > <= >= LIKE, NOT LIKE, or column IS [NOT] NULL';

const one = (column: string, op: WhereCondition['op'], value: WhereCondition['value']) => [
  { column, op, value },
];

describe('parseWhere accepts', () => {
  it.each([
    ['', []],
    ['   ', []],
    ['\t\n', []],
  ])('nothing: %j', (text, expected) => {
    expect(parseWhere(text)).toEqual(expected);
  });

  it.each([
    ['a = 1', '='],
    ['a == 1', '='],
    ['a != 1', '<>'],
    ['a <> 1', '<>'],
    ['a < 1', '<'],
    ['a > 1', '>'],
    ['a <= 1', '<='],
    ['a >= 1', '>='],
  ] as const)('each comparison sign: %j', (text, op) => {
    expect(parseWhere(text)).toEqual(one('a', op, 1));
    expect(parseWhere(text.replace(/ /g, ''))).toEqual(one('a', op, 1));
  });

  it.each([
    ['a LIKE x%', 'like', 'x%'],
    ['a like x%', 'like', 'x%'],
    ['a Like x%', 'like', 'x%'],
    ['a NOT LIKE x%', 'not like', 'x%'],
    ['a not like x%', 'not like', 'x%'],
    ['a NOT\tLIKE   x%', 'not like', 'x%'],
    ['a LIKE 12', 'like', '12'],
    ['a LIKE -1.5', 'like', '-1.5'],
    ["a LIKE 'x y'", 'like', 'x y'],
    ['a like %@example.com', 'like', '%@example.com'],
  ] as const)('LIKE and NOT LIKE, any case, the value always text: %j', (text, op, value) => {
    expect(parseWhere(text)).toEqual(one('a', op, value));
  });

  it.each([
    ['a IS NULL', 'is null'],
    ['a is null', 'is null'],
    ['a IS NOT NULL', 'is not null'],
    ['a is not null', 'is not null'],
    ['a Is  Not\nNull', 'is not null'],
  ] as const)('IS [NOT] NULL, any case: %j', (text, op) => {
    expect(parseWhere(text)).toEqual(one('a', op, null));
  });

  it.each([
    ['a = 0', 0],
    ['a = 42', 42],
    ['a = -3', -3],
    ['a = 2.5', 2.5],
    ['a = -0.25', -0.25],
    ['a = 123456789012345', 123456789012345],
    ['a = 1.123456789012345', 1.123456789012345],
  ])('numbers as numbers: %j', (text, value) => {
    expect(parseWhere(text)).toEqual(one('a', '=', value));
  });

  it.each([
    ['a = 1234567890123456', '1234567890123456'],
    ['a = 1.', '1.'],
    ['a = .5', '.5'],
    ['a = +1', '+1'],
    ['a = 1e3', '1e3'],
    ['a = 0x10', '0x10'],
    ['a = 1.2.3', '1.2.3'],
    ['a = yes', 'yes'],
    ['a = x-y', 'x-y'],
    ['a = %@b.c', '%@b.c'],
    ['a = a,b', 'a,b'],
    ['a = 1AND', '1AND'],
  ])('other bare words as text: %j', (text, value) => {
    expect(parseWhere(text)).toEqual(one('a', '=', value));
  });

  it.each([
    ["a = '1'", '1'],
    ['a = "1"', '1'],
    ["a = ''", ''],
    ['a = ""', ''],
    ["a = 'it''s'", "it's"],
    ['a = "say ""hi"""', 'say "hi"'],
    ['a = "it\'s"', "it's"],
    ['a = \'say "hi"\'', 'say "hi"'],
    ["a = 'x OR 1=1; DROP TABLE users -- (y)'", 'x OR 1=1; DROP TABLE users -- (y)'],
    ["a = ' spaced '", ' spaced '],
  ])('quoted values as text, the quote doubled inside: %j', (text, value) => {
    expect(parseWhere(text)).toEqual(one('a', '=', value));
  });

  it.each([
    ['_a = 1', '_a'],
    ['a_b = 1', 'a_b'],
    ['a1 = 1', 'a1'],
    ['a$b = 1', 'a$b'],
    ['größe = 1', 'größe'],
    ['ÄBC = 1', 'ÄBC'],
  ])('column names of letters, digits, _ and $: %j', (text, column) => {
    expect(parseWhere(text)).toEqual(one(column, '=', 1));
  });

  it('conditions joined by AND in any case, blanks of every kind around them', () => {
    expect(parseWhere('  a = 1 AND b like \'x%\'\nand c IS NULL\tAnD d <> "y"  ')).toEqual([
      { column: 'a', op: '=', value: 1 },
      { column: 'b', op: 'like', value: 'x%' },
      { column: 'c', op: 'is null', value: null },
      { column: 'd', op: '<>', value: 'y' },
    ]);
  });

  it('AND right after a quoted value', () => {
    expect(parseWhere("a='x'AND b=1")).toEqual([
      { column: 'a', op: '=', value: 'x' },
      { column: 'b', op: '=', value: 1 },
    ]);
  });

  it('at most 20 conditions', () => {
    const twenty = Array.from({ length: 20 }, (_, n) => `c${n} = ${n}`).join(' AND ');
    expect(parseWhere(twenty)).toHaveLength(20);
  });
});

describe('parseWhere refuses', () => {
  it.each([
    // what is expected, at which position of the trimmed text
    ['1=1', 'a column name', 1],
    ['=1', 'a column name', 1],
    ['(active=1)', 'a column name', 1],
    ['active=1 AND', 'a column name', 13],
    ['active=1 AND ', 'a column name', 13],
    ['a=1 AND (b=2)', 'a column name', 9],
    ['a=1 and or', 'an operator', 11],
    ['a=1 AND 2=2', 'a column name', 9],
    ['active', 'an operator', 7],
    ['active 1', 'an operator', 8],
    ['a foo 1', 'an operator', 6],
    ['users.active = 1', 'an operator', 6],
    ['a LIKE', 'a value', 7],
    ["a LIKE'x'", 'an operator', 3],
    ['a LIKEx', 'an operator', 8],
    ['a ~ 1', 'an operator', 3],
    ['a ! 1', 'an operator', 3],
    ['a NOT = 1', 'LIKE after NOT', 7],
    ['a NOT', 'LIKE after NOT', 6],
    ['a NOT NULL', 'LIKE after NOT', 11],
    ['a IS 1', 'NULL', 6],
    ['a IS', 'NULL', 5],
    ['a IS NOT 1', 'NULL', 10],
    ['a IS NOT', 'NULL', 9],
    ['a IS NULLx', 'NULL', 11],
    ['a IS NOT NOT NULL', 'NULL', 13],
    ['a =', 'a value', 4],
    ['a = ;', 'a value', 5],
    ['a = (1)', 'a value', 5],
    ['a = =1', 'a value', 5],
    ['a === 1', 'a value', 5],
    ['a = <1', 'a value', 5],
    ['a = !1', 'a value', 5],
    ['a LIKE (x)', 'a value', 8],
    ['active=sleep(5)', 'AND or the end', 13],
    ["active='1", "a closing '", 10],
    ['active="1', 'a closing "', 10],
    ["a = 'it''s", "a closing '", 11],
    ['active=1 OR 1=1', 'AND or the end', 12],
    ['active=1; DROP TABLE users', 'AND or the end', 9],
    ['active=1 -- comment', 'AND or the end', 10],
    ['a = 1 /* x */', 'AND or the end', 7],
    ["a = 'x' UNION SELECT 1", 'AND or the end', 14],
    ['a=1 ANDb=2', 'AND or the end', 5],
    ['a=1 b=2', 'AND or the end', 5],
    ['a IS NULL OR b IS NULL', 'AND or the end', 13],
    ["a='x''", "a closing '", 7],
    ["a = 'x' 'y'", 'AND or the end', 9],
  ])('%j: %s at position %i', (text, expected, position) => {
    expect(() => parseWhere(text)).toThrow(ParameterError);
    expect(() => parseWhere(text)).toThrow(
      `Where: ${expected} at position ${position} of '${text}'. ${ALLOWED}`,
    );
  });

  it('positions count in the trimmed text, the message quotes the text as given', () => {
    expect(() => parseWhere('   a OR b')).toThrow(`Where: an operator at position 5 of '   a OR b'.`);
  });

  it('a 21st condition', () => {
    const text = Array.from({ length: 21 }, (_, n) => `c${n} = ${n}`).join(' AND ');
    expect(() => parseWhere(text)).toThrow(
      `Where: at most 20 conditions at position ${text.lastIndexOf('c20')} of '${text}'.`,
    );
  });
});
