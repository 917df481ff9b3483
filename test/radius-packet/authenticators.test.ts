// User-Password hiding and the authenticators against RFC 2865's own example (section 7.1), and
// the Message-Authenticator of requests and responses (round trips and tampering). FreeRADIUS
// checks the same code in test/gateways/radius/client.test.ts.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ATTRIBUTE,
  CODE,
  decodePacket,
  encodeRequest,
  encodeResponse,
  hidePassword,
  revealPassword,
  verifyRequest,
  verifyResponse,
} from '../../src/radius-packet/index.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

// RFC 2865 section 7.1: user nemo, password arctangent, secret xyzzy5461.
const SECRET = Buffer.from('xyzzy5461');
const REQUEST_AUTHENTICATOR = hex('0f403f9473978057bd83d5cb98f4227a');
const HIDDEN = hex('0dbe708d93d413ce3196e43f782a0aee');
const RESPONSE = hex('02000026 86fe220e7624ba2a1005f6bf9b55e0b2 0606 00000001 0f06 00000000 0e06 c0a80103');

describe('User-Password', () => {
  it('is hidden as in RFC 2865 section 7.1, and revealed back', () => {
    expect(hidePassword(Buffer.from('arctangent'), SECRET, REQUEST_AUTHENTICATOR)).toEqual(HIDDEN);
    expect(revealPassword(HIDDEN, SECRET, REQUEST_AUTHENTICATOR).toString()).toBe('arctangent');
  });

  it('of more than 16 octets chains the blocks, and at most 128 octets are allowed', () => {
    const long = Buffer.from('p'.repeat(40));
    const hidden = hidePassword(long, SECRET, REQUEST_AUTHENTICATOR);
    expect(hidden.length).toBe(48);
    expect(revealPassword(hidden, SECRET, REQUEST_AUTHENTICATOR)).toEqual(long);
    expect(() => hidePassword(Buffer.alloc(129, 1), SECRET, REQUEST_AUTHENTICATOR)).toThrow(/128/);
    expect(() => revealPassword(Buffer.alloc(17), SECRET, REQUEST_AUTHENTICATOR)).toThrow(/malformed/);
  });
});

describe('responses', () => {
  it("RFC 2865's Access-Accept passes the Response Authenticator check, and is refused for its missing Message-Authenticator", () => {
    const r = verifyResponse(RESPONSE, REQUEST_AUTHENTICATOR, SECRET);
    expect(r).toEqual({ ok: false, reason: 'the packet has no valid Message-Authenticator attribute' });
  });

  it('with another secret or request authenticator, the Response Authenticator is wrong', () => {
    expect(verifyResponse(RESPONSE, REQUEST_AUTHENTICATOR, Buffer.from('other'))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^the Response Authenticator is wrong/),
    });
    expect(verifyResponse(RESPONSE, randomBytes(16), SECRET)).toMatchObject({ ok: false });
  });

  it('built by encodeResponse carry Message-Authenticator first and verify; any changed octet is refused', () => {
    const request = randomBytes(16);
    const raw = encodeResponse(
      {
        code: CODE.AccessChallenge,
        identifier: 7,
        attributes: [
          { type: ATTRIBUTE.State, value: Buffer.from('st') },
          { type: ATTRIBUTE.ReplyMessage, value: Buffer.from('next code') },
        ],
      },
      request,
      SECRET,
    );
    const r = verifyResponse(raw, request, SECRET);
    expect(r.ok).toBe(true);
    const packet = decodePacket(raw);
    expect(packet.attributes.map((a) => a.type)).toEqual([
      ATTRIBUTE.MessageAuthenticator,
      ATTRIBUTE.State,
      ATTRIBUTE.ReplyMessage,
    ]);
    for (const at of [1, 4, 22, 30, raw.length - 1]) {
      const changed = Buffer.from(raw);
      changed[at] = changed[at]! ^ 1;
      expect(verifyResponse(changed, request, SECRET).ok).toBe(false);
    }
  });

  it('whose Message-Authenticator alone is wrong are refused (the Response Authenticator recomputed over it)', () => {
    const request = randomBytes(16);
    const raw = encodeResponse({ code: CODE.AccessAccept, identifier: 1, attributes: [] }, request, SECRET);
    // Re-sign with the Response Authenticator only, as a forger without the HMAC could not.
    raw[22] = raw[22]! ^ 0xff;
    const resigned = Buffer.from(raw);
    request.copy(resigned, 4);
    createHash('md5').update(resigned).update(SECRET).digest().copy(raw, 4);
    expect(verifyResponse(raw, request, SECRET)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^the Message-Authenticator is wrong/),
    });
  });
});

describe('requests', () => {
  it('are signed with Message-Authenticator, which verifyRequest checks', () => {
    const authenticator = randomBytes(16);
    const raw = encodeRequest(
      {
        code: CODE.AccessRequest,
        identifier: 3,
        authenticator,
        attributes: [
          { type: ATTRIBUTE.UserName, value: Buffer.from('nemo') },
          { type: ATTRIBUTE.UserPassword, value: hidePassword(Buffer.from('x'), SECRET, authenticator) },
        ],
      },
      SECRET,
    );
    expect(verifyRequest(raw, SECRET).ok).toBe(true);
    expect(verifyRequest(raw, Buffer.from('other'))).toMatchObject({ ok: false });
    const changed = Buffer.from(raw);
    changed[changed.length - 1] = changed[changed.length - 1]! ^ 1;
    expect(verifyRequest(changed, SECRET).ok).toBe(false);
  });

  it('without Message-Authenticator are refused unless the caller allows old clients', () => {
    const raw = hex(
      '01000038 0f403f9473978057bd83d5cb98f4227a 0106 6e656d6f 0212 0dbe708d93d413ce3196e43f782a0aee 0406 c0a80110 0506 00000003',
    );
    expect(verifyRequest(raw, SECRET)).toEqual({
      ok: false,
      reason: 'the packet has no valid Message-Authenticator attribute',
    });
    const r = verifyRequest(raw, SECRET, false);
    expect(
      r.ok && revealPassword(r.packet.attributes[1]!.value, SECRET, r.packet.authenticator).toString(),
    ).toBe('arctangent');
  });
});
