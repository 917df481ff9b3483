// The cryptographic parts of RADIUS: User-Password hiding (RFC 2865 section 5.2), the Response
// Authenticator (section 3) and Message-Authenticator (RFC 3579 section 3.2, RFC 2869 section
// 5.14), for a client and for a server alike. Message-Authenticator is always put first in a
// packet authsrv builds, as the BlastRADIUS advice (CVE-2024-3596) asks, and required on every
// answer authsrv reads: without it an attacker in the path can forge an answer by an MD5 collision.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import {
  ATTRIBUTE,
  decodePacket,
  encodePacket,
  HEADER_LENGTH,
  type RadiusAttribute,
  type RadiusPacket,
  RadiusPacketError,
} from './packet.ts';

/** RFC 2865 section 5.2: the password is at most 128 octets. */
export const MAX_PASSWORD_LENGTH = 128;

function md5(...parts: Buffer[]): Buffer {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** User-Password hidden with the shared secret and the Request Authenticator (section 5.2). */
export function hidePassword(password: Buffer, secret: Buffer, requestAuthenticator: Buffer): Buffer {
  if (password.length > MAX_PASSWORD_LENGTH)
    throw new RadiusPacketError(`the password is longer than ${MAX_PASSWORD_LENGTH} octets`);
  const padded = Buffer.alloc(Math.max(16, Math.ceil(password.length / 16) * 16));
  password.copy(padded);
  const out = Buffer.alloc(padded.length);
  let previous = requestAuthenticator;
  for (let i = 0; i < padded.length; i += 16) {
    const b = md5(secret, previous);
    for (let j = 0; j < 16; j++) out[i + j] = padded[i + j]! ^ b[j]!;
    previous = out.subarray(i, i + 16);
  }
  return out;
}

/** The clear User-Password (trailing NUL padding removed); for a server reading a request. */
export function revealPassword(hidden: Buffer, secret: Buffer, requestAuthenticator: Buffer): Buffer {
  if (hidden.length === 0 || hidden.length % 16 !== 0 || hidden.length > MAX_PASSWORD_LENGTH)
    throw new RadiusPacketError(`User-Password of ${hidden.length} octets is malformed`);
  const out = Buffer.alloc(hidden.length);
  let previous = requestAuthenticator;
  for (let i = 0; i < hidden.length; i += 16) {
    const b = md5(secret, previous);
    for (let j = 0; j < 16; j++) out[i + j] = hidden[i + j]! ^ b[j]!;
    previous = hidden.subarray(i, i + 16);
  }
  let end = out.length;
  while (end > 0 && out[end - 1] === 0) end--;
  return out.subarray(0, end);
}

/** The attributes with Message-Authenticator first, zeroed, ready to be signed. */
function withZeroMessageAuthenticator(attributes: readonly RadiusAttribute[]): RadiusAttribute[] {
  return [
    { type: ATTRIBUTE.MessageAuthenticator, value: Buffer.alloc(16) },
    ...attributes.filter((a) => a.type !== ATTRIBUTE.MessageAuthenticator),
  ];
}

/** Offset of the (first) Message-Authenticator value in an encoded packet, or -1. */
function messageAuthenticatorOffset(raw: Buffer): number {
  let at = HEADER_LENGTH;
  const length = raw.readUInt16BE(2);
  while (at + 2 <= length) {
    if (raw[at] === ATTRIBUTE.MessageAuthenticator) return raw[at + 1] === 18 ? at + 2 : -1;
    at += raw[at + 1]!;
  }
  return -1;
}

/** HMAC-MD5 of the packet with its Authenticator field set to `authenticator`, the MA value zeroed. */
function messageAuthenticatorOf(raw: Buffer, offset: number, authenticator: Buffer, secret: Buffer): Buffer {
  const copy = Buffer.from(raw.subarray(0, raw.readUInt16BE(2)));
  authenticator.copy(copy, 4);
  copy.fill(0, offset, offset + 16);
  return createHmac('md5', secret).update(copy).digest();
}

/**
 * An Access-Request (or Status-Server) signed with Message-Authenticator; the caller gives the
 * random Request Authenticator and hides User-Password with it beforehand.
 */
export function encodeRequest(p: RadiusPacket, secret: Buffer): Buffer {
  const raw = encodePacket({ ...p, attributes: withZeroMessageAuthenticator(p.attributes) });
  const offset = messageAuthenticatorOffset(raw);
  messageAuthenticatorOf(raw, offset, p.authenticator, secret).copy(raw, offset);
  return raw;
}

/**
 * A response to `request`: Message-Authenticator (computed with the Request Authenticator in the
 * header), then the Response Authenticator over the whole packet (RFC 3579 section 3.2).
 */
export function encodeResponse(
  response: Omit<RadiusPacket, 'authenticator'>,
  requestAuthenticator: Buffer,
  secret: Buffer,
): Buffer {
  const raw = encodePacket({
    ...response,
    authenticator: requestAuthenticator,
    attributes: withZeroMessageAuthenticator(response.attributes),
  });
  const offset = messageAuthenticatorOffset(raw);
  messageAuthenticatorOf(raw, offset, requestAuthenticator, secret).copy(raw, offset);
  md5(raw, secret).copy(raw, 4);
  return raw;
}

function equal(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

export type Verified = { ok: true; packet: RadiusPacket } | { ok: false; reason: string };

/** The Message-Authenticator check of an encoded packet, given the authenticator it was computed with. */
function checkMessageAuthenticator(raw: Buffer, authenticator: Buffer, secret: Buffer): string | undefined {
  const offset = messageAuthenticatorOffset(raw);
  if (offset < 0) return 'the packet has no valid Message-Authenticator attribute';
  const expected = messageAuthenticatorOf(raw, offset, authenticator, secret);
  if (!equal(expected, raw.subarray(offset, offset + 16)))
    return 'the Message-Authenticator is wrong (is the shared secret the same on both sides?)';
  return undefined;
}

/**
 * Decodes and verifies a response to a request with `requestAuthenticator`: the Response
 * Authenticator and the Message-Authenticator must both be right. A response that fails either is
 * not from the server that knows the secret, or was changed on the way, and must be discarded.
 */
export function verifyResponse(raw: Buffer, requestAuthenticator: Buffer, secret: Buffer): Verified {
  let packet: RadiusPacket;
  try {
    packet = decodePacket(raw);
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  const length = raw.readUInt16BE(2);
  const signed = Buffer.from(raw.subarray(0, length));
  requestAuthenticator.copy(signed, 4);
  if (!equal(md5(signed, secret), packet.authenticator))
    return {
      ok: false,
      reason: 'the Response Authenticator is wrong (is the shared secret the same on both sides?)',
    };
  const wrong = checkMessageAuthenticator(raw, requestAuthenticator, secret);
  return wrong ? { ok: false, reason: wrong } : { ok: true, packet };
}

/**
 * Decodes a request and checks its Message-Authenticator (for a server). `requireMessageAuthenticator`
 * false accepts a request without one from an old client; one that is there is always checked.
 */
export function verifyRequest(raw: Buffer, secret: Buffer, requireMessageAuthenticator = true): Verified {
  let packet: RadiusPacket;
  try {
    packet = decodePacket(raw);
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  const present = packet.attributes.some((a) => a.type === ATTRIBUTE.MessageAuthenticator);
  if (!present && !requireMessageAuthenticator) return { ok: true, packet };
  const wrong = checkMessageAuthenticator(raw, packet.authenticator, secret);
  return wrong ? { ok: false, reason: wrong } : { ok: true, packet };
}
