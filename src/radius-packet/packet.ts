// RADIUS packets (RFC 2865 section 3, 5): the header, the attributes and their limits. Decoding
// checks every length before it reads, so that a malformed or hostile packet is refused with a
// reason and never read past its end; what a packet means is up to its caller.

/** Packet codes (RFC 2865, RFC 2866, RFC 5997). */
export const CODE = {
  AccessRequest: 1,
  AccessAccept: 2,
  AccessReject: 3,
  AccountingRequest: 4,
  AccountingResponse: 5,
  AccessChallenge: 11,
  StatusServer: 12,
} as const;

/** Attribute types authsrv reads or writes (RFC 2865 section 5, RFC 2869 section 5.14). */
export const ATTRIBUTE = {
  UserName: 1,
  UserPassword: 2,
  NasIpAddress: 4,
  FilterId: 11,
  ReplyMessage: 18,
  State: 24,
  Class: 25,
  SessionTimeout: 27,
  NasIdentifier: 32,
  CallingStationId: 31,
  ProxyState: 33,
  MessageAuthenticator: 80,
} as const;

export const HEADER_LENGTH = 20;
export const AUTHENTICATOR_LENGTH = 16;
/** RFC 2865 section 3: a packet is at most 4096 octets. */
export const MAX_PACKET_LENGTH = 4096;
/** An attribute's value is at most 253 octets (its length octet counts type and length too). */
export const MAX_ATTRIBUTE_VALUE = 253;

export interface RadiusAttribute {
  type: number;
  value: Buffer;
}

export interface RadiusPacket {
  code: number;
  identifier: number;
  /** The 16 octets of the Authenticator field, as on the wire. */
  authenticator: Buffer;
  attributes: RadiusAttribute[];
}

/** A packet that cannot be decoded or encoded; the message says why. */
export class RadiusPacketError extends Error {
  override readonly name = 'RadiusPacketError';
}

/** Decodes a packet; throws RadiusPacketError for anything RFC 2865 says to discard as malformed. */
export function decodePacket(raw: Buffer): RadiusPacket {
  if (raw.length < HEADER_LENGTH) throw new RadiusPacketError(`packet of ${raw.length} octets is too short`);
  const length = raw.readUInt16BE(2);
  if (length < HEADER_LENGTH || length > MAX_PACKET_LENGTH)
    throw new RadiusPacketError(`invalid packet length ${length}`);
  // Octets past Length are padding and ignored; fewer octets than Length: discard (section 3).
  if (raw.length < length)
    throw new RadiusPacketError(`packet shorter (${raw.length}) than its length ${length}`);
  const attributes: RadiusAttribute[] = [];
  let at = HEADER_LENGTH;
  while (at < length) {
    if (at + 2 > length) throw new RadiusPacketError('truncated attribute header');
    const type = raw[at]!;
    const attrLength = raw[at + 1]!;
    if (attrLength < 2 || at + attrLength > length)
      throw new RadiusPacketError(`attribute ${type} has an invalid length ${attrLength}`);
    attributes.push({ type, value: Buffer.from(raw.subarray(at + 2, at + attrLength)) });
    at += attrLength;
  }
  return {
    code: raw[0]!,
    identifier: raw[1]!,
    authenticator: Buffer.from(raw.subarray(4, HEADER_LENGTH)),
    attributes,
  };
}

/** Encodes a packet as given (authenticator and attributes unchanged). */
export function encodePacket(p: RadiusPacket): Buffer {
  if (p.authenticator.length !== AUTHENTICATOR_LENGTH)
    throw new RadiusPacketError('the authenticator must be 16 octets');
  const parts: Buffer[] = [];
  for (const a of p.attributes) {
    if (a.value.length > MAX_ATTRIBUTE_VALUE)
      throw new RadiusPacketError(`attribute ${a.type} is longer than ${MAX_ATTRIBUTE_VALUE} octets`);
    parts.push(Buffer.from([a.type, a.value.length + 2]), a.value);
  }
  const body = Buffer.concat(parts);
  const length = HEADER_LENGTH + body.length;
  if (length > MAX_PACKET_LENGTH) throw new RadiusPacketError(`packet of ${length} octets is too long`);
  const header = Buffer.alloc(4);
  header[0] = p.code;
  header[1] = p.identifier;
  header.writeUInt16BE(length, 2);
  return Buffer.concat([header, p.authenticator, body]);
}

/** The value of the first attribute of a type, or undefined. */
export function attributeOf(p: RadiusPacket, type: number): Buffer | undefined {
  return p.attributes.find((a) => a.type === type)?.value;
}

/** A text attribute (User-Name, Reply-Message …) as UTF-8, or undefined. */
export function textAttribute(p: RadiusPacket, type: number): string | undefined {
  return attributeOf(p, type)?.toString('utf8');
}

/** Reply-Message may come in several attributes that make one text (RFC 2865 section 5.18). */
export function replyMessage(p: RadiusPacket): string | undefined {
  const parts = p.attributes.filter((a) => a.type === ATTRIBUTE.ReplyMessage).map((a) => a.value);
  return parts.length > 0 ? Buffer.concat(parts).toString('utf8') : undefined;
}
