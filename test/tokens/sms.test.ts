// SmsType (reference 3.1, 4.3) on the message-OTP base it shares with the e-mail token: enrollment
// (phone, dynamic_phone, the token's own gateway), the challenge's validity from
// sms.providerTimeout and its counter, and the policy actions it adds. Sending is tested against
// real gateways in test/e2e/token-sms.test.ts.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { SmsType } from '../../src/tokens/sms.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const sms = new SmsType();
const KEY = Buffer.from('3132333435363738393031323334353637383930', 'hex');

const request = (params: Record<string, string>): EnrollRequest => ({
  serial: 'PISM0001',
  params,
  settings: { get: () => undefined },
  now: new Date(),
});

const state = (count = 0): TokenState => ({
  serial: 'PISM0001',
  type: 'sms',
  otplen: 6,
  count,
  countWindow: 10,
  syncWindow: 1000,
  info: { phone: '+49 151 1' },
  key: () => KEY,
});

describe('SmsType', () => {
  it('enrolls a phone number or dynamic_phone, with the gateway the request names', async () => {
    expect((await sms.enroll(request({ phone: ' +49 (151) 123-45 ' }))).info).toEqual({
      phone: '+49 (151) 123-45',
    });
    expect((await sms.enroll(request({ dynamic_phone: 'True' }))).info).toEqual({ dynamic_phone: 'True' });
    expect((await sms.enroll(request({ phone: '0151', 'sms.identifier': 'gw2' }))).info).toEqual({
      phone: '0151',
      'sms.identifier': 'gw2',
    });
    await expect(sms.enroll(request({}))).rejects.toThrow("Missing parameter: 'phone'");
    await expect(sms.enroll(request({ phone: '0151; rm' }))).rejects.toThrow(ParameterError);
    expect((await sms.enroll(request({ phone: '1', otpkey: KEY.toString('hex') }))).key).toEqual(KEY);
  });

  it('a challenge spends the next counter and is valid for sms.providerTimeout seconds (300 unset)', () => {
    const opts = (config: Record<string, string>, policies: Record<string, string> = {}) => ({
      policy: (a: string) => policies[a],
      settings: { get: (k: string) => config[k] },
    });
    expect(sms.challenge(state(4), opts({}))).toEqual({ newCount: 5, data: '', validity: 300 });
    expect(
      sms.challenge(
        state(4),
        opts(
          { 'sms.providerTimeout': '60', 'sms.concurrent_challenges': 'True' },
          { sms_challenge_text: 'a\\, b' },
        ),
      ),
    ).toEqual({ newCount: 5, data: '5', message: 'a, b', validity: 60 });
    expect(sms.challengeMessage).toBe('Enter the OTP from the SMS:');
    expect(sms.challengeAlways).toBe(true);
  });

  it('adds sms_gateways to the admin and user scopes and restricts sms.identifier by it', () => {
    expect(Object.keys(sms.policyActions.admin ?? {})).toEqual(['sms_gateways']);
    expect(Object.keys(sms.policyActions.user ?? {})).toEqual(['sms_gateways']);
    expect(sms.parameterChoices).toEqual({ 'sms.identifier': 'sms_gateways' });
  });
});
