import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import {
  type ActionDict,
  formatActionText,
  parseActionText,
  parseActions as parseWith,
  validateActions as validateWith,
} from '../../src/policy/action-value.ts';
import { definitionsFor } from '../../src/policy/definitions.ts';

/** The static table alone: no token type's actions. */
const definitions = definitionsFor([]);
const parseActions = (scope: string, action: string | Readonly<Record<string, unknown>>) =>
  parseWith(scope, action, definitions);
const validateActions = (scope: string, dict: Readonly<ActionDict>) => validateWith(scope, dict, definitions);

function err(fn: () => unknown): ParameterError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ParameterError);
    return e as ParameterError;
  }
  throw new Error('no error thrown');
}

describe('policy action text', () => {
  it('parses a comma list with bools, values and the \\, escape', () => {
    expect(
      parseActionText('tokenlist, otppin=userstore ,smstext=Hello\\, your OTP is {otp},-delete'),
    ).toEqual({
      tokenlist: true,
      otppin: 'userstore',
      smstext: 'Hello, your OTP is {otp}',
      '-delete': true,
    });
  });

  it('takes everything after the first = as the value', () => {
    expect(parseActionText('mangle=user/(.*)@(.*)/\\1/')).toEqual({ mangle: 'user/(.*)@(.*)/\\1/' });
    expect(parseActionText('tokeninfo=a=b')).toEqual({ tokeninfo: 'a=b' });
  });

  it('ignores empty items and yields {} for empty text', () => {
    expect(parseActionText('')).toEqual({});
    expect(parseActionText(' , ,tokenlist,')).toEqual({ tokenlist: true });
  });

  it('rejects an item with no name before =', () => {
    expect(err(() => parseActionText('=x')).code).toBe(905);
  });

  it('formats back to text that parses to the same dict', () => {
    const dict = { tokenlist: true as const, smstext: 'a, b', '!delete': true as const };
    expect(formatActionText(dict)).toBe('tokenlist, smstext=a\\, b, !delete');
    expect(parseActionText(formatActionText(dict))).toEqual(dict);
  });
});

describe('validating actions against the definitions', () => {
  it('accepts known actions, * and exclusions', () => {
    expect(parseActions('admin', '*, -delete, !policywrite, tokenlist')).toEqual({
      '*': true,
      '-delete': true,
      '!policywrite': true,
      tokenlist: true,
    });
  });

  it('refuses the names of Object.prototype members as unknown actions, as text and as a dict', () => {
    for (const action of ['__proto__, tokenlist', 'constructor', 'toString=1']) {
      const e = err(() => parseActions('admin', action));
      expect(e.message, action).toMatch(/^Invalid actions \['(__proto__|constructor|toString)'\]/);
    }
    expect(Object.keys(parseActionText('__proto__, tokenlist'))).toEqual(['__proto__', 'tokenlist']);
    const dict = JSON.parse('{"__proto__": true}') as Record<string, unknown>;
    expect(err(() => parseActions('admin', dict)).message).toMatch(/^Invalid actions \['__proto__'\]/);
  });

  it('names every unknown action of the scope (905)', () => {
    const e = err(() => parseActions('admin', 'tokenlist, nosuch, -other, password_reset'));
    expect(e.code).toBe(905);
    expect(e.message).toBe(
      "Invalid actions ['nosuch', 'other', 'password_reset']! They are not defined in scope 'admin'.",
    );
  });

  it('rejects an unknown scope', () => {
    expect(err(() => parseActions('nosuch', 'tokenlist')).message).toMatch(/Invalid scope 'nosuch'/);
  });

  it('booleans: present = true, =true accepted, =false refused', () => {
    expect(parseActions('admin', 'tokenlist=true, policyread=1')).toEqual({
      tokenlist: true,
      policyread: true,
    });
    expect(err(() => parseActions('admin', 'tokenlist=false')).message).toMatch(/boolean/);
  });

  it('booleans: a value is true as privacyIDEA reads it (isTrue), so yes and on are refused', () => {
    expect(parseActions('admin', 'tokenlist=True, policyread=TRUE')).toEqual({
      tokenlist: true,
      policyread: true,
    });
    for (const word of ['yes', 'on', 'tRuE'])
      expect(err(() => parseActions('admin', `tokenlist=${word}`)).message).toMatch(/boolean/);
  });

  it('ints must be integers', () => {
    expect(parseActions('enrollment', 'max_token_per_user=3')).toEqual({ max_token_per_user: '3' });
    expect(err(() => parseActions('enrollment', 'max_token_per_user=three')).message).toMatch(/integer/);
    expect(err(() => parseActions('enrollment', 'max_token_per_user')).code).toBe(905);
  });

  it('strings need a value and respect the allowed values', () => {
    expect(parseActions('authentication', 'otppin=userstore')).toEqual({ otppin: 'userstore' });
    expect(err(() => parseActions('authentication', 'otppin=ldap')).message).toMatch(
      /allowed are 'tokenpin'/,
    );
    expect(err(() => parseActions('authentication', 'otppin')).message).toMatch(/needs a value/);
    expect(parseActions('authentication', 'challenge_text=Enter the OTP\\, please')).toEqual({
      challenge_text: 'Enter the OTP, please',
    });
  });

  it('exclusions and * take no value', () => {
    expect(err(() => parseActions('admin', '-delete=1')).code).toBe(905);
    expect(err(() => parseActions('admin', '*=1')).code).toBe(905);
  });

  it('accepts a JSON object as well', () => {
    expect(
      parseActions('webui', { login_mode: 'privacyIDEA', jwt_validity: 3600, tokenwizard: true }),
    ).toEqual({
      login_mode: 'privacyIDEA',
      jwt_validity: '3600',
      tokenwizard: true,
    });
    expect(err(() => parseActions('webui', { tokenwizard: false })).code).toBe(905);
    expect(err(() => parseActions('webui', { tokenwizard: null })).code).toBe(905);
  });

  it('the user scope may have no action at all', () => {
    expect(validateActions('user', {})).toEqual({});
  });
});
