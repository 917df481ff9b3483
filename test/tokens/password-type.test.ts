// The static-password types (spass, pw, registration; reference 3.1, 4.5) and the type registry
// with its `enroll<TYPE>` policy actions.
import { describe, expect, it } from 'vitest';
import { policyDefinitions } from '../../src/core/policy/index.ts';
import { ParameterError, PolicyError, TokenAdminError } from '../../src/errors.ts';
import { HotpType } from '../../src/tokens/hotp.ts';
import { PwType, RegistrationType, randomPassword } from '../../src/tokens/password-type.ts';
import { findTokenType, tokenType, tokenTypes } from '../../src/tokens/registry.ts';
import { SpassType } from '../../src/tokens/spass.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';
import { TotpType } from '../../src/tokens/totp.ts';

const GENERATED = /^[1-9a-km-zA-HJ-NP-Z]+$/;
/** The definitions of the server: the static table and the registered token types. */
const { actionDef } = policyDefinitions();

function request(
  params: Record<string, string>,
  config: Record<string, string> = {},
  policies: Record<string, string> = {},
): EnrollRequest {
  return {
    serial: 'PW0001',
    params,
    settings: { get: (k) => config[k] },
    now: new Date(),
    policy: (a) => policies[a],
  };
}

function stateOf(password: string, count = 0): TokenState {
  return {
    serial: 'PW0001',
    type: 'pw',
    otplen: password.length,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info: {},
    key: () => Buffer.from(password, 'utf8'),
  };
}

describe('randomPassword', () => {
  it('has the length asked for and no look-alike characters', () => {
    expect(randomPassword(0)).toBe('');
    for (const n of [1, 12, 24, 100]) {
      const p = randomPassword(n);
      expect(p).toHaveLength(n);
      expect(p).toMatch(GENERATED);
    }
    expect(randomPassword(24)).not.toBe(randomPassword(24));
  });
});

describe('SpassType', () => {
  const spass = new SpassType();

  it('has no OTP part and never challenges', () => {
    expect(spass.type).toBe('spass');
    expect(spass.prefix).toBe('PISP');
    expect(spass.hasOtp).toBe(false);
    expect(spass.challengeCapable).toBe(false);
    expect(spass.singleUse).toBe(false);
  });

  it('enrolls without a key or detail, ignoring otpkey', async () => {
    const e = await spass.enroll();
    expect(e).toEqual({ otplen: 6, info: {}, detail: {} });
    expect(e.key).toBeUndefined();
  });

  it('accepts only the empty OTP part', () => {
    const s = stateOf('');
    expect(spass.checkOtp(s, '')).toEqual({ counter: 0, newCount: 0 });
    expect(spass.checkOtp(s, '123456')).toBeNull();
    expect(spass.checkOtp(s, ' ')).toBeNull();
  });
});

describe('PwType', () => {
  const pw = new PwType();

  it('is pw with prefix PW', () => {
    expect(pw.type).toBe('pw');
    expect(pw.prefix).toBe('PW');
    expect(pw.hasOtp).toBe(true);
    expect(pw.singleUse).toBe(false);
  });

  it('stores a given otpkey as the password; otplen is its length', async () => {
    const e = await pw.enroll(request({ otpkey: 'geheim123' }));
    expect(e.key?.toString('utf8')).toBe('geheim123');
    expect(e.otplen).toBe(9);
    expect(e.info).toEqual({});
    expect(e.detail).toEqual({ password: 'geheim123' });
    const one = await pw.enroll(request({ otpkey: 'x' }));
    expect(one.otplen).toBe(1);
  });

  it('generates a password (policy pw.length, default 12) without otpkey or with genkey', async () => {
    const g = await pw.enroll(request({}));
    const password = (g.detail as { password: string }).password;
    expect(password).toHaveLength(12);
    expect(password).toMatch(GENERATED);
    expect(g.otplen).toBe(12);
    expect(g.key?.toString('utf8')).toBe(password);
    const withGenkey = await pw.enroll(request({ genkey: '1', otpkey: 'geheim123' }));
    expect(withGenkey.detail).not.toEqual({ password: 'geheim123' });
    expect(withGenkey.otplen).toBe(12);
    const long = await pw.enroll(request({}, {}, { 'pw.length': '20' }));
    expect(long.otplen).toBe(20);
    expect((long.detail as { password: string }).password).toHaveLength(20);
    // The system config is not read; a bad policy value is refused.
    expect((await pw.enroll(request({}, { 'pw.length': '20' }))).otplen).toBe(12);
    await expect(pw.enroll(request({}, {}, { 'pw.length': 'abc' }))).rejects.toBeInstanceOf(PolicyError);
    const digits = await pw.enroll(request({}, {}, { 'pw.length': '30', 'pw.contents': 'n' }));
    expect((digits.detail as { password: string }).password).toMatch(/^(?=.*\d)[\x21-\x7e]{30}$/);
    const onlyDigits = await pw.enroll(request({}, {}, { 'pw.contents': '-cs' }));
    expect((onlyDigits.detail as { password: string }).password).toMatch(/^\d{12}$/);
    await expect(pw.enroll(request({}, {}, { 'pw.contents': 'xyz' }))).rejects.toBeInstanceOf(PolicyError);
  });

  it('refuses a password longer than 256 characters', async () => {
    expect((await pw.enroll(request({ otpkey: 'a'.repeat(256) }))).otplen).toBe(256);
    await expect(pw.enroll(request({ otpkey: 'a'.repeat(257) }))).rejects.toBeInstanceOf(ParameterError);
  });

  it('checks the OTP part for equality, keeping the count', () => {
    expect(pw.checkOtp(stateOf('geheim123'), 'geheim123')).toEqual({ counter: 0, newCount: 0 });
    expect(pw.checkOtp(stateOf('geheim123', 4), 'geheim123')).toEqual({ counter: 0, newCount: 4 });
    expect(pw.checkOtp(stateOf('geheim123'), 'geheim124')).toBeNull();
    expect(pw.checkOtp(stateOf('geheim123'), 'Geheim123')).toBeNull();
    expect(pw.checkOtp(stateOf('geheim123'), 'geheim12')).toBeNull();
    expect(pw.checkOtp(stateOf('geheim123'), 'geheim1234')).toBeNull();
    expect(pw.checkOtp(stateOf('geheim123'), '')).toBeNull();
  });

  it('round-trips a non-ASCII password', async () => {
    const e = await pw.enroll(request({ otpkey: 'pässwörd' }));
    const s: TokenState = { ...stateOf('pässwörd'), key: () => e.key as Buffer };
    expect(pw.checkOtp(s, 'pässwörd')).not.toBeNull();
    expect(pw.checkOtp(s, 'passwort')).toBeNull();
  });
});

