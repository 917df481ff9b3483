// RADIUS packets (RFC 2865) with User-Password hiding and Message-Authenticator (RFC 3579/2869),
// for both ends: the RADIUS client of src/gateways/radius and, later, authsrv's own RADIUS server.
// It imports nothing of authsrv, so that every layer may use it.
export {
  encodeRequest,
  encodeResponse,
  hidePassword,
  MAX_PASSWORD_LENGTH,
  revealPassword,
  type Verified,
  verifyRequest,
  verifyResponse,
} from './authenticators.ts';
export {
  ATTRIBUTE,
  AUTHENTICATOR_LENGTH,
  attributeOf,
  CODE,
  decodePacket,
  encodePacket,
  MAX_ATTRIBUTE_VALUE,
  MAX_PACKET_LENGTH,
  type RadiusAttribute,
  type RadiusPacket,
  RadiusPacketError,
  replyMessage,
  textAttribute,
} from './packet.ts';
