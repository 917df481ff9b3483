// Brute-force throttling of the authentications (/auth, the /validate checks), like Keycloak's
// brute-force detection: failures counted per account from one client address and per address,
// in the database every node shares; waits growing with the failures, then a temporary block;
// the operator's list and clear.
export { type ClearRequest, clearThrottles, listThrottles, type ThrottleEntry } from './admin.ts';
export {
  afterFailure,
  type Backoff,
  backoffOf,
  type FailureCount,
  retryAfter,
  type ThrottleKind,
  waitAfter,
} from './backoff.ts';
export { type ThrottleVerdict, throttled } from './guard.ts';
export { type Attempt, accountOf, serialAccount } from './keys.ts';
