// What an answer means to the front ends that render it: result.authentication, the audit
// columns of a check (the API's row and the CLI's), of a trigger and of a poll.
import { describe, expect, it } from 'vitest';
import { answerOf, checkAuditColumns, pollAuditColumns } from '../../../src/core/validate/index.ts';

describe('answerOf', () => {
  const audit = { user: '', realm: '', resolver: '', serial: '', tokenType: '', info: '' };
  const result = (value: boolean, detail?: Record<string, unknown>) => ({
    value,
    detail,
    user: undefined,
    audit,
  });

  it('is ACCEPT, CHALLENGE (challenges asked) or REJECT', () => {
    expect(answerOf(result(true, { message: 'matching 1 tokens' }))).toBe('ACCEPT');
    expect(answerOf(result(false, { multi_challenge: [{ serial: 'S' }] }))).toBe('CHALLENGE');
    expect(answerOf(result(false, { multi_challenge: [] }))).toBe('REJECT');
    expect(answerOf(result(false, { message: 'wrong otp pin' }))).toBe('REJECT');
    expect(answerOf(result(false))).toBe('REJECT');
  });
});

describe('answerOf of other answers', () => {
  it('reads value.auth (samlcheck, /auth), a declined push and a passkey challenge', () => {
    expect(answerOf({ value: { auth: true, attributes: {} } })).toBe('ACCEPT');
    expect(answerOf({ value: { auth: false }, detail: { message: 'wrong otp pin' } })).toBe('REJECT');
    expect(answerOf({ value: false, detail: { challenge_status: 'declined' } })).toBe('DECLINED');
    expect(answerOf({ value: false, detail: { challenge_status: 'pending' } })).toBe('REJECT');
    expect(answerOf({ value: false, detail: { passkey: {} } })).toBe('CHALLENGE');
    expect(answerOf({ value: 'CHALLENGE' })).toBe('CHALLENGE');
  });
});

describe('checkAuditColumns and pollAuditColumns', () => {
  const audit = {
    user: 'alice',
    realm: 'r1',
    resolver: 'files',
    serial: 'OATH1',
    tokenType: 'hotp',
    info: 'matching 1 tokens',
  };
  const columns = {
    user: 'alice',
    realm: 'r1',
    resolver: 'files',
    serial: 'OATH1',
    token_type: 'hotp',
    info: 'matching 1 tokens',
  };

  it('names the user, the token, the message and the answer', () => {
    expect(checkAuditColumns({ value: true, detail: {}, audit })).toEqual({
      ...columns,
      authentication: 'ACCEPT',
      success: true,
    });
  });

  // issue 16 item 10: privacyIDEA records a check's verdict as the row's success, and failed-login
  // reports, SIEM queries and auth_max_fail count success=0.
  it("makes a check's verdict its success: a REJECT or a CHALLENGE is none", () => {
    const rejected = { value: false, detail: { message: 'wrong otp pin' }, user: undefined, audit };
    expect(checkAuditColumns(rejected)).toEqual({ ...columns, authentication: 'REJECT', success: false });
    const asked = { value: false, detail: { multi_challenge: [{ serial: 'OATH1' }] }, audit };
    expect(checkAuditColumns(asked)).toMatchObject({ authentication: 'CHALLENGE', success: false });
  });

  it('makes a trigger a success when it created challenges', () => {
    const triggered = { value: 1, detail: { multi_challenge: [{ serial: 'OATH1' }] }, audit };
    expect(checkAuditColumns(triggered)).toMatchObject({ authentication: 'CHALLENGE', success: true });
    const none = { value: 0, detail: { multi_challenge: [] }, audit };
    expect(checkAuditColumns(none)).toMatchObject({ authentication: 'REJECT', success: false });
  });

  it('makes a poll a success when the challenge was answered', () => {
    expect(pollAuditColumns({ value: true, detail: { challenge_status: 'accept' } }, '42')).toEqual({
      info: 'transaction_id: 42',
      authentication: 'ACCEPT',
      success: true,
    });
    expect(pollAuditColumns({ value: false, detail: { challenge_status: 'pending' } }, '42')).toEqual({
      info: 'transaction_id: 42',
      authentication: 'REJECT',
      success: false,
    });
  });
});
