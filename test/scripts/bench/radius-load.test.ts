// The RADIUS scenario's own request and answer check (scripts/bench/radius-load.ts): a request
// the server's codec reads back with the password and a valid Message-Authenticator, and answers
// that are accepted only as a verified Access-Accept (a Reject, a wrong secret or a changed answer
// make the run fail).
import { describe, expect, it } from 'vitest';
import { accessRequest, radiusAnswerProblem } from '../../../scripts/bench/radius-load.ts';
import {
  ATTRIBUTE,
  attributeOf,
  CODE,
  encodeResponse,
  revealPassword,
  verifyRequest,
} from '../../../src/radius-packet/index.ts';

const secret = Buffer.from('bench-secret');

describe('bench radius-load', () => {
  it('builds a PAP Access-Request with Message-Authenticator', () => {
    const { raw, authenticator } = accessRequest(
      { userName: 'ho00001@bench', password: '287082' },
      7,
      secret,
    );
    const v = verifyRequest(raw, secret, true);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.packet.code).toBe(CODE.AccessRequest);
    expect(v.packet.identifier).toBe(7);
    expect(v.packet.authenticator.equals(authenticator)).toBe(true);
    expect(attributeOf(v.packet, ATTRIBUTE.UserName)?.toString()).toBe('ho00001@bench');
    const hidden = attributeOf(v.packet, ATTRIBUTE.UserPassword)!;
    expect(revealPassword(hidden, secret, authenticator).toString()).toBe('287082');
    expect(verifyRequest(raw, Buffer.from('other'), true).ok).toBe(false);
  });

  it('accepts only a verified Access-Accept', () => {
    const { authenticator } = accessRequest({ userName: 'u', password: 'p' }, 1, secret);
    const answer = (code: number, message?: string) =>
      encodeResponse(
        {
          code,
          identifier: 1,
          attributes: message ? [{ type: ATTRIBUTE.ReplyMessage, value: Buffer.from(message) }] : [],
        },
        authenticator,
        secret,
      );
    expect(radiusAnswerProblem(answer(CODE.AccessAccept), authenticator, secret)).toBeUndefined();
    expect(radiusAnswerProblem(answer(CODE.AccessReject, 'wrong otp value'), authenticator, secret)).toBe(
      'Access-Reject (wrong otp value)',
    );
    expect(radiusAnswerProblem(answer(CODE.AccessChallenge), authenticator, secret)).toBe('Access-Challenge');
    // Another shared secret, or an answer to another request: the Response Authenticator is wrong.
    expect(radiusAnswerProblem(answer(CODE.AccessAccept), authenticator, Buffer.from('x'))).toMatch(
      /Response Authenticator is wrong/,
    );
    const other = accessRequest({ userName: 'u', password: 'p' }, 1, secret).authenticator;
    expect(radiusAnswerProblem(answer(CODE.AccessAccept), other, secret)).toMatch(/Response Authenticator/);
    // A changed attribute after signing.
    const changed = answer(CODE.AccessAccept, 'hello');
    changed.writeUInt8(changed.readUInt8(changed.length - 1) ^ 1, changed.length - 1);
    expect(radiusAnswerProblem(changed, authenticator, secret)).toMatch(/wrong/);
  });
});
