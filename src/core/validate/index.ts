// Authentication (/validate/): checking a user's or a token's password (recording the client
// application that asked), challenge-response, the authentication policies, polling a
// transaction, and what an answer means (ACCEPT, CHALLENGE, REJECT, DECLINED; the audit columns).

export { type AuthItems, clientOfflineRefill, type RefillInput } from './auth-items.ts';
export { check, clientCheck, clientPoll } from './check.ts';
export { answerOf, checkAuditColumns, pollAuditColumns } from './outcome.ts';
export { parseLastAuth } from './policies.ts';
export {
  parseRadiusReply,
  RADIUS_REPLY_ATTRIBUTES,
  type RadiusReplyAttribute,
  radiusReplyAttributes,
} from './radius-reply.ts';
export type { CheckInput, CheckResult } from './request.ts';
export { samlAttributes } from './saml.ts';
export { triggerChallenge } from './trigger.ts';
