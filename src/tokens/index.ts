// The token types: one interface, one registry, one file per type.
export { type Eyes, missingEyes, parseEyes, requirementsOf, separatorOf } from './four-eyes.ts';
export { HotpType } from './hotp.ts';
export { findCounter, isHashlib } from './oath.ts';
export { hashlibOf } from './oath-type.ts';
export { findTokenType, tokenTypes } from './registry.ts';
export { type OtpMatch, type TokenState, TokenType, type TypeSettings } from './token-type.ts';
export { TotpType } from './totp.ts';
export { planTwoStep } from './two-step.ts';
