import { describe, expect, it } from 'vitest';
import { RequestBodyError } from '../../src/errors.ts';
import {
  checkJsonDepth,
  formPairCount,
  ParameterBudget,
  REQUEST_LIMITS,
} from '../../src/http/request-limits.ts';

/** A JSON text of `levels` objects and arrays: the body's object holding arrays inside arrays. */
function nested(levels: number): unknown {
  return JSON.parse(`{"nonce": ${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`);
}

describe('formPairCount', () => {
  it('counts the pairs URLSearchParams reads, skipping empty pieces', () => {
    for (const text of ['', 'a', 'a=1', 'a=1&b=2', '&&a=1&&', '=', '=&=', 'a&b&c', '&', 'a=1&b=2&'])
      expect({ text, n: formPairCount(text, 1000) }).toEqual({
        text,
        n: [...new URLSearchParams(text)].length,
      });
  });

  it('stops counting once the limit is exceeded', () => {
    expect(formPairCount('a&'.repeat(100_000), 10)).toBe(11);
  });
});

describe('ParameterBudget', () => {
  it('allows the limit and refuses one more with HTTP 400', () => {
    const budget = new ParameterBudget();
    budget.spend(REQUEST_LIMITS.parameters - 1);
    budget.spend(1);
    expect(budget.left).toBe(0);
    const e = (() => {
      try {
        budget.spend(1);
      } catch (x) {
        return x;
      }
    })() as RequestBodyError;
    expect(e).toBeInstanceOf(RequestBodyError);
    expect([e.httpStatus, e.code, e.message]).toEqual([
      400,
      905,
      'The request has more than 1000 parameters',
    ]);
  });
});

describe('checkJsonDepth', () => {
  it('accepts the limit of levels, the body object counted, and refuses one more with HTTP 400', () => {
    expect(() => checkJsonDepth(nested(REQUEST_LIMITS.depth))).not.toThrow();
    expect(() => checkJsonDepth(nested(REQUEST_LIMITS.depth + 1))).toThrow(
      'The JSON request body is nested deeper than 32 levels',
    );
  });

  it('walks objects and arrays alike, and values of any depth without overflowing the stack', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? [deep] : { k: deep };
    expect(() => checkJsonDepth({ a: 1, deep })).toThrow(RequestBodyError);
    expect(() => checkJsonDepth({ a: [1, { b: [2] }], c: 'text', d: null })).not.toThrow();
  });
});
