// The token types: one interface, one registry, one file per type.
export { type Eyes, missingEyes, newEyes, parseEyes, requirementsOf, separatorOf } from './four-eyes.ts';
export { isHashlib } from './oath.ts';
export type {
  CarriedInfo,
  LeftOut,
  PrivacyideaConversion,
  PrivacyideaInfo,
  PrivacyideaStoredToken,
} from './privacyidea.ts';
export { defaultTokenType, findTokenType, lostTokenType, tokenTypes } from './registry.ts';
export {
  type CertificateAuthorities,
  ChallengeDeliveryError,
  type ChallengeSpec,
  type Enrollment,
  type OtpMatch,
  type Outbox,
  type TokenFileEntry,
  type TokenState,
  TokenType,
  type TypeSettings,
  type UpstreamAnswer,
  type UpstreamCheck,
  type UpstreamRequest,
  type UpstreamResult,
} from './token-type.ts';
export { planTwoStep } from './two-step.ts';
export { modhexToHex } from './yubikey.ts';
