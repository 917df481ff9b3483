// Authentication (/validate/): checking a user's or a token's password, challenge-response,
// the authentication policies, and polling a transaction.
export { pollTransaction } from './challenge-store.ts';
export {
  type CheckAudit,
  type CheckInput,
  type CheckResult,
  check,
  checkApiKey,
  samlAttributes,
  triggerChallenge,
} from './check.ts';
