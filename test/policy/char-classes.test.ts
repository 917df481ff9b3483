// The pure parts of the OTP PIN rules: reading an otp_pin_contents value (plain, +grouping,
// -exclusion, [characters]), the failure texts as privacyIDEA builds them, random PINs that fit the
// value, and the per-type actions declared for every token type.
import { describe, expect, it } from 'vitest';
import { policyDefinitions } from '../../src/core/policy/index.ts';
import { PolicyError } from '../../src/errors.ts';
import { PIN_CLASSES, pinCharsets, pinContentsError, randomPin } from '../../src/policy/char-classes.ts';

/** The definitions of the server: the static table and the registered token types. */
const { actionDef } = policyDefinitions();

const { c: LETTERS, n: DIGITS, s: PUNCTUATION } = PIN_CLASSES;
const ALL = LETTERS + DIGITS + PUNCTUATION;
const NOT_ALLOWED = 'Not allowed character in PIN!';
const MISSING = (set: string) => `Missing character in PIN: ${set}`;

describe('otp_pin_contents', () => {
  it('has the classes of Python string.ascii_letters, digits and punctuation', () => {
    expect(LETTERS).toBe('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ');
    expect(DIGITS).toBe('0123456789');
    expect(PUNCTUATION).toBe('!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~');
  });

  it('reads the four modes', () => {
    expect(pinCharsets('cn')).toEqual({ allowed: ALL, required: [LETTERS, DIGITS] });
    expect(pinCharsets('snc')).toEqual({ allowed: ALL, required: [PUNCTUATION, DIGITS, LETTERS] });
    expect(pinCharsets('+cn')).toEqual({ allowed: ALL, required: [LETTERS + DIGITS] });
    expect(pinCharsets('+nc')).toEqual({ allowed: ALL, required: [DIGITS + LETTERS] });
    expect(pinCharsets('-ns')).toEqual({ allowed: LETTERS, required: [] });
    expect(pinCharsets('-c')).toEqual({ allowed: DIGITS + PUNCTUATION, required: [] });
    expect(pinCharsets('[abc]')).toEqual({ allowed: 'abc', required: [] });
    expect(pinCharsets('[a-c]')).toEqual({ allowed: 'a-c', required: [] });
  });

  it('refuses unknown specifiers with 303', () => {
    for (const bad of ['o', 'cno', '8', 'c+n', 'cn-', 'abc', '', '[abc', 'x[ab]', '+', '-']) {
      let error: unknown;
      try {
        pinCharsets(bad);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(PolicyError);
      expect((error as PolicyError).code).toBe(303);
      expect((error as PolicyError).message).toBe('Unknown character specifier in PIN policy.');
    }
    expect(() => pinContentsError('abc1', 'cno')).toThrow('Unknown character specifier in PIN policy.');
    expect(() => randomPin(8, 'o')).toThrow('Unknown character specifier in PIN policy.');
  });

  it('plain: each class is required, characters outside c+n+s are not allowed', () => {
    expect(pinContentsError('abc1', 'cn')).toBeUndefined();
    expect(pinContentsError('abc1!', 'cn')).toBeUndefined();
    expect(pinContentsError('abcd', 'cn')).toBe(MISSING(DIGITS));
    expect(pinContentsError('!!!!', 'cn')).toBe(`${MISSING(LETTERS)},${MISSING(DIGITS)}`);
    expect(pinContentsError('ab 1', 'cn')).toBe(NOT_ALLOWED);
    expect(pinContentsError('äb1', 'cn')).toBe(NOT_ALLOWED);
    expect(pinContentsError('ä', 'cns')).toBe(
      [NOT_ALLOWED, MISSING(LETTERS), MISSING(DIGITS), MISSING(PUNCTUATION)].join(','),
    );
  });

  it('+: one character of the union of the listed classes', () => {
    expect(pinContentsError('a!!!', '+cn')).toBeUndefined();
    expect(pinContentsError('1!!!', '+cn')).toBeUndefined();
    expect(pinContentsError('!!!!', '+cn')).toBe(MISSING(LETTERS + DIGITS));
    expect(pinContentsError('a b', '+cn')).toBe(NOT_ALLOWED);
  });

  it('-: only the classes not listed; nothing required', () => {
    expect(pinContentsError('abcd', '-ns')).toBeUndefined();
    expect(pinContentsError('abc1', '-ns')).toBe(NOT_ALLOWED);
    expect(pinContentsError('abc!', '-ns')).toBe(NOT_ALLOWED);
    expect(pinContentsError('1234', '-c')).toBeUndefined();
  });

  it('[…]: exactly these characters', () => {
    expect(pinContentsError('abca', '[abc]')).toBeUndefined();
    expect(pinContentsError('abcd', '[abc]')).toBe(NOT_ALLOWED);
    expect(pinContentsError('b', '[a-c]')).toBe(NOT_ALLOWED);
    expect(pinContentsError('a-c', '[a-c]')).toBeUndefined();
  });
});

describe('randomPin', () => {
  const many = (contents: string, length = 8) =>
    Array.from({ length: 50 }, () => randomPin(length, contents));

  it('without a contents value: letters and digits', () => {
    for (const pin of many('')) expect(pin).toMatch(/^[a-zA-Z0-9]{8}$/);
  });

  it('meets every requirement and stays inside the allowed set', () => {
    for (const contents of ['cns', 'cn', 'n', 's', '+cn', '+s', '-cn', '-s', '[xyz]', '[0-9]'])
      for (const pin of many(contents)) {
        expect(pin).toHaveLength(8);
        expect(pinContentsError(pin, contents), `${contents}: ${pin}`).toBeUndefined();
      }
    for (const pin of many('-cn')) expect(pin).toMatch(/^[^a-zA-Z0-9]{8}$/);
    for (const pin of many('[xyz]')) expect(pin).toMatch(/^[xyz]{8}$/);
  });

  it('+: the rest of the PIN comes from all classes', () => {
    const seen = new Set(many('+n', 16).join(''));
    expect([...seen].some((ch) => LETTERS.includes(ch))).toBe(true);
    expect([...seen].some((ch) => PUNCTUATION.includes(ch))).toBe(true);
  });

  it('a value that allows nothing is refused', () => {
    expect(() => randomPin(8, '-cns')).toThrow(PolicyError);
    expect(() => randomPin(8, '[]')).toThrow(PolicyError);
  });
});

describe('per-type PIN actions', () => {
  it('are declared for every token type in the admin and user scopes', () => {
    for (const scope of ['admin', 'user'])
      for (const type of ['hotp', 'totp', 'spass', 'pw']) {
        expect(actionDef(scope, `${type}_otp_pin_minlength`)?.type).toBe('int');
        expect(actionDef(scope, `${type}_otp_pin_maxlength`)?.type).toBe('int');
        expect(actionDef(scope, `${type}_otp_pin_contents`)?.type).toBe('str');
      }
    expect(actionDef('enrollment', 'hotp_otp_pin_minlength')).toBeUndefined();
  });
});