describe('RegistrationType', () => {
  const reg = new RegistrationType();

  it('is registration with prefix REG, single use', () => {
    expect(reg.type).toBe('registration');
    expect(reg.prefix).toBe('REG');
    expect(reg.singleUse).toBe(true);
    expect(reg.hasOtp).toBe(true);
  });

  it('ignores otpkey and returns a generated registrationcode (default 24)', async () => {
    const e = await reg.enroll(request({ otpkey: 'chosen' }));
    const code = (e.detail as { registrationcode: string }).registrationcode;
    expect(Object.keys(e.detail)).toEqual(['registrationcode']);
    expect(code).not.toBe('chosen');
    expect(code).toHaveLength(24);
    expect(code).toMatch(GENERATED);
    expect(e.otplen).toBe(24);
    expect(e.key?.toString('utf8')).toBe(code);
    const short = await reg.enroll(request({}, {}, { 'registration.length': '10' }));
    expect(short.otplen).toBe(10);
    const chosen = await reg.enroll(request({}, {}, { 'registration.contents': '[ab]' }));
    expect((chosen.detail as { registrationcode: string }).registrationcode).toMatch(/^[ab]{24}$/);
  });

  it('checks the code for equality', async () => {
    const e = await reg.enroll(request({}));
    const code = (e.detail as { registrationcode: string }).registrationcode;
    expect(reg.checkOtp(stateOf(code), code)).toEqual({ counter: 0, newCount: 0 });
    expect(reg.checkOtp(stateOf(code), code.slice(1))).toBeNull();
  });
});

describe('registry', () => {
  it('lists the registered types with their prefixes', () => {
    const prefixes = Object.fromEntries(tokenTypes().map((t) => [t.type, t.prefix]));
    expect(prefixes).toMatchObject({
      hotp: 'OATH',
      totp: 'TOTP',
      spass: 'PISP',
      pw: 'PW',
      registration: 'REG',
      applspec: 'ASPW',
      daypassword: 'DYPW',
      motp: 'PIMO',
      sshkey: 'SSHK',
      question: 'QUST',
      email: 'PIEM',
      sms: 'PISM',
    });
    expect(new Set(tokenTypes().map((t) => t.type)).size).toBe(tokenTypes().length);
  });

  it('finds types case-insensitively, with hmac as an alias of hotp', () => {
    expect(findTokenType('hotp')).toBeInstanceOf(HotpType);
    expect(findTokenType('HOTP')).toBe(findTokenType('hotp'));
    expect(findTokenType('ToTp')).toBeInstanceOf(TotpType);
    expect(findTokenType('hmac')).toBe(findTokenType('hotp'));
    expect(findTokenType('HMAC')).toBe(findTokenType('hotp'));
    expect(findTokenType('Registration')).toBeInstanceOf(RegistrationType);
    expect(findTokenType('unknown')).toBeUndefined();
    expect(findTokenType('')).toBeUndefined();
    expect(tokenType('SPASS')).toBeInstanceOf(SpassType);
  });

  it('answers an unknown type with ERR1610', () => {
    expect(() => tokenType('foo')).toThrow(TokenAdminError);
    expect(() => tokenType('foo')).toThrow("Unknown token type 'foo'");
    try {
      tokenType('nosuchtype');
      expect.unreachable();
    } catch (e) {
      expect((e as TokenAdminError).code).toBe(1610);
    }
  });

  it('registers enroll<TYPE> in the admin scope, and in the user scope where users may enroll the type', () => {
    for (const t of tokenTypes()) {
      const name = `enroll${t.type.toUpperCase()}`;
      expect(t.enrollAction).toBe(name);
      for (const scope of t.userEnrollable ? ['admin', 'user'] : ['admin']) {
        const def = actionDef(scope, name);
        expect(def, `${scope}/${name}`).toBeDefined();
        expect(def?.type).toBe('bool');
        expect(def?.group).toBe('enrollment');
        expect(def?.description).toBe(`Enroll ${t.description}`);
      }
    }
    expect(actionDef('admin', 'enrollHOTP')?.description).toBe('Enroll HOTP: Event based One Time Passwords');
    expect(actionDef('admin', 'enrollHMAC')).toBeUndefined();
    // Types users may not enroll for themselves have no user-scope right.
    expect(actionDef('admin', 'enroll4EYES')).toBeDefined();
    expect(actionDef('user', 'enroll4EYES')).toBeUndefined();
    expect(actionDef('admin', 'enrollNOSUCHTYPE')).toBeUndefined();
    expect(actionDef('authentication', 'enrollHOTP')).toBeUndefined();
  });
});
