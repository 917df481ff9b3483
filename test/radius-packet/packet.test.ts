// Decoding and encoding of RADIUS packets: RFC 2865's example, the limits, malformed packets.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ATTRIBUTE,
  CODE,
  decodePacket,
  encodePacket,
  RadiusPacketError,
  replyMessage,
  textAttribute,
} from '../../src/radius-packet/index.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');
const REQUEST = hex(
  '01000038 0f403f9473978057bd83d5cb98f4227a 0106 6e656d6f 0212 0dbe708d93d413ce3196e43f782a0aee 0406 c0a80110 0506 00000003',
);

describe('decodePacket and encodePacket', () => {
  it("read RFC 2865's Access-Request and write it back octet for octet", () => {
    const p = decodePacket(REQUEST);
    expect(p.code).toBe(CODE.AccessRequest);
    expect(p.identifier).toBe(0);
    expect(p.attributes.map((a) => a.type)).toEqual([ATTRIBUTE.UserName, ATTRIBUTE.UserPassword, 4, 5]);
    expect(textAttribute(p, ATTRIBUTE.UserName)).toBe('nemo');
    expect(encodePacket(p)).toEqual(REQUEST);
  });

  it('ignore octets past Length and join Reply-Message parts', () => {
    const p = decodePacket(
      Buffer.concat([
        hex('0b01001e'),
        Buffer.alloc(16),
        hex('1205 616263 1205 646566'),
        Buffer.from('padding'),
      ]),
    );
    expect(replyMessage(p)).toBe('abcdef');
  });

  it('refuse malformed packets with the reason', () => {
    expect(() => decodePacket(Buffer.alloc(19))).toThrow(/too short/);
    const bad = (length: number, attrs: string) =>
      Buffer.concat([hex(`0201${length.toString(16).padStart(4, '0')}`), Buffer.alloc(16), hex(attrs)]);
    expect(() => decodePacket(bad(19, ''))).toThrow(/invalid packet length/);
    expect(() => decodePacket(bad(5000, ''))).toThrow(/invalid packet length/);
    expect(() => decodePacket(bad(30, '0106 6e656d6f'))).toThrow(/shorter/);
    expect(() => decodePacket(bad(23, '0106 6e'))).toThrow(/invalid length/);
    expect(() => decodePacket(bad(22, '0101'))).toThrow(/invalid length 1/);
    expect(() => decodePacket(bad(21, '01'))).toThrow(/truncated/);
  });

  it('refuse to encode an attribute over 253 octets or a packet over 4096', () => {
    const p = { code: 1, identifier: 1, authenticator: Buffer.alloc(16) };
    expect(() => encodePacket({ ...p, attributes: [{ type: 18, value: Buffer.alloc(254) }] })).toThrow(
      RadiusPacketError,
    );
    const many = Array.from({ length: 17 }, () => ({ type: 18, value: Buffer.alloc(253) }));
    expect(() => encodePacket({ ...p, attributes: many })).toThrow(/too long/);
  });

  it('never throw anything but RadiusPacketError on random input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        try {
          const p = decodePacket(Buffer.from(bytes));
          expect(encodePacket(p).length).toBeLessThanOrEqual(bytes.length);
        } catch (e) {
          expect(e).toBeInstanceOf(RadiusPacketError);
        }
      }),
    );
  });
});
