// The application-specific password (reference 3.1, 4.5): pw plus the required service_id.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { ApplspecType } from '../../src/tokens/applspec.ts';
import { findTokenType } from '../../src/tokens/registry.ts';
import type { EnrollRequest, TokenState } from '../../src/tokens/token-type.ts';

const applspec = new ApplspecType();

function request(params: Record<string, string>, config: Record<string, string> = {}): EnrollRequest {
  return { serial: 'ASPW0001', params, settings: { get: (k) => config[k] }, now: new Date() };
}

function stateOf(password: string, info: Record<string, string> = { service_id: 'mail' }): TokenState {
  return {
    serial: 'ASPW0001',
    type: 'applspec',
    otplen: password.length,
    count: 0,
    countWindow: 10,
    syncWindow: 1000,
    info,
    key: () => Buffer.from(password, 'utf8'),
  };
}

describe('ApplspecType', () => {
  it('is registered with its prefix and challenges only by policy', () => {
    expect(findTokenType('applspec')).toBeInstanceOf(ApplspecType);
    expect(findTokenType('APPLSPEC')?.prefix).toBe('ASPW');
    expect(applspec.challengeAlways).toBe(false);
    expect(applspec.challengeCapable).toBe(true);
    expect(applspec.hasOtp).toBe(true);
    expect(applspec.enrollAction).toBe('enrollAPPLSPEC');
  });

  it('requires service_id (ERR905)', async () => {
    const e = await applspec.enroll(request({ otpkey: 'secret' })).catch((x) => x);
    expect(e).toBeInstanceOf(ParameterError);
    expect(e.wireMessage()).toBe("ERR905: Missing parameter: 'service_id'");
    await expect(applspec.enroll(request({ otpkey: 'secret', service_id: '' }))).rejects.toThrow(
      "Missing parameter: 'service_id'",
    );
  });

  it('stores the given password and the service_id', async () => {
    const e = await applspec.enroll(request({ otpkey: 'app-pass', service_id: 'mail' }));
    expect(e.key?.toString('utf8')).toBe('app-pass');
    expect(e.otplen).toBe(8);
    expect(e.info).toEqual({ service_id: 'mail' });
    expect(e.detail).toEqual({ password: 'app-pass' });
  });

  it('generates a 23-character password, or applspec.length', async () => {
    const e = await applspec.enroll(request({ genkey: '1', otpkey: 'ignored', service_id: 's' }));
    expect(e.detail.password).toHaveLength(23);
    expect(e.otplen).toBe(23);
    expect(e.key?.toString('utf8')).toBe(e.detail.password);
    const f = await applspec.enroll(request({ service_id: 's' }, { 'applspec.length': '30' }));
    expect(f.detail.password).toHaveLength(30);
  });

  it('accepts exactly the password', () => {
    const s = stateOf('app-pass');
    expect(applspec.checkOtp(s, 'app-pass')).toEqual({ counter: 0, newCount: 0 });
    expect(applspec.checkOtp(s, 'App-pass')).toBeNull();
    expect(applspec.checkOtp(s, 'app-pas')).toBeNull();
    expect(applspec.checkOtp(s, '')).toBeNull();
  });

  it('takes part only in requests naming its service (case-insensitive)', () => {
    const s = stateOf('x');
    expect(applspec.useForAuthentication(s, { serviceId: 'mail' })).toBe(true);
    expect(applspec.useForAuthentication(s, { serviceId: 'MAIL' })).toBe(true);
    expect(applspec.useForAuthentication(s, { serviceId: 'web' })).toBe(false);
    expect(applspec.useForAuthentication(s, {})).toBe(false);
    expect(applspec.useForAuthentication(stateOf('x', {}), { serviceId: 'mail' })).toBe(false);
  });
});
