// Authentication (/validate/): checking a user's or a token's password (recording the client
// application that asked), challenge-response, the authentication policies, and polling a
// transaction.
export { check, clientCheck, clientPoll } from './check.ts';
export {
  answerOf,
  auditColumnsOf,
  type CheckAnswer,
  type CheckAudit,
  type CheckInput,
  type CheckResult,
} from './request.ts';
export { samlAttributes } from './saml.ts';
export { triggerChallenge } from './trigger.ts';
