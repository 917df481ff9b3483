// EmailType (reference 3.1, 4.3) with the message-OTP base it shares with the coming SMS token:
// enrollment (address or dynamic_email), a challenge spending one counter per mail, the delivery
// through the outbox with policies and tags, the failures it reports, and the answer check with
// and without concurrent challenges.
import { describe, expect, it } from 'vitest';
import { ParameterError } from '../../src/errors.ts';
import { EmailType } from '../../src/tokens/email.ts';
import { hotpValue } from '../../src/tokens/oath.ts';
import {
  ChallengeDeliveryError,
  type ChallengeOptions,
  type EnrollRequest,
  type OutboundMail,
  type TokenState,
} from '../../src/tokens/token-type.ts';

const email = new EmailType();
const KEY = Buffer.from('3132333435363738393031323334353637383930', 'hex');

function request(params: Record<string, string>): EnrollRequest {
  return { serial: 'PIEM0001', params, settings: { get: () => undefined }, now: new Date() };
}

function state(info: Record<string, string>, count = 0): TokenState {
  return {
    serial: 'PIEM0001',
    type: 'email',
    otplen: 6,
    count,
    countWindow: 10,
    syncWindow: 1000,
    info,
    key: () => KEY,
  };
}

function options(
  sent: { identifier: string; mail: OutboundMail }[],
  config: Record<string, string> = { 'email.identifier': 'relay' },
  policies: Record<string, string> = {},
  owner: Record<string, string> | undefined = {
    username: 'alice',
    givenname: 'Alice',
    email: 'a@store.example',
  },
): ChallengeOptions {
  return {
    policy: (a) => policies[a],
    settings: { get: (k) => config[k] },
    owner: async () => owner,
    outbox: {
      mail: async (identifier, mail) => {
        if (identifier === 'down') throw new Error('connection refused: ECONNREFUSED');
        sent.push({ identifier, mail });
      },
      sms: async () => {
        throw new Error('an e-mail token sends no SMS');
      },
    },
  };
}

describe('EmailType', () => {
  it('enrolls an address, or dynamic_email; refuses neither and a malformed address', async () => {
    expect((await email.enroll(request({ email: 'a@example.com' }))).info).toEqual({
      email: 'a@example.com',
    });
    expect((await email.enroll(request({ dynamic_email: '1' }))).info).toEqual({ dynamic_email: 'True' });
    await expect(email.enroll(request({}))).rejects.toThrow(ParameterError);
    await expect(email.enroll(request({ email: 'not an address' }))).rejects.toThrow(ParameterError);
    const given = await email.enroll(request({ email: 'a@example.com', otpkey: KEY.toString('hex') }));
    expect(given.key).toEqual(KEY);
    expect(given.detail).toEqual({});
  });

  it('spends the next counter and mails its value with the policies and tags filled in', async () => {
    const sent: { identifier: string; mail: OutboundMail }[] = [];
    const opts = options(
      sent,
      { 'email.identifier': 'relay', 'email.validtime': '300' },
      {
        emailsubject: 'Code for {user}',
        emailtext: 'Hi {givenname}, <otp> ({serial})',
      },
    );
    const token = state({ email: 'a@example.com' }, 4);
    const spec = email.challenge(token, opts);
    expect(spec).toMatchObject({ newCount: 5, data: '', validity: 300 });
    expect(spec.message).toBeUndefined();
    await email.deliverChallenge(token, spec, opts);
    expect(sent).toEqual([
      {
        identifier: 'relay',
        mail: {
          to: 'a@example.com',
          subject: 'Code for alice',
          body: `Hi Alice, ${hotpValue(KEY, 5, 6)} (PIEM0001)`,
          mimetype: 'plain',
        },
      },
    ]);
  });

  it("mails through the token's own SMTP server (tokeninfo email.identifier) before the system setting", async () => {
    const sent: { identifier: string; mail: OutboundMail }[] = [];
    const opts = options(sent);
    const token = state({ email: 'a@example.com', 'email.identifier': 'own' });
    await email.deliverChallenge(token, email.challenge(token, opts), opts);
    expect(sent.map((m) => m.identifier)).toEqual(['own']);
  });

  it('mails a dynamic token to the store address; an HTML document as text/html', async () => {
    const sent: { identifier: string; mail: OutboundMail }[] = [];
    const opts = options(sent, undefined, { emailtext: '<!DOCTYPE html><p>{otp}</p>' });
    const token = state({ dynamic_email: 'True' });
    await email.deliverChallenge(token, email.challenge(token, opts), opts);
    expect(sent[0]!.mail).toMatchObject({ to: 'a@store.example', mimetype: 'html' });
  });

  it('reports what keeps the mail from going out as a ChallengeDeliveryError', async () => {
    const failure = async (token: TokenState, opts: ChallengeOptions) => {
      const e = await email.deliverChallenge(token, email.challenge(token, opts), opts).catch((x) => x);
      expect(e).toBeInstanceOf(ChallengeDeliveryError);
      expect(e.message).toBe('The PIN was correct, but the EMail could not be sent!');
      return (e as ChallengeDeliveryError).reason;
    };
    const sent: { identifier: string; mail: OutboundMail }[] = [];
    expect(
      await failure(state({ dynamic_email: 'True' }), options(sent, undefined, {}, { username: 'alice' })),
    ).toMatch(/no e-mail address/);
    expect(await failure(state({ email: 'a@example.com' }), options(sent, {}))).toMatch(/email.identifier/);
    expect(
      await failure(state({ email: 'a@example.com' }), options(sent, { 'email.identifier': 'down' })),
    ).toMatch(/connection refused/);
    expect(sent).toEqual([]);
  });

  it('accepts the value ahead of the counter, or with concurrent challenges the challenge’s own', () => {
    const token = state({ email: 'a@example.com' }, 5);
    expect(email.checkOtp()).toBeNull();
    expect(email.checkResponse(token, hotpValue(KEY, 5, 6), '')).toEqual({ counter: 5, newCount: 6 });
    expect(email.checkResponse(token, hotpValue(KEY, 4, 6), '')).toBeNull();
    // A concurrent challenge of counter 3 is answered by its value; the counter does not go back.
    expect(email.checkResponse(token, hotpValue(KEY, 3, 6), '3')).toEqual({ counter: 3, newCount: 5 });
    expect(email.checkResponse(token, hotpValue(KEY, 5, 6), '3')).toBeNull();
    const concurrent = email.challenge(token, options([], { 'email.concurrent_challenges': 'True' }));
    expect(concurrent.data).toBe('6');
  });
});
